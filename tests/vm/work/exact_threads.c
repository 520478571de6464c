// SPDX-License-Identifier: GPL-2.0
/*
 * The traced program of tests/vm/exact_threads.sh, linked statically
 * (scripts/mkinitramfs.sh): two threads, each pinned first to its own
 * CPU (main on 0, the other on 1) and then to the other one, so each
 * runs on both CPUs and migrates inside sched_setaffinity(); each does
 * a little work (loops, calls, a jump table) on both.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include "workload.h"

unsigned long sinks[2];	/* global: the loops' stores stay */

static void __attribute__((noipa)) work(int who, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		sinks[who] = step(sinks[who], i);
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static void *other(void *arg)
{
	(void)arg;
	if (pin(1))
		return arg;
	work(1, 50);
	if (pin(0))
		return arg;
	work(1, 25);
	return NULL;
}

int main(void)
{
	pthread_t t;
	void *ret;

	if (pin(0) || pthread_create(&t, NULL, other, NULL))
		return 1;
	work(0, 50);
	if (pin(1))
		return 1;
	work(0, 25);
	if (pthread_join(t, &ret) || ret)
		return 1;
	/* write(), not stdio: fewer instructions to step and decode. */
	return write(1, "exact_threads done\n", 19) != 19;
}
