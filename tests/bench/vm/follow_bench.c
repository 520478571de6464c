// SPDX-License-Identifier: GPL-2.0
/*
 * Following benchmark (ratios only, nothing asserted): a pipe ping-pong
 * between two processes pinned on CPU 0, timed per context switch with
 * no tracing at all, while /dev/pt0 traces that CPU without following
 * (the baseline: the same trace, the same model generator), while it
 * follows both processes (the switch probe's lookup on every switch),
 * and while it follows only one of them (a park and a resume at every
 * switch).  Prints "follow: +N ns per context switch" against tracing
 * the CPU, and the same against no tracing (which also counts the
 * model's own work while tracing: under TCG that is the model's cost,
 * not silicon's).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/pt_trace.h>

#include "bench_common.h"
#include "ptt_test.h"

#define ROUNDS	20000

static int follow(int fd, int pid, __u32 flags)
{
	struct pt_trace_follow f = { .size = sizeof(f) };

	f.pid = pid;
	f.flags = flags;
	return ioctl(fd, PT_TRACE_IOC_FOLLOW, &f);
}

/*
 * @how: 0 trace the CPU, 1 follow both (this process, inherited by the
 * child), 2 follow the child only, 3 no tracing.  Nanoseconds per
 * switch, or -1.
 */
static double pingpong(int fd, int how)
{
	int a[2], b[2], go[2];
	double t0, t;
	pid_t child;
	char c = 0;
	int i;

	if (pipe(a) || pipe(b) || pipe(go))
		return -1;
	if (how == 1 && follow(fd, getpid(), PT_FOLLOW_INHERIT))
		return -1;
	child = fork();
	if (child < 0)
		return -1;
	if (!child) {
		/*
		 * Only the ends the child uses: with its own copy of a[1]
		 * open, the parent's close would never give it EOF.
		 */
		close(a[1]);
		close(b[0]);
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		for (;;) {
			if (read(a[0], &c, 1) != 1 || write(b[1], &c, 1) != 1)
				_exit(0);
		}
	}
	if ((how == 2 && follow(fd, child, 0)) ||
	    (how != 3 && ioctl(fd, PT_TRACE_IOC_START))) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		return -1;
	}
	if (write(go[1], &c, 1) != 1)
		return -1;
	for (i = 0; i < 100; i++)	/* warm up */
		if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
			return -1;
	t0 = now();
	for (i = 0; i < ROUNDS; i++)
		if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
			return -1;
	t = now() - t0;
	if (how != 3)
		ioctl(fd, PT_TRACE_IOC_STOP);
	close(a[1]);
	waitpid(child, NULL, 0);
	close(a[0]);
	close(b[0]);
	close(b[1]);
	close(go[0]);
	close(go[1]);
	follow(fd, 0, PT_FOLLOW_CLEAR);
	return t * 1e9 / (2.0 * ROUNDS);
}

int main(void)
{
	struct pt_trace_config c = { .size = sizeof(c) };
	double base, both, one, none;
	int fd;

	if (ptt_pin_cpu(0)) {
		printf("follow: cannot pin to CPU 0: %s\n", strerror(errno));
		return 1;
	}
	fd = ptt_open_cpu(0, O_RDWR);
	c.ctl = PT_CTL_BRANCHEN | PT_CTL_USER;
	c.buffer_size = 1 << 20;
	if (fd < 0 || ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &c)) {
		printf("follow: /dev/pt0: %s\n", strerror(errno));
		return 1;
	}
	none = pingpong(fd, 3);
	base = pingpong(fd, 0);
	both = pingpong(fd, 1);
	one = pingpong(fd, 2);
	if (none < 0 || base < 0 || both < 0 || one < 0) {
		printf("follow: the ping-pong failed: %s\n", strerror(errno));
		return 1;
	}
	printf("ping-pong on CPU 0, %d round trips, ns per switch: ", ROUNDS);
	printf("%.0f no tracing, %.0f tracing the CPU, ", none, base);
	printf("%.0f following both tasks, %.0f following one (parked and resumed each switch)\n",
	       both, one);
	printf("follow: %+.0f ns per context switch (%.2fx; one followed: %+.0f ns, %.2fx)\n",
	       both - base, both / base, one - base, one / base);
	printf("follow against no tracing: %+.0f ns per context switch ",
	       both - none);
	printf("(%.2fx; one followed: %+.0f ns, %.2fx)\n",
	       both / none, one - none, one / none);
	close(fd);
	return 0;
}
