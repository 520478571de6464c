// SPDX-License-Identifier: GPL-2.0
/*
 * The traced program of tests/vm/follow_balance.sh, built without libc
 * (scripts/mkinitramfs.sh: follow_nolibc* static with -nostdlib) so the
 * exact model steps its work only: three busy threads (main and two
 * raw clone()s) on the VM's two CPUs, none of which ever blocks or sets
 * its affinity, so any move of one between CPUs is the scheduler's own
 * load balancing, which takes the thread where it was preempted.  Each
 * thread works in chunks (calls and a jump table), then reads argv[3]
 * KiB (default 1024) of /dev/zero, busy in the kernel where it is not
 * stepped (fewer stepped instructions, so a shorter truth and decode,
 * for the same wall time the balancer needs), then asks getcpu(); the
 * program ends once the threads together have seen argv[2] moves
 * (default 3) or after argv[1] ms (default 8000), and writes
 * "follow_nolibc_balance MOVES" last.
 */
#include "workload.h"
#include "nolibc.h"	/* _start, atou() */
#include "nolibc_thread.h"	/* ptt_clone(), futex_wait() */

#define NR_CLONES 2

static unsigned long wsink[3][8];	/* a cache line per thread */
static unsigned int moves, want_moves;
static long deadline_ns;
static int tids[NR_CLONES];
static unsigned long stacks[NR_CLONES][2048];
static int zero_fd;
static unsigned long burn_bytes;
static char burn_buf[3][1 << 20];

static long now_ns(void)
{
	long ts[2];

	sys3(228, 1, (long)ts, 0);	/* clock_gettime(CLOCK_MONOTONIC) */
	return ts[0] * 1000000000L + ts[1];
}

static unsigned int cpu_now(void)
{
	unsigned int cpu = 0;

	sys3(309, (long)&cpu, 0, 0);	/* getcpu */
	return cpu;
}

static void __attribute__((noipa)) work(long me)
{
	unsigned int i, cpu, last = cpu_now();

	do {
		for (i = 0; i < 12; i++)
			wsink[me][0] += table(i + (unsigned int)wsink[me][0]);
		wsink[me][0] = ops[wsink[me][0] & 1](wsink[me][0]);
		/* busy in the kernel, not stepped: fewer instructions a second */
		if (burn_bytes)
			sys3(0, zero_fd, (long)burn_buf[me], burn_bytes);
		cpu = cpu_now();
		if (cpu != last)
			__atomic_fetch_add(&moves, 1, __ATOMIC_RELAXED);
		last = cpu;
	} while (__atomic_load_n(&moves, __ATOMIC_RELAXED) < want_moves &&
		 now_ns() < deadline_ns);
}

/* Called by _start only; it never returns. */
void start_c(unsigned long *sp)
{
	char **argv = (char **)(sp + 1);
	long ms = sp[0] > 1 ? atou(argv[1]) : 8000;
	int t;
	long i;

	want_moves = sp[0] > 2 ? atou(argv[2]) : 3;
	burn_bytes = (sp[0] > 3 ? atou(argv[3]) : 1024) * 1024UL;
	if (burn_bytes > sizeof(burn_buf[0]))
		burn_bytes = sizeof(burn_buf[0]);
	zero_fd = (int)sys3(2, (long)"/dev/zero", 0, 0);	/* open */
	deadline_ns = now_ns() + ms * 1000000L;
	for (i = 0; i < NR_CLONES; i++) {
		void **top = (void **)((unsigned long)&stacks[i][2048] & ~15UL) - 2;

		top[0] = (void *)work;
		top[1] = (void *)(i + 1);
		if (ptt_clone(THREAD_FLAGS, top, &tids[i]) < 0)
			sys3(231, 2, 0, 0);	/* exit_group(2) */
	}
	work(0);
	for (i = 0; i < NR_CLONES; i++)
		while ((t = __atomic_load_n(&tids[i], __ATOMIC_ACQUIRE)))
			futex_wait(&tids[i], t);
	exit_saying("follow_nolibc_balance ", moves);
}
