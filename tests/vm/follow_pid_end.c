// SPDX-License-Identifier: GPL-2.0
/*
 * ptt-timeout: 60
 * 'record -u -p PID' ends by itself, as perf record -p does, once the
 * process and (inherit) what it forked have all exited, with status 0 and
 * a recording as at Ctrl-C.  The process (this test as "tree") is held
 * (SIGSTOP) until sideband.txt shows the trace started, then forks a
 * child that works 0.5 s and exits itself after 0.1 s: the recorder must
 * outlive the process while the child runs (this test is the child
 * subreaper, so it sees both exits and the recorder's in order), end by
 * itself within seconds of the child's exit, and leave trace data whose
 * packets decode without error ('dump --stats'), and sideband.perf with
 * both exits; the summary names the child by its comm (its parent's).
 * Icl only: the recorder's end is profile-independent.
 */
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <linux/perf_event.h>

#include "follow_record.h"

#define OUT "/tmp/follow_pid_end"

/* The traced process: held, then a child that outlives it. */
static void fpe_tree(void)
{
	pid_t child;

	raise(SIGSTOP);
	child = fork();
	if (child == 0) {
		fw_work(0.5);
		_exit(0);
	}
	fw_work(0.1);
	exit(child > 0 ? 0 : 1);
}

/* 'dump --stats' of DIR/cpuN.pt: its error count (-1: no stats). */
static long fpe_dump_errors(int cpu, long *packets)
{
	char cmd[512], line[256];
	long errors = -1;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "%s dump --stats %s/rec/cpu%d.pt 2>&1",
		 fw_pt(), OUT, cpu);
	f = popen(cmd, "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "packets: ", 9))
			*packets = strtol(line + 9, NULL, 10);
		if (!strncmp(line, "errors: ", 8))
			errors = strtol(line + 8, NULL, 10);
	}
	if (f && pclose(f))
		errors = -1;
	return errors;
}

/* The recording's trace files: bytes in all, each decoding cleanly. */
static void fpe_check_trace(void)
{
	long long bytes = 0;
	char path[256];
	int cpu;

	for (cpu = 0; cpu < 64; cpu++) {
		long packets = 0, errors;
		long long n;

		snprintf(path, sizeof(path), "%s/rec/cpu%d.pt", OUT, cpu);
		n = fw_size(path);
		if (n <= 0)
			continue;
		bytes += n;
		errors = fpe_dump_errors(cpu, &packets);
		fprintf(stderr, "PTT-INFO cpu%d.pt: %lld bytes, %ld packets, %ld errors\n",
			cpu, n, packets, errors);
		CHECK(packets > 0 && errors == 0,
		      "cpu%d.pt: %ld packets, %ld decode errors (dump --stats)",
		      cpu, packets, errors);
	}
	CHECK(bytes > 0, "no trace of process and child in %s/rec", OUT);
}

/* sideband.perf: an exit record of each task. */
static void fpe_check_exits(pid_t proc, pid_t child)
{
	int rc, seen_proc = 0, seen_child = 0;
	struct ptpsb_event ev;
	struct ptpsb_file f;
	char path[256];
	size_t pos = 0;

	snprintf(path, sizeof(path), "%s/rec/%s", OUT, PTPSB_FILE_NAME);
	rc = ptpsb_load(path, &f);
	REQUIRE(rc == 0, "%s: %s", path, strerror(-rc));
	while (ptpsb_next(&f, &pos, &ev) == 1) {
		if (ev.type != PERF_RECORD_EXIT)
			continue;
		seen_proc |= ev.btid == (__u32)proc;
		seen_child |= ev.btid == (__u32)child;
	}
	ptpsb_free(&f);
	CHECK(seen_proc, "sideband.perf has no exit of the process %d",
	      (int)proc);
	CHECK(seen_child, "sideband.perf has no exit of its child %d",
	      (int)child);
}

