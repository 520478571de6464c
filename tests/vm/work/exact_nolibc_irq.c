// SPDX-License-Identifier: GPL-2.0
/*
 * The traced program of tests/vm/exact_irq.sh, without libc (built
 * static with -nostdlib as every exact_nolibc*), so that the stepped
 * instructions are its own: a user loop that the timer interrupts while
 * it runs, and a store into each of PAGES pages of its .bss, untouched
 * until then: one page fault each, handled and returned from.  Between
 * two pages it spins argv[1] rounds (default 20) of a few instructions.
 * Then it makes argv[2] getppid() system calls (default 0), each a
 * return to user code that the timer may interrupt before its first
 * instruction.  The last line written is "exact_nolibc_irq SUM".
 */
#include "workload.h"
#include "nolibc.h"	/* _start, atou() */

#define PAGES	16

/* PAGES whole pages in it, from its first page boundary on. */
static char pages[(PAGES + 1) * 4096];

/* One store (noipa: kept); the first into its page faults here. */
static void __attribute__((noipa)) touch(char *p)
{
	*p = 1;
}

static unsigned long __attribute__((noipa)) spin(unsigned long v,
						 unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		v = v * 5 + i;
	return v;
}

/* Called by _start only; it never returns. */
void start_c(unsigned long *sp)
{
	char **argv = (char **)(sp + 1);
	unsigned int i, n = sp[0] > 1 ? atou(argv[1]) : 20;
	unsigned int nsys = sp[0] > 2 ? atou(argv[2]) : 0;
	char *page = (char *)(((unsigned long)pages + 4095) & ~4095UL);

	for (i = 0; i < PAGES; i++) {
		touch(page + i * 4096UL);
		sink = spin(sink, n);
	}
	for (i = 0; i < nsys; i++)
		sink += sys3(110, 0, 0, 0);	/* getppid */
	exit_saying("exact_nolibc_irq ", sink);
}
