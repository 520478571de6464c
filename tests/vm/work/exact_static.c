// SPDX-License-Identifier: GPL-2.0
/*
 * The traced program of tests/vm/exact_static.sh, linked statically
 * (scripts/mkinitramfs.sh builds tests/vm/work/ *.c into /ptt/work/):
 * loops, recursion, a jump table, calls through function pointers and
 * setjmp/longjmp, so the exact model's trace has every kind of branch.
 */
#include <setjmp.h>
#include <stdio.h>
#include <unistd.h>

#include "workload.h"

static jmp_buf env;

/* Every path that returns recurses: it ends in longjmp, on purpose. */
#pragma GCC diagnostic ignored "-Winfinite-recursion"
static void __attribute__((noipa)) deep(int n)
{
	sink += n;
	if (n > 0)
		deep(n - 1);
	else
		longjmp(env, 42);
	sink -= n;	/* never reached */
}

int main(void)
{
	unsigned int i;
	char msg[64];
	int n;

	for (i = 0; i < 200; i++)
		sink += table(i);
	sink += fib(12);
	for (i = 0; i < 100; i++)
		sink = ops[(sink >> 3) & 1](sink);
	if (setjmp(env) == 0)
		deep(20);
	n = snprintf(msg, sizeof(msg), "exact_static %lu\n", sink);
	if (write(1, msg, n) != n)
		return 1;
	return 0;
}
