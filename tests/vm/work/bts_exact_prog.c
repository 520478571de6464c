// SPDX-License-Identifier: GPL-2.0
/*
 * The traced program of tests/vm/bts_exact.c, without libc (built
 * -static -nostdlib by scripts/mkinitramfs.sh), so that it is a few
 * hundred instructions: a loop, recursion, a jump table, calls through
 * function pointers and system calls.  It first moves itself to cpu0,
 * where BTS is recorded, and ends with "bts_exact_prog done".
 */
#include "workload.h"
#include "bts_prog.h"

void _start(void)
{
	static const char done[] = "bts_exact_prog done\n";

	bts_prog_work();
	sys3(1, 1, (long)done, sizeof(done) - 1);
	sys3(60, 0, 0, 0);
	__builtin_unreachable();
}
