// SPDX-License-Identifier: GPL-2.0
/*
 * What the child of exact_nolibc_fork (tests/vm/exact_fork.sh) execs:
 * another static program without libc, linked at the same addresses as
 * its parent's, with other code there (loops and calls of its own).
 * Writes "exact_nolibc_exec done" and exits 0.
 */
#include "workload.h"	/* sink, sys3(); none of its functions */

asm(".globl _start\n"
	"_start:\n"
	"	xor %ebp, %ebp\n"
	"	and $-16, %rsp\n"
	"	call start_c\n"
	"	hlt\n");

static unsigned long __attribute__((noipa)) mix(unsigned long x,
						unsigned int i)
{
	return i & 1 ? x * 9 + i : x ^ (x >> 3);
}

static unsigned long __attribute__((noipa)) sum(unsigned int n)
{
	return n ? n + sum(n - 1) : 0;	/* recursion: RETs to compress */
}

/* Called by _start only; it never returns. */
void start_c(void)
{
	static const char msg[] = "exact_nolibc_exec done\n";
	unsigned int i;

	for (i = 0; i < 50; i++)
		sink = mix(sink, i);
	sink += sum(12);
	sys3(1, 1, (long)msg, sizeof(msg) - 1);		/* write */
	for (;;)
		sys3(231, 0, 0, 0);			/* exit_group */
}
