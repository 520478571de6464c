// SPDX-License-Identifier: GPL-2.0
/*
 * Run one test with a time limit, in a process group of its own, and end
 * the whole group, not just the test.  busybox timeout kills only the
 * program it started: a child of the test still blocked (in a read of
 * /dev/ptN, a sleep, a traced workload) keeps the runner's output pipe
 * open, and the runner then waits for EOF until the VM's outer timeout
 * ends the run with no results at all.
 *
 * Usage: ptt-run SECONDS PROGRAM [ARG...]
 * The test runs in a new session (setsid(), so its process group is its
 * pid); this program is a child subreaper, so the test's orphans stay its
 * children and are reaped here.  When the test exits, whatever it left in
 * its group is killed (SIGKILL).  After SECONDS, the group gets SIGTERM,
 * then SIGKILL after a grace period, and one line on stderr says so.
 * Exits with the test's status (128 + signal if it was killed by one),
 * 124 on timeout (as timeout(1) does), 125 if the test could not start.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* How long a group has to exit after SIGTERM, and after SIGKILL. */
#define GRACE_TERM_MS 2000
#define GRACE_KILL_MS 3000

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/*
 * Reap children until DEADLINE (ms, CLOCK_MONOTONIC) or until the group
 * PGID is empty (when DONE_ON_EMPTY) or the leader LEADER is reaped
 * (status in *STATUS).  Returns 1 when the awaited event happened.
 */
static int reap_until(pid_t leader, pid_t pgid, int *status, long long deadline,
		      int done_on_empty, const sigset_t *chld)
{
	for (;;) {
		struct timespec ts;
		long long left;
		pid_t pid;
		int st;

		int got = 0;

		while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
			if (pid == leader) {
				*status = st;
				got = 1;
			}
		}
		if (got && !done_on_empty)
			return 1;
		/* ESRCH: no process (not even a zombie) left in the group. */
		if (done_on_empty && kill(-pgid, 0) < 0 && errno == ESRCH)
			return 1;
		left = deadline - now_ms();
		if (left <= 0)
			return 0;
		/* Woken by SIGCHLD, or every 100 ms for an unreaped zombie. */
		if (left > 100)
			left = 100;
		ts.tv_sec = left / 1000;
		ts.tv_nsec = (left % 1000) * 1000000;
		sigtimedwait(chld, NULL, &ts);
	}
}

static int exit_code(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return 125;
}

int main(int argc, char **argv)
{
	int status = -1, secs;
	sigset_t chld;
	pid_t pid;
	char *end;

	if (argc >= 3)
		secs = strtol(argv[1], &end, 10);
	if (argc < 3 || secs <= 0 || *end) {
		fprintf(stderr, "usage: %s SECONDS PROGRAM [ARG...]\n", argv[0]);
		return 125;
	}
	/* SIGCHLD blocked: sigtimedwait() takes it, none is lost. */
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		perror("ptt-run: PR_SET_CHILD_SUBREAPER");
	pid = fork();
	if (pid < 0) {
		perror("ptt-run: fork");
		return 125;
	}
	if (pid == 0) {
		sigprocmask(SIG_UNBLOCK, &chld, NULL);
		setsid();
		execvp(argv[2], argv + 2);
		fprintf(stderr, "ptt-run: cannot run %s: %s\n", argv[2], strerror(errno));
		_exit(125);
	}
	/* The child's setsid() made its pid the group id; be sure of it. */
	setpgid(pid, pid);

	if (reap_until(pid, pid, &status, now_ms() + secs * 1000LL, 0, &chld)) {
		/* The test ended: what it left behind goes too. */
		if (kill(-pid, SIGKILL) == 0)
			fprintf(stderr, "ptt-run: %s left processes behind: killed them\n",
				argv[2]);
		reap_until(pid, pid, &status, now_ms() + GRACE_KILL_MS, 1, &chld);
		return exit_code(status);
	}

	kill(-pid, SIGTERM);
	if (!reap_until(pid, pid, &status, now_ms() + GRACE_TERM_MS, 1, &chld)) {
		kill(-pid, SIGKILL);
		if (!reap_until(pid, pid, &status, now_ms() + GRACE_KILL_MS, 1, &chld))
			fprintf(stderr, "ptt-run: group %d survives SIGKILL (stuck?)\n",
				pid);
	}
	fprintf(stderr, "ptt-run: %s timed out after %d s: killed its process group\n",
		argv[2], secs);
	return 124;
}
