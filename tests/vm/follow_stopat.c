// SPDX-License-Identifier: GPL-2.0
/*
 * ptt-timeout: 60
 * 'record --stop-at ptt_stop_here -u -- PROG stopper': the recorder
 * finds the function in PROG (a PIE: at its load address, read at the
 * exec stop), programs a TraceStop range over it, notices the hardware
 * stopped and ends the recording there.  The CPU it names has a trace
 * that ends with its only TraceStop packet, although PROG went on
 * running traced code after the call; a TIP.PGD right before it names an
 * IP inside the function (its first instruction on silicon and the exact
 * model; where the sampled model's tick saw it otherwise); the command
 * still runs to its end (exit status 0 in the sideband).
 * Skips on profiles without address ranges.
 */
#include <signal.h>
#include <sys/time.h>
#include <intel-pt.h>

#include "follow_record.h"

static int stop_loop;

static void on_alarm(int sig)
{
	(void)sig;
	__atomic_store_n(&stop_loop, 1, __ATOMIC_RELAXED);
}

/*
 * The function the trace stops at: global, so in the symbol table.  It
 * spins until SIGALRM, because the sampled model sees an IP only at its
 * ticks: a function that returns at once would rarely be seen entered.
 */
__pt_attribute((noinline, used)) void ptt_stop_here(void);
__pt_attribute((noinline, used)) void ptt_stop_here(void)
{
	while (!__atomic_load_n(&stop_loop, __ATOMIC_RELAXED)) {
		fw_sink++;
		__asm__ __volatile__("" : : "r"(fw_sink) : "memory");
	}
}

static unsigned long long stop_start, stop_end;

/*
 * The packets of one trace: it must end with the TraceStop, the only
 * one, with no TIP.PGE after the last TIP.PGD.  When tracing was on at
 * the stop (PacketEn), the TIP.PGD right before the TraceStop names an
 * IP in the function; when it was off (a task switch just before), the
 * stop comes with no TIP.PGD (SDM 36.2.4.3): what follows the last one
 * is then packets without IPs (PSB+, PIP, timing).
 */
static void check_end(const __u8 *buf, size_t len)
{
	struct pt_config cfg;
	struct pt_packet_decoder *d;
	struct pt_packet p, pgd = { 0 };
	int stops = 0, pge_after = 0, have_pgd = 0, last_stop = 0, n = 0;
	int pgd_then_stop = 0, prev_pgd = 0;

	pt_config_init(&cfg);
	cfg.begin = (__u8 *)buf;
	cfg.end = (__u8 *)buf + len;
	d = pt_pkt_alloc_decoder(&cfg);
	REQUIRE(d, "libipt decoder");
	if (pt_pkt_sync_forward(d) >= 0)
		while (pt_pkt_next(d, &p, sizeof(p)) >= 0) {
			if (p.type == ppt_pad)
				continue;
			n++;
			last_stop = p.type == ppt_stop;
			if (last_stop) {
				stops++;
				pgd_then_stop = prev_pgd;
			}
			prev_pgd = p.type == ppt_tip_pgd;
			if (p.type == ppt_tip_pgd) {
				pgd = p;
				have_pgd = 1;
				pge_after = 0;
			}
			if (p.type == ppt_tip_pge)
				pge_after++;
		}
	pt_pkt_free_decoder(d);
	REQUIRE(n > 0, "no packets in the stopped CPU's trace");
	CHECK(last_stop && stops == 1,
	      "the trace does not end with its only TraceStop (%d TraceStop packets)",
	      stops);
	CHECK(!have_pgd || !pge_after, "%d TIP.PGE after the last TIP.PGD", pge_after);
	if (!pgd_then_stop) {
		fprintf(stderr,
			"PTT-INFO tracing was off when the stop came: no TIP.PGD before it\n");
		return;
	}
	if (pgd.payload.ip.ipc != pt_ipc_suppressed) {
		int bits = pgd.payload.ip.ipc == pt_ipc_update_16 ? 16 :
			   pgd.payload.ip.ipc == pt_ipc_update_32 ? 32 :
			   pgd.payload.ip.ipc == pt_ipc_update_48 ? 48 : 64;
		unsigned long long mask = bits == 64 ? ~0ULL :
					  (1ULL << bits) - 1;
		unsigned long long ip = pgd.payload.ip.ip;

		if (pgd.payload.ip.ipc == pt_ipc_sext_48)
			ip = (unsigned long long)((long long)(ip << 16) >> 16);
		/* the upper bits the packet leaves out are the function's */
		ip = (stop_start & ~mask) | (ip & mask);
		/*
		 * The instruction-exact model (and silicon) stop at the
		 * function's first instruction; the sampled model at the
		 * IP its tick saw inside it.
		 */
		CHECK(ip >= stop_start && ip <= stop_end,
		      "the last TIP.PGD is at %#llx, outside the function %#llx-%#llx",
		      ip, stop_start, stop_end);
		fprintf(stderr, "PTT-INFO the trace stops at %#llx, the function's start + %llu\n",
			ip, ip - stop_start);
	}
}

