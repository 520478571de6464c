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
 * Then a shared library's function: 'record -u --stop-at random_r --
 * PROG randomr', which calls libc's random_r in a loop: libc is not
 * mapped at PROG's exec stop, so the recorder follows the loader's
 * start-up (ptrace, syscall stops) until it maps libc, finds the
 * function there (stop_at= names that file), starts tracing, and the
 * trace of the CPU it names ends the same way, inside random_r; PROG
 * runs to its end.  A function in no file mapped at start fails with
 * the message that says so, PROG killed.  Last 'record -p PID
 * --stop-at random_r -u' of a child (forked, not exec'd) doing the
 * same: found in the libc the process has mapped, the trace ends there.
 * Skips on profiles without address ranges.
 */
#include <signal.h>
#include <stdlib.h>
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

/*
 * The recording in @out (stderr in @err) stopped at @sym: the stopped
 * CPU's trace ends inside the function's range, which lies in a file
 * whose path contains @file.
 */
static void check_recording(const char *out, const char *err,
			    const char *sym, const char *file)
{
	char path[256], line[512], fmt[64], where[256] = "";
	int cpu = -1;
	__u8 *buf;
	long long n;
	FILE *f;

	snprintf(line, sizeof(line), "the trace stopped at %s on cpu", sym);
	CHECK(fw_grep(err, line), "the recorder did not say the trace stopped");
	snprintf(path, sizeof(path), "%s/sideband.txt", out);
	f = fopen(path, "r");
	REQUIRE(f, "%s: %s", path, strerror(errno));
	snprintf(fmt, sizeof(fmt), "stop_at=%s %%llx %%llx %%255s", sym);
	stop_start = 0;
	stop_end = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, fmt, &stop_start, &stop_end, where) == 3)
			continue;
		if (sscanf(line, "stop_at.cpu=%d", &cpu) == 1)
			continue;
	}
	fclose(f);
	REQUIRE(stop_start && stop_end >= stop_start, "no stop_at= range in the sideband");
	CHECK(strstr(where, file), "%s was found in %s, not in %s", sym,
	      where, file);
	REQUIRE(cpu >= 0, "no stop_at.cpu= in the sideband");
	fprintf(stderr, "PTT-INFO %s: stop range %#llx-%#llx in %s, stopped on cpu %d\n",
		sym, stop_start, stop_end, where, cpu);
	snprintf(path, sizeof(path), "%s/cpu%d.pt", out, cpu);
	n = fw_size(path);
	REQUIRE(n > 0, "%s is empty", path);
	buf = malloc((size_t)n);
	f = fopen(path, "r");
	REQUIRE(buf && f && fread(buf, 1, (size_t)n, f) == (size_t)n, "read %s", path);
	fclose(f);
	check_end(buf, (size_t)n);
	free(buf);
}

/* The model's count of trace bytes written, on every CPU. */
#define MODEL_WRITTEN	"/sys/kernel/debug/pt_trace/model/bytes_written"

static int model_wrote(const void *arg)
{
	return ptt_read_ll(MODEL_WRITTEN) > *(const long long *)arg;
}

static int go_random;

static void on_usr1(int sig)
{
	(void)sig;
	__atomic_store_n(&go_random, 1, __ATOMIC_RELAXED);
}

/*
 * -p's target: a child that works in its own code until SIGUSR1 (so
 * the trace is on when the stop comes, and TIP.PGD names the IP), then
 * calls libc's random_r in a loop (most of its time inside it, where
 * the sampled model's tick sees it), for at most 30 s in all.
 */
static pid_t start_random_r(void)
{
	pid_t pid;

	signal(SIGUSR1, on_usr1);
	pid = fork();
	if (pid == 0) {
		double end = fw_now() + 30;

		while (!__atomic_load_n(&go_random, __ATOMIC_RELAXED) &&
		       fw_now() < end)
			fw_work(0.001);
		fw_random_r(end - fw_now(), NULL);
		_exit(0);
	}
	return pid;
}

