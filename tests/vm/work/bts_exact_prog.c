// SPDX-License-Identifier: GPL-2.0
/*
 * The traced program of tests/vm/bts_exact.c, without libc (built
 * -static -nostdlib by scripts/mkinitramfs.sh), so that it is a few
 * hundred instructions: a loop, recursion, a jump table, calls through
 * function pointers and system calls.  It first moves itself to cpu0,
 * where BTS is recorded, and ends with "bts_exact_prog done".
 */
#include "workload.h"

void _start(void)
{
	static const char done[] = "bts_exact_prog done\n";
	unsigned long mask = 1, acc = 0;
	unsigned int i;

	/* sched_setaffinity(0, 8, {cpu0}): from here on it runs on cpu0. */
	sys3(203, 0, sizeof(mask), (long)&mask);
	for (i = 0; i < 16; i++) {
		sink = table(i);
		acc += ops[i & 1](sink);
	}
	sink = acc + fib(7);
	sys3(1, 1, (long)done, sizeof(done) - 1);
	sys3(60, 0, 0, 0);
	__builtin_unreachable();
}