int main(int argc, char **argv)
{
	const char *err = OUT "/rec.err";
	pid_t proc, rec, w, child = 0;
	int st, rec_st = -1, proc_done = 0, child_done = 0, started;
	const char *prof = getenv("PTT_PROFILE");
	char pidarg[16], *av[16];
	double t_last = 0, t_rec = 0, end;

	if (argc >= 2 && !strcmp(argv[1], "tree"))
		fpe_tree();
	fw_child_modes(argc, argv);
	if (prof && strcmp(prof, "icl"))
		SKIP("the recorder's end is profile-independent: icl only");
	REQUIRE(!prctl(PR_SET_CHILD_SUBREAPER, 1), "PR_SET_CHILD_SUBREAPER: %s",
		strerror(errno));
	REQUIRE(!system("rm -rf " OUT " && mkdir -p " OUT), "mkdir %s", OUT);

	proc = fork();
	if (proc == 0) {
		execl(fw_self, fw_self, "tree", (char *)NULL);
		_exit(127);
	}
	REQUIRE(proc > 0 && waitpid(proc, &st, WUNTRACED) == proc &&
		WIFSTOPPED(st), "the process did not stop before its work");
	snprintf(pidarg, sizeof(pidarg), "%d", (int)proc);
	fw_args(av, (int)ARRAY_SIZE(av), "record", "-u", "-p", pidarg, "-o",
		OUT "/rec", NULL);
	rec = fw_start(av, err);
	REQUIRE(rec > 0, "fork: %s", strerror(errno));
	/* The header is written just before START, flushed just after. */
	started = fw_wait_grep(OUT "/rec/sideband.txt", "buffer_size=", rec,
			       30);
	kill(proc, SIGCONT);
	if (!started) {
		kill(proc, SIGKILL);
		kill(rec, SIGINT);
		waitpid(rec, NULL, 0);
		fw_show(err, "record: ");
		REQUIRE(0, "the recorder did not start tracing (no buffer_size= in sideband.txt)");
	}

	/* Every exit in order, until the recorder's (20 s at most). */
	end = fw_now() + 20;
	while (fw_now() < end) {
		w = waitpid(-1, &st, WNOHANG);
		if (w == 0) {
			usleep(2000);
			continue;
		}
		if (w < 0)
			break;
		if (w == rec) {
			rec_st = fw_status(st);
			t_rec = fw_now();
			break;
		}
		if (w == proc) {
			proc_done = 1;
		} else {
			child = w;
			child_done = 1;
		}
		t_last = fw_now();
	}
	if (rec_st < 0) {
		kill(rec, SIGINT);
		waitpid(rec, &st, 0);
		fw_show(err, "record: ");
		REQUIRE(0, "record -p %d did not end within 20 s (the process %s, its child %s)",
			(int)proc, proc_done ? "exited" : "still ran",
			child_done ? "exited" : "still ran");
	}
	fw_show(err, "record: ");
	/* Anything left (there should be nothing): reaped. */
	while (!(proc_done && child_done) && (w = waitpid(-1, &st, 0)) > 0) {
		if (w == proc) {
			proc_done = 2;
		} else {
			child_done = 2;
			child = w;
		}
	}
	REQUIRE(proc_done == 1 && child_done == 1,
		"the recorder ended while the %s still ran",
		proc_done == 1 ? "process's child" : "process");
	fprintf(stderr, "PTT-INFO the recorder ended %.0f ms after the last exit\n",
		(t_rec - t_last) * 1e3);
	CHECK(rec_st == 0, "record -p exited %d", rec_st);
	CHECK(fw_grep(err, "the recording ends"),
	      "the recorder did not say why it ended");
	/* The child is named as its parent (it did not exec), not "?". */
	snprintf(pidarg, sizeof(pidarg), "%d (", (int)child);
	CHECK(fw_grep(err, pidarg) && !fw_grep(err, "(?)"),
	      "the summary's tasks: line does not name the child %d by its comm",
	      (int)child);
	fpe_check_trace();
	fpe_check_exits(proc, child);
	if (!ptt_failures && system("rm -rf " OUT))
		fprintf(stderr, "cleanup failed\n");
	return ptt_done();
}
