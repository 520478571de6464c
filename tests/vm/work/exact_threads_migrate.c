// SPDX-License-Identifier: GPL-2.0
/*
 * The traced program of tests/vm/exact_migrate.sh, linked statically
 * (scripts/mkinitramfs.sh, as exact_threads): a worker thread works (a
 * loop of calls and a jump table, no system call) while the main thread
 * moves it from CPU to CPU (sched_setaffinity on its tid) every
 * millisecond, so the worker migrates wherever it is in its user code,
 * preempted by the move, not at a system call of its own as in
 * exact_threads.  The main thread sleeps between moves, through raw
 * system calls (few instructions to step), and ends once the worker is
 * done.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

static long worker_tid;
static int done;

/*
 * At least 200 rounds, and on until the worker itself saw its CPU change
 * 3 times inside the loop (the test wants 4 stretches).  Counting the
 * main thread's successful moves is not enough: a move only changes the
 * allowed CPUs, and on a loaded host the next one can come before the
 * worker ran where the last one sent it (CI saw 2 stretches after 4
 * moves).  sched_getcpu() reads the rseq area glibc registers (or the
 * vDSO): no system call, a few instructions to step.  A bound keeps a
 * broken migration from looping for ever (the test then fails on the
 * stretches).
 */
static void *worker(void *arg)
{
	unsigned int i, changes = 0;
	int cpu, last;

	__atomic_store_n(&worker_tid, syscall(SYS_gettid), __ATOMIC_RELEASE);
	last = sched_getcpu();
	for (i = 0; i < 200 || (changes < 3 && i < 20000); i++) {
		sink = step(sink, i);
		cpu = sched_getcpu();
		if (cpu != last) {
			changes++;
			last = cpu;
		}
	}
	__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
	return arg;
}

int main(void)
{
	struct timespec ts = { 0, 1000000 };
	unsigned long mask;
	pthread_t t;
	long tid;
	int cpu = 0;

	if (pthread_create(&t, NULL, worker, NULL))
		return 1;
	while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
		tid = __atomic_load_n(&worker_tid, __ATOMIC_ACQUIRE);
		mask = 1UL << cpu;
		/* ESRCH once the worker has exited: the loop ends then. */
		if (tid)
			syscall(SYS_sched_setaffinity, tid, sizeof(mask), &mask);
		cpu ^= 1;
		syscall(SYS_nanosleep, &ts, NULL);
	}
	if (pthread_join(t, NULL))
		return 1;
	/* write(), not stdio: fewer instructions to step and decode. */
	return write(1, "exact_threads_migrate done\n", 27) != 27;
}
