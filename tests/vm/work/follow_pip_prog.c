// SPDX-License-Identifier: GPL-2.0
/*
 * The traced program of tests/vm/follow_pip.sh: it forks, and parent and
 * child take turns on CPU 0 (each spins about a millisecond, then yields)
 * for 200 ms, so the CPU switches between two address spaces again and
 * again.  'spin SECONDS' only spins on CPU 0, as the process beside them
 * that is not followed.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* global, and each clock read is a call: the loop stays */
unsigned long sink;

static void turns(double seconds, double slice)
{
	double end = now() + seconds, next;

	while (now() < end) {
		next = now() + slice;
		while (now() < next)
			sink++;
		if (slice < seconds)
			sched_yield();
	}
}

int main(int argc, char **argv)
{
	cpu_set_t cpu0;
	pid_t child;
	int st;

	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	if (sched_setaffinity(0, sizeof(cpu0), &cpu0))
		return 2;
	if (argc == 3 && !strcmp(argv[1], "spin")) {
		turns(atof(argv[2]), atof(argv[2]));
		return 0;
	}
	child = fork();
	if (child < 0)
		return 2;
	turns(0.2, 0.001);
	if (!child)
		return 0;
	if (waitpid(child, &st, 0) != child || !WIFEXITED(st) ||
	    WEXITSTATUS(st))
		return 1;
	printf("follow_pip_prog %d %d\n", (int)getpid(), (int)child);
	return 0;
}
