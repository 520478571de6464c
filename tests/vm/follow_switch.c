// SPDX-License-Identifier: GPL-2.0
/*
 * ptt-timeout: 60
 * perf's context-switch records agree with the trace: 'record -- PROG
 * nap' (user and kernel) where PROG works and sleeps in turns for half a
 * second, so it is switched in and out many times, on whichever CPU.
 * sideband.perf's switch records of PROG give, per CPU, the TSC
 * intervals it ran there (exact TSC from the mmap page's time_zero;
 * every boot of the VM runner has it, see scripts/vm-run.sh for 6.1's).
 * The driver turns tracing on at the sched_switch tracepoint into PROG
 * and off at the one out of it, both with IRQs off, so on each CPU:
 *  - each TIP.PGE lies between the TSC packets around it; that window
 *    must overlap an interval in which PROG was switched in there (the
 *    trace never starts where the sideband says PROG was not running);
 *  - every TSC packet (the model sends them from its timer tick, so
 *    with IRQs on, after perf's switch-in record and before its
 *    switch-out record) lies inside such an interval: nothing is traced
 *    on a CPU while PROG is switched out of it;
 *  - each switch-out record of a run that has packets (a TSC packet in
 *    it) lies within the TSC window of a TIP.PGD: with the kernel traced
 *    PacketEn is 1 at the switch, so turning tracing off there sends
 *    TIP.PGD (and no TSC comes before the next switch-in's enable).
 *    Skipped for a switch-out whose TSC window (the bytes between the
 *    TSC packets around it) holds a gap of cpuN.loss, where the TIP.PGD
 *    may have been lost, and on a CPU whose loss records were lapped
 *    (their offsets unknown).  A streamed trace resumes after a gap at a
 *    PSB: the walk synchronises again there.
 * There must be switch records, checked TIP.PGEs and checked switch-outs.
 */
#include <intel-pt.h>

#include "follow_record.h"
#include "lossfile.h"

#define MAXIV	4096
#define MAXPGD	8192
#define MAXTSC	65536
#define TSC_MASK	((1ULL << 56) - 1)	/* TSC packets carry 56 bits */

struct iv {
	__u32 cpu;
	__u64 in, out;
	int closed;	/* out is a switch-out record's, not the end */
	int traced;	/* a TSC packet of that CPU lies in it */
};

static struct iv ivs[MAXIV];
static int nivs;

/* The TSC windows of one CPU's TIP.PGDs. */
static struct { __u64 lo, hi; } pgds[MAXPGD];
static int npgds;

/* One CPU's TSC packets: value and file offset, in trace order. */
static struct { __u64 tsc, off; } tscs_at[MAXTSC];
static int ntscs;

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
			ivs[nivs++] = (struct iv){ ev.cpu, open_at[ev.cpu], tsc,
						   1, 0 };
			open_at[ev.cpu] = 0;
		}
	}
	for (pos = 0; pos < 64; pos++)
		if (open_at[pos] && nivs < MAXIV)
			ivs[nivs++] = (struct iv){ (__u32)pos, open_at[pos],
						   TSC_MASK, 0, 0 };
}

static int overlaps(__u32 cpu, __u64 lo, __u64 hi)
{
	int i;

	for (i = 0; i < nivs; i++)
		if (ivs[i].cpu == cpu && ivs[i].in <= hi && ivs[i].out >= lo)
			return 1;
	return 0;
}

/* The interval of @cpu holding @tsc (marked traced), or 0. */
static int inside(__u32 cpu, __u64 tsc)
{
	int i;

	for (i = 0; i < nivs; i++)
		if (ivs[i].cpu == cpu && ivs[i].in <= tsc && tsc <= ivs[i].out) {
			ivs[i].traced = 1;
			return 1;
		}
	return 0;
}

static void add_pgd(__u64 lo, __u64 hi)
{
	if (npgds < MAXPGD) {
		pgds[npgds].lo = lo;
		pgds[npgds++].hi = hi;
	}
}

/*
 * Check the TIP.PGEs and TSC packets of one CPU's trace (their numbers
 * added to *@pges and *@tscs) and collect its TIP.PGD windows and TSC
 * offsets.  The trace is walked in the pieces its gaps (@lf) cut it in,
 * each from its first PSB: the bytes before a gap may end in the middle
 * of a packet.  A TSC window that spans a gap is only wider.
 */