int main(int argc, char **argv)
{
	const char *out = "/tmp/follow_stopat", *err = "/tmp/follow_stopat.err";
	const char *out_cmdlib = "/tmp/follow_stopat_cmdlib";
	const char *err_cmdlib = "/tmp/follow_stopat_cmdlib.err";
	const char *out_lib = "/tmp/follow_stopat_lib";
	const char *err_lib = "/tmp/follow_stopat_lib.err";
	char path[256], pidarg[16], *av[20];
	long long written0;
	pid_t child, rec;
	int rc, st;

	if (argc >= 2 && !strcmp(argv[1], "stopper")) {
		struct itimerval it = { .it_value = { .tv_usec = 300000 } };

		fw_work(0.2);
		signal(SIGALRM, on_alarm);
		setitimer(ITIMER_REAL, &it, NULL);
		ptt_stop_here();
		fw_work(0.3);	/* traced code that must not be in the trace */
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "randomr")) {
		fw_work(0.2);	/* the trace on, in PROG's code */
		fw_random_r(0.5, NULL);
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
	snprintf(path, sizeof(path), "%s/sideband.txt", out);
	CHECK(fw_grep(path, "exit_status=0"), "the command did not run to its end");
	check_recording(out, err, "ptt_stop_here", fw_self);

	/*
	 * A function of a library COMMAND's loader maps at start (libc):
	 * found there, the trace started before it runs, and stopped in it.
	 */
	fw_args(av, (int)ARRAY_SIZE(av), "record", "-u", "--stop-at",
		"random_r", "-o", out_cmdlib, "--", fw_self, "randomr", NULL);
	rc = fw_run(av, err_cmdlib);
	fw_show(err_cmdlib, "record (lib): ");
	REQUIRE(rc == 0, "record --stop-at random_r -- PROG exited %d", rc);
	CHECK(fw_grep(err_cmdlib, "loader mapped at start: tracing starts there"),
	      "the recorder did not say it found random_r as the loader mapped it");
	snprintf(path, sizeof(path), "%s/sideband.txt", out_cmdlib);
	CHECK(fw_grep(path, "exit_status=0"), "the command did not run to its end");
	check_recording(out_cmdlib, err_cmdlib, "random_r", "libc");

	/* In no file mapped at start: a usage error, which says so. */
	fw_args(av, (int)ARRAY_SIZE(av), "record", "-u", "--stop-at",
		"ptt_no_such_function", "-o", out_cmdlib, "--", fw_self,
		"stopper", NULL);
	rc = fw_run(av, err_cmdlib);
	fw_show(err_cmdlib, "record (none): ");
	CHECK(rc == 1, "record --stop-at ptt_no_such_function exited %d, not 1", rc);
	CHECK(fw_grep(err_cmdlib, "the libraries its loader mapped at start"),
	      "the recorder did not say where it looked for the function");

	/* A shared library's function, in a process traced by -p. */
	child = start_random_r();
	REQUIRE(child > 0, "fork: %s", strerror(errno));
	snprintf(pidarg, sizeof(pidarg), "%d", (int)child);
	fw_args(av, (int)ARRAY_SIZE(av), "record", "-u", "-p", pidarg,
		"--stop-at", "random_r", "-d", "20", "-o", out_lib, NULL);
	written0 = ptt_read_ll(MODEL_WRITTEN);
	rec = fw_start(av, err_lib);
	REQUIRE(rec > 0, "fork: %s", strerror(errno));
	/*
	 * Resolved, then started: wait until the trace is on before the
	 * child enters random_r.  Nothing else traces here, so the model
	 * writing a byte (a followed task's enable) means the recorder
	 * traces the child.  Polled, however slow the guest (without the
	 * model's counter, a fixed wait).
	 */
	if (fw_wait_grep(err_lib, "stop at random_r:", rec, 20)) {
		if (written0 < 0)
			usleep(300000);
		else
			CHECK(fw_poll(rec, 15, 5000, model_wrote, &written0),
			      "no trace byte from the recorder within 15 s of 'stop at random_r:' (or it exited)");
	}
	kill(child, SIGUSR1);
	rc = waitpid(rec, &st, 0) == rec ? fw_status(st) : -1;
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	fw_show(err_lib, "record -p: ");
	REQUIRE(rc == 0, "record -p --stop-at random_r exited %d", rc);
	check_recording(out_lib, err_lib, "random_r", "libc");
	if (!ptt_failures &&
	    system("rm -rf /tmp/follow_stopat /tmp/follow_stopat*.err /tmp/follow_stopat_*lib"))
		fprintf(stderr, "cleanup failed\n");
	return ptt_done();
}
