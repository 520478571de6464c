// SPDX-License-Identifier: GPL-2.0
/*
 * The traced program of tests/vm/bts_exact_irq.c, without libc (built
 * -static -nostdlib by scripts/mkinitramfs.sh): it moves itself to cpu0,
 * where BTS is recorded, then makes NSYS getppid() system calls, each a
 * return to user code that a timer interrupt may come right after,
 * before the next instruction; it ends with "bts_irq_prog done".
 */
#include "workload.h"

#define NSYS	20000	/* bts_exact_irq.c's too */

void _start(void)
{
	static const char done[] = "bts_irq_prog done\n";
	unsigned long mask = 1;
	unsigned int i;

	/* sched_setaffinity(0, 8, {cpu0}): from here on it runs on cpu0. */
	sys3(203, 0, sizeof(mask), (long)&mask);
	for (i = 0; i < NSYS; i++)
		sink += sys3(110, 0, 0, 0);	/* getppid */
	sys3(1, 1, (long)done, sizeof(done) - 1);
	sys3(60, 0, 0, 0);
	__builtin_unreachable();
}
