// SPDX-License-Identifier: GPL-2.0
/*
 * The traced program of tests/vm/exact_filter.sh, exact_cr3.sh,
 * exact_disretc.sh and exact_stream.sh, built without libc
 * (scripts/mkinitramfs.sh: exact_nolibc* static with -nostdlib), so the
 * exact model steps a few thousand instructions of its own, not libc's
 * start-up, and the tests stay short.  Each round has a jump table,
 * recursion (RETs to compress), calls through function pointers, and
 * in_hot(), the tests' IP filter range: main enters it by direct and
 * indirect calls and leaves it by its returns; inside, a loop of
 * conditional branches leaves it and comes back by calls to two
 * functions outside.  stop_here() is the TraceStop target: main calls it
 * after the rounds, and work follows that a stopped trace must not show.
 * argv[1]: the number of rounds (default 1); argv[2]: the calls through
 * function pointers in each (default 20; many make a dense trace);
 * argv[3]: milliseconds to sleep between rounds (default 0).  The last
 * line written is "exact_nolibc SUM".
 */
#include "workload.h"
#include "nolibc.h"	/* _start, atou() */

static unsigned long __attribute__((noipa)) out_leaf(unsigned long x)
{
	return x * 3 + 1;
}

static unsigned long __attribute__((noipa)) in_leaf(unsigned long x)
{
	return x ^ (x >> 2);
}

static unsigned long __attribute__((noipa)) in_hot(unsigned int n)
{
	unsigned long v = sink;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (v & 1)
			v = out_leaf(v);	/* leaves the range, comes back */
		else
			v = in_leaf(v);		/* the same, another way */
	}
	return v;
}

static unsigned long (*const hot_ptr)(unsigned int) = in_hot;

static void __attribute__((noipa)) stop_here(void)
{
	sink++;
}

static void __attribute__((noipa)) one_round(unsigned int calls)
{
	unsigned int i;

	for (i = 0; i < 40; i++)
		sink += table(i);
	sink += fib(10);
	for (i = 0; i < calls; i++)
		sink = ops[(sink >> 3) & 1](sink);
	for (i = 0; i < 20; i++) {
		sink += in_hot(i & 7);		/* a direct call into it */
		sink = out_leaf(sink);
		sink += hot_ptr(3);		/* an indirect call into it */
	}
}

/* Called by _start only; it never returns. */
void start_c(unsigned long *sp)
{
	char **argv = (char **)(sp + 1);
	unsigned int i, rounds = sp[0] > 1 ? atou(argv[1]) : 1;
	unsigned int calls = sp[0] > 2 ? atou(argv[2]) : 20;
	long pause[2] = { 0, sp[0] > 3 ? atou(argv[3]) * 1000000L : 0 };

	for (i = 0; i < rounds; i++) {
		if (i && pause[1])
			sys3(35, (long)pause, 0, 0);	/* nanosleep */
		one_round(calls);
	}
	stop_here();
	for (i = 0; i < 50; i++)	/* a stopped trace shows none of it */
		sink = out_leaf(sink);
	exit_saying("exact_nolibc ", sink);
}
