// SPDX-License-Identifier: GPL-2.0
/*
 * ptt-timeout: 60
 * perf's context-switch records agree with the trace: 'record -u -- PROG
 * nap' where PROG works and sleeps in turns for half a second, so it is
 * switched in and out many times, on whichever CPU.  sideband.perf's
 * switch records of PROG give, per CPU, the TSC intervals it ran there
 * (exact TSC from the mmap page's time_zero: skipped without it).  Each
 * TIP.PGE in that CPU's trace (tracing turned on for PROG) lies between
 * the TSC packets around it; that window must overlap an interval in
 * which PROG was switched in on that CPU: the trace never starts on a
 * CPU where the sideband says PROG was not running.  There must be
 * switch records and checked TIP.PGEs on at least one CPU.
 */
#include <intel-pt.h>

#include "follow_record.h"

#define MAXIV	4096
#define TSC_MASK	((1ULL << 56) - 1)	/* TSC packets carry 56 bits */

struct iv {
	__u32 cpu;
	__u64 in, out;
};

static struct iv ivs[MAXIV];
static int nivs;

/* The runs of @pid from its switch records (a run open at the end lasts). */
static void intervals(const struct ptpsb_file *f, __u32 pid)
{
	struct ptpsb_event ev;
	__u64 open_at[64] = { 0 };
	unsigned long tsc;	/* uint64_t, as ptpsb_tsc() takes it */
	size_t pos = 0;

	while (ptpsb_next(f, &pos, &ev) == 1) {
		if (ev.type != 14 /* SWITCH */ || ev.pid != pid || ev.cpu >= 64 ||
		    ptpsb_tsc(&f->hdr, ev.time, &tsc))
			continue;
		tsc &= TSC_MASK;
		if (!(ev.misc & 0x2000)) {	/* PERF_RECORD_MISC_SWITCH_OUT */
			open_at[ev.cpu] = tsc;
		} else if (open_at[ev.cpu] && nivs < MAXIV) {
			ivs[nivs++] = (struct iv){ ev.cpu, open_at[ev.cpu], tsc };
			open_at[ev.cpu] = 0;
		}
	}
	for (pos = 0; pos < 64; pos++)
		if (open_at[pos] && nivs < MAXIV)
			ivs[nivs++] = (struct iv){ (__u32)pos, open_at[pos], TSC_MASK };
}

static int overlaps(__u32 cpu, __u64 lo, __u64 hi)
{
	int i;

	for (i = 0; i < nivs; i++)
		if (ivs[i].cpu == cpu && ivs[i].in <= hi && ivs[i].out >= lo)
			return 1;
	return 0;
}

/* Check each TIP.PGE of one CPU's trace; the number checked. */
static int check_cpu(__u32 cpu, const __u8 *buf, size_t len)
{
	struct pt_packet_decoder *d;
	struct pt_config cfg;
	struct pt_packet p;
	__u64 last = 0, pending[256];
	int npend = 0, checked = 0, i;

	pt_config_init(&cfg);
	cfg.begin = (__u8 *)buf;
	cfg.end = (__u8 *)buf + len;
	d = pt_pkt_alloc_decoder(&cfg);
	REQUIRE(d, "libipt decoder");
	if (pt_pkt_sync_forward(d) >= 0)
		while (pt_pkt_next(d, &p, sizeof(p)) >= 0) {
			if (p.type == ppt_tip_pge && last && npend < 256)
				pending[npend++] = last;
			if (p.type != ppt_tsc)
				continue;
			for (i = 0; i < npend; i++, checked++)
				CHECK(overlaps(cpu, pending[i], p.payload.tsc.tsc),
				      "cpu%u: TIP.PGE between TSC %#llx and %#llx, PROG not switched in there",
				      cpu, (unsigned long long)pending[i],
				      (unsigned long long)p.payload.tsc.tsc);
			npend = 0;
			last = p.payload.tsc.tsc;
		}
	for (i = 0; i < npend; i++, checked++)
		CHECK(overlaps(cpu, pending[i], TSC_MASK),
		      "cpu%u: TIP.PGE after TSC %#llx, PROG not switched in since",
		      cpu, (unsigned long long)pending[i]);
	pt_pkt_free_decoder(d);
	return checked;
}

int main(int argc, char **argv)
{
	const char *out = "/tmp/follow_switch", *err = "/tmp/follow_switch.err";
	char path[256], *av[16];
	int rc, cpu, checked = 0, i;
	struct ptpsb_file f;
	__u32 pid = 0;
	FILE *sb;

	if (argc >= 2 && !strcmp(argv[1], "nap")) {
		for (i = 0; i < 50; i++) {
			fw_work(0.005);
			usleep(5000);
		}
		return 0;
	}
	fw_child_modes(argc, argv);
	fw_args(av, (int)ARRAY_SIZE(av), "record", "-u", "-o", out, "--",
		fw_self, "nap", NULL);
	rc = fw_run(av, err);
	fw_show(err, "record: ");
	REQUIRE(rc == 0, "record exited %d", rc);
	snprintf(path, sizeof(path), "%s/sideband.txt", out);
	sb = fopen(path, "r");
	REQUIRE(sb, "%s", path);
	while (fgets(path, sizeof(path), sb))
		if (sscanf(path, "pid=%u", &pid) == 1)
			break;
	fclose(sb);
	REQUIRE(pid, "no pid= in the sideband");
	snprintf(path, sizeof(path), "%s/%s", out, PTPSB_FILE_NAME);
	rc = ptpsb_load(path, &f);
	REQUIRE(rc == 0, "%s: %s", path, strerror(-rc));
	if (!(f.hdr.flags & PTPSB_TIME_ZERO))
		SKIP("no cap_user_time_zero on this kernel: perf times are not TSC");
	intervals(&f, pid);
	fprintf(stderr, "PTT-INFO %d switched-in intervals of pid %u\n", nivs, pid);
	CHECK(nivs > 1, "no switch records for pid %u", pid);
	for (cpu = 0; cpu < 64; cpu++) {
		long long n;
		__u8 *buf;
		FILE *t;
		int c;

		snprintf(path, sizeof(path), "%s/cpu%d.pt", out, cpu);
		n = fw_size(path);
		if (n <= 0)
			continue;
		buf = malloc((size_t)n);
		t = fopen(path, "r");
		REQUIRE(buf && t && fread(buf, 1, (size_t)n, t) == (size_t)n,
			"read %s", path);
		fclose(t);
		c = check_cpu((__u32)cpu, buf, (size_t)n);
		fprintf(stderr, "PTT-INFO cpu%d: %d TIP.PGE checked\n", cpu, c);
		checked += c;
		free(buf);
	}
	CHECK(checked > 0, "no TIP.PGE with TSC packets around it to check");
	ptpsb_free(&f);
	if (!ptt_failures &&
	    system("rm -rf /tmp/follow_switch /tmp/follow_switch.err"))
		fprintf(stderr, "cleanup failed\n");
	return ptt_done();
}