static void walk_cpu(__u32 cpu, const __u8 *buf, size_t len,
		     const struct ptl_file *lf, int *pges, int *tscs)
{
	struct pt_packet_decoder *d;
	struct pt_config cfg;
	struct pt_packet p;
	__u64 last = 0, pending[256], from = 0, to;
	unsigned long off;	/* uint64_t, as libipt takes it */
	int npend = 0, npgd = 0, i;
	size_t k = 0;

	npgds = 0;
	ntscs = 0;
	for (; from < len; from = to) {
		to = len;
		for (; k < lf->n; k++)
			if (lf->rec[k].offset > from) {
				to = lf->rec[k].offset < len ? lf->rec[k].offset : len;
				break;
			}
		pt_config_init(&cfg);
		cfg.begin = (__u8 *)buf + from;
		cfg.end = (__u8 *)buf + to;
		d = pt_pkt_alloc_decoder(&cfg);
		REQUIRE(d, "libipt decoder");
		if (pt_pkt_sync_forward(d) < 0) {
			pt_pkt_free_decoder(d);
			continue;
		}
		while (pt_pkt_next(d, &p, sizeof(p)) >= 0) {
			if (p.type == ppt_tip_pge && last && npend < 256)
				pending[npend++] = last;
			if (p.type == ppt_tip_pgd)
				npgd++;
			if (p.type != ppt_tsc)
				continue;
			for (i = 0; i < npend; i++, (*pges)++)
				CHECK(overlaps(cpu, pending[i], p.payload.tsc.tsc),
				      "cpu%u: TIP.PGE between TSC %#llx and %#llx, PROG not switched in there",
				      cpu, (unsigned long long)pending[i],
				      (unsigned long long)p.payload.tsc.tsc);
			for (i = 0; i < npgd; i++)
				add_pgd(last, p.payload.tsc.tsc);
			CHECK(inside(cpu, p.payload.tsc.tsc),
			      "cpu%u: TSC packet %#llx while PROG was not switched in there (traced after a switch-out)",
			      cpu, (unsigned long long)p.payload.tsc.tsc);
			if (ntscs < MAXTSC && !pt_pkt_get_offset(d, &off)) {
				tscs_at[ntscs].tsc = p.payload.tsc.tsc;
				tscs_at[ntscs++].off = from + off;
			}
			(*tscs)++;
			npend = 0;
			npgd = 0;
			last = p.payload.tsc.tsc;
		}
		pt_pkt_free_decoder(d);
	}
	for (i = 0; i < npend; i++, (*pges)++)
		CHECK(overlaps(cpu, pending[i], TSC_MASK),
		      "cpu%u: TIP.PGE after TSC %#llx, PROG not switched in since",
		      cpu, (unsigned long long)pending[i]);
	for (i = 0; i < npgd; i++)
		add_pgd(last, TSC_MASK);
}

/*
 * Whether a gap of @lf lies in the bytes between the TSC packets around
 * @tsc in a trace of @len bytes (a TIP.PGD at @tsc would be there).
 */
static int gap_near(const struct ptl_file *lf, __u64 tsc, __u64 len)
{
	__u64 lo = 0, hi = len;
	size_t k;
	int i;

	for (i = 0; i < ntscs; i++) {
		if (tscs_at[i].tsc <= tsc) {
			lo = tscs_at[i].off;
		} else {
			hi = tscs_at[i].off;
			break;
		}
	}
	for (k = 0; k < lf->n; k++)
		if (lf->rec[k].offset >= lo && lf->rec[k].offset <= hi)
			return 1;
	return 0;
}

/*
 * Each switch-out of a traced run of @cpu within a TIP.PGD's window,
 * unless a gap of @lf may hold that TIP.PGD (counted in *@skipped).
 */
static int check_outs(__u32 cpu, const struct ptl_file *lf, __u64 len,
		      int *skipped)
{
	int i, j, checked = 0;

	for (i = 0; i < nivs; i++) {
		if (ivs[i].cpu != cpu || !ivs[i].closed || !ivs[i].traced)
			continue;
		if (gap_near(lf, ivs[i].out, len)) {
			(*skipped)++;
			continue;
		}
		for (j = 0; j < npgds; j++)
			if (pgds[j].lo <= ivs[i].out && ivs[i].out <= pgds[j].hi)
				break;
		CHECK(j < npgds,
		      "cpu%u: PROG switched out at TSC %#llx (in since %#llx) with no TIP.PGD between the TSC packets around it",
		      cpu, (unsigned long long)ivs[i].out,
		      (unsigned long long)ivs[i].in);
		checked++;
	}
	return checked;
}

