// SPDX-License-Identifier: GPL-2.0
/*
 * Fork and exec under PT_TRACE_IOC_FOLLOW, with and without
 * PT_FOLLOW_INHERIT, on both CPUs: a followed process, released after
 * START, spins, forks a child that execs this program again (two
 * threads spinning 600 ms), and spins until the child is gone.  With
 * INHERIT the child joins the set before it runs: the witness sees both
 * processes traced only, and GET_FOLLOW counts two joins and, once both
 * exited, two leaves and an empty set.  Without, the child is never
 * traced (the witness sees it untraced) and only one process joins.
 * An unfollowed spinner runs beside on both CPUs.
 */
#include "follow_common.h"

/* The followed process: fork + exec, report the child on pipe *@arg. */
static void parent(void *arg)
{
	int report = *(int *)arg;
	char spin[16];
	pid_t child;

	child = fork();
	if (!child) {
		snprintf(spin, sizeof(spin), "%d", 600);
		execl("/proc/self/exe", "follow_fork", "spin", spin, NULL);
		_exit(2);
	}
	if (write(report, &child, sizeof(child)) != sizeof(child))
		_exit(1);
	fc_spin_for((void *)300L);
	waitpid(child, NULL, 0);
}

static void phase(__u32 flags)
{
	const char *what = flags ? "inherit" : "no inherit";
	struct fc_row rows[FC_MAX_ROWS];
	unsigned long long traced[FC_NCPU];
	struct pt_trace_follow_status fs;
	int fd[FC_NCPU], go, rep[2], cpu, n, st;
	pid_t par, child = 0, other;

	other = fc_spinner(0x3, NULL);
	REQUIRE(!pipe(rep), "pipe");
	par = fc_child(parent, &rep[1], &go);
	fc_start_all(fd, PT_MODE_FLIGHT, 1 << 20, par, flags);
	fc_witness_start();
	fc_go(go);
	REQUIRE(read(rep[0], &child, sizeof(child)) == sizeof(child),
		"child pid");
	fc_sleep_ms(700);
	n = fc_witness_stop(rows);
	REQUIRE(waitpid(par, &st, 0) == par && WIFEXITED(st) &&
		!WEXITSTATUS(st), "the followed process failed: %#x", st);
	fs = fc_status(fd[0]);
	fprintf(stderr, "PTT-INFO %s: joined %llu left %llu processes %llu state %#x\n",
		what, (unsigned long long)fs.joined,
		(unsigned long long)fs.left,
		(unsigned long long)fs.processes, fs.state);
	if (flags) {
		fc_judge(what, rows, n, (int[]){ par, child, 0 },
			 (int[]){ other, 0 }, traced);
		CHECK(fs.joined == 2 && fs.left == 2 && !fs.processes &&
		      (fs.state & PT_FOLLOW_EMPTY) && !fs.join_failures,
		      "%s: GET_FOLLOW after both exited", what);
	} else {
		fc_judge(what, rows, n, (int[]){ par, 0 },
			 (int[]){ other, child, 0 }, traced);
		CHECK(fs.joined == 1 && fs.left == 1 && !fs.processes &&
		      (fs.state & PT_FOLLOW_EMPTY),
		      "%s: GET_FOLLOW after the process exited", what);
	}
	for (cpu = 0; cpu < FC_NCPU; cpu++) {
		CHECK(!ioctl(fd[cpu], PT_TRACE_IOC_STOP), "STOP");
		close(fd[cpu]);
	}
	fc_kill(other);
	close(rep[0]);
	close(rep[1]);
}

int main(int argc, char **argv)
{
	fc_spin_main(argc, argv);
	fc_icl_only();
	phase(PT_FOLLOW_INHERIT);
	phase(0);
	return ptt_done();
}
