// SPDX-License-Identifier: GPL-2.0
/*
 * exact_threads without libc (scripts/mkinitramfs.sh: exact_nolibc*
 * static with -nostdlib), the program tests/vm/exact_threads.sh traces
 * on the debug kernel, where exact_threads (static libc, pthreads) took
 * 40-50 s: the same two threads (main and a raw clone()), each pinned
 * first to its own CPU (main on 0, the other on 1) and then to the
 * other one, so each runs on both CPUs and
 * migrates inside sched_setaffinity(); each does a little work (the
 * calls of workload.h's step()) on both.  Writes "exact_nolibc_threads
 * 0" last (exit 1 if a pin failed).
 */
#include "workload.h"
#include "nolibc.h"	/* _start, sys3() */
#include "nolibc_thread.h"	/* ptt_clone(), futex_wait() */

static unsigned long sinks[2];	/* global: the loops' stores stay */
static unsigned long stack[2048];
static int tid;
static long failed;

static void __attribute__((noipa)) work(int who, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		sinks[who] = step(sinks[who], i);
}

static long pin(int cpu)
{
	unsigned long set = 1UL << cpu;

	return sys3(203, 0, sizeof(set), (long)&set);	/* sched_setaffinity */
}

static void __attribute__((noipa)) other(long arg)
{
	(void)arg;
	if (pin(1))
		failed = 1;
	work(1, 50);
	if (pin(0))
		failed = 1;
	work(1, 25);
}

/* Called by _start only; it never returns. */
void start_c(unsigned long *sp)
{
	void **top = (void **)((unsigned long)&stack[2048] & ~15UL) - 2;
	int t;

	(void)sp;
	if (pin(0))
		sys3(231, 1, 0, 0);	/* exit_group(1) */
	top[0] = (void *)other;
	top[1] = (void *)0L;
	if (ptt_clone(THREAD_FLAGS, top, &tid) < 0)
		sys3(231, 1, 0, 0);
	work(0, 50);
	if (pin(1))
		failed = 1;
	work(0, 25);
	while ((t = __atomic_load_n(&tid, __ATOMIC_ACQUIRE)))
		futex_wait(&tid, t);
	if (failed)
		sys3(231, 1, 0, 0);
	exit_saying("exact_nolibc_threads ", 0);
}