/* DIR/cpuN.loss into @lf (none: no records); 0, or -1 when lapped. */
static int cpu_losses(const char *out, int cpu, struct ptl_file *lf)
{
	char path[256], desc[PTL_DESCRIBE_MAX];
	int line = 0, rc;
	size_t k;

	memset(lf, 0, sizeof(*lf));
	snprintf(path, sizeof(path), "%s/cpu%d%s", out, cpu, PTL_SUFFIX);
	if (access(path, F_OK))
		return 0;
	rc = ptl_read(path, lf, &line);
	REQUIRE(rc == 0, "%s line %d: %s", path, line, strerror(-rc));
	for (k = 0; k < lf->n; k++)
		fprintf(stderr, "PTT-INFO cpu%d: loss at offset %llu: %s\n", cpu,
			(unsigned long long)lf->rec[k].offset,
			ptl_describe(&lf->rec[k], desc, sizeof(desc)));
	return lf->lapped ? -1 : 0;
}

int main(int argc, char **argv)
{
	const char *out = "/tmp/follow_switch", *err = "/tmp/follow_switch.err";
	char path[256], sbpath[256], *av[16];
	int rc, cpu, pges = 0, outs = 0, i;
	struct ptl_file lf;
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
	sb = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
	if (sb && fgets(path, sizeof(path), sb))
		fprintf(stderr, "PTT-INFO clocksource %s", path);
	if (sb)
		fclose(sb);
	fw_args(av, (int)ARRAY_SIZE(av), "record", "-o", out, "--",
		fw_self, "nap", NULL);
	rc = fw_run(av, err);
	fw_show(err, "record: ");
	REQUIRE(rc == 0, "record exited %d", rc);
	snprintf(sbpath, sizeof(sbpath), "%s/sideband.txt", out);
	sb = fopen(sbpath, "r");
	REQUIRE(sb, "%s", sbpath);
	while (fgets(path, sizeof(path), sb))
		if (sscanf(path, "pid=%u", &pid) == 1)
			break;
	fclose(sb);
	REQUIRE(pid, "no pid= in the sideband");
	snprintf(path, sizeof(path), "%s/%s", out, PTPSB_FILE_NAME);
	rc = ptpsb_load(path, &f);
	REQUIRE(rc == 0, "%s: %s", path, strerror(-rc));
	/* Every VM boot has it: a kernel without it is a finding here. */
	REQUIRE(f.hdr.flags & PTPSB_TIME_ZERO,
		"no cap_user_time_zero: perf times are not TSC (sched_clock not stable: see scripts/vm-run.sh)");
	intervals(&f, pid);
	fprintf(stderr, "PTT-INFO %d switched-in intervals of pid %u\n", nivs, pid);
	CHECK(nivs > 1, "no switch records for pid %u", pid);
	for (cpu = 0; cpu < 64; cpu++) {
		int pge = 0, tsc = 0, o = 0, skipped = 0, lapped;
		long long n;
		__u8 *buf;
		FILE *t;

		snprintf(path, sizeof(path), "%s/cpu%d.pt", out, cpu);
		n = fw_size(path);
		if (n <= 0)
			continue;
		buf = malloc((size_t)n);
		t = fopen(path, "r");
		REQUIRE(buf && t && fread(buf, 1, (size_t)n, t) == (size_t)n,
			"read %s", path);
		fclose(t);
		lapped = cpu_losses(out, cpu, &lf);
		walk_cpu((__u32)cpu, buf, (size_t)n, &lf, &pge, &tsc);
		if (!lapped)
			o = check_outs((__u32)cpu, &lf, (__u64)n, &skipped);
		fprintf(stderr,
			"PTT-INFO cpu%d: %d TIP.PGE, %d TSC packets, %d TIP.PGD, %d switch-outs checked, %d next to a loss not checked%s\n",
			cpu, pge, tsc, npgds, o, skipped,
			lapped ? " (loss records lapped: switch-outs not checked)" : "");
		pges += pge;
		outs += o;
		ptl_free(&lf);
		free(buf);
	}
	CHECK(pges > 0, "no TIP.PGE with TSC packets around it to check");
	CHECK(outs > 0, "no switch-out of a traced run to check");
	ptpsb_free(&f);
	if (!ptt_failures &&
	    system("rm -rf /tmp/follow_switch /tmp/follow_switch.err"))
		fprintf(stderr, "cleanup failed\n");
	return ptt_done();
}