int main(int argc, char **argv)
{
	const char *out = "/tmp/follow_stopat", *err = "/tmp/follow_stopat.err";
	char path[256], line[512], *av[16];
	int rc, cpu = -1;
	__u8 *buf;
	long long n;
	FILE *f;

	if (argc >= 2 && !strcmp(argv[1], "stopper")) {
		struct itimerval it = { .it_value = { .tv_usec = 300000 } };

		fw_work(0.2);
		signal(SIGALRM, on_alarm);
		setitimer(ITIMER_REAL, &it, NULL);
		ptt_stop_here();
		fw_work(0.3);	/* traced code that must not be in the trace */
		return 0;
	}
	fw_child_modes(argc, argv);
	if (ptt_read_ll("/sys/kernel/pt_trace/caps/num_address_ranges") < 1)
		SKIP("no address ranges in this profile");
	fw_args(av, (int)ARRAY_SIZE(av), "record", "-u", "--stop-at",
		"ptt_stop_here", "-o", out, "--", fw_self, "stopper", NULL);
	rc = fw_run(av, err);
	fw_show(err, "record: ");
	REQUIRE(rc == 0, "record --stop-at exited %d", rc);
	CHECK(fw_grep(err, "the trace stopped at ptt_stop_here on cpu"),
	      "the recorder did not say the trace stopped");
	snprintf(path, sizeof(path), "%s/sideband.txt", out);
	f = fopen(path, "r");
	REQUIRE(f, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "stop_at=ptt_stop_here %llx %llx",
			   &stop_start, &stop_end) == 2)
			continue;
		if (sscanf(line, "stop_at.cpu=%d", &cpu) == 1)
			continue;
	}
	fclose(f);
	CHECK(fw_grep(path, "exit_status=0"), "the command did not run to its end");
	REQUIRE(stop_start && stop_end >= stop_start, "no stop_at= range in the sideband");
	REQUIRE(cpu >= 0, "no stop_at.cpu= in the sideband");
	fprintf(stderr, "PTT-INFO stop range %#llx-%#llx, stopped on cpu %d\n",
		stop_start, stop_end, cpu);
	snprintf(path, sizeof(path), "%s/cpu%d.pt", out, cpu);
	n = fw_size(path);
	REQUIRE(n > 0, "%s is empty", path);
	buf = malloc((size_t)n);
	f = fopen(path, "r");
	REQUIRE(buf && f && fread(buf, 1, (size_t)n, f) == (size_t)n, "read %s", path);
	fclose(f);
	check_end(buf, (size_t)n);
	free(buf);
	if (!ptt_failures &&
	    system("rm -rf /tmp/follow_stopat /tmp/follow_stopat.err"))
		fprintf(stderr, "cleanup failed\n");
	return ptt_done();
}
