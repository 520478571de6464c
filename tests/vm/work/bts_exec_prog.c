// SPDX-License-Identifier: GPL-2.0
/*
 * The traced program of tests/vm/bts_exec.c, without libc (built
 * -static -nostdlib by scripts/mkinitramfs.sh): it moves itself to cpu0,
 * where BTS is recorded, runs a jump table, calls through function
 * pointers and recursion (workload.h), writes "bts_exec_prog exec" and
 * execs /ptt/work/exact_nolibc_exec, another static program linked at
 * the same addresses with other code (mix(), sum()), in the same
 * process: a decoder that keeps this image after the exec names its
 * branches wrongly.  Exits 2 if the exec fails.
 */
#include "workload.h"
#include "bts_prog.h"

void _start(void)
{
	static const char msg[] = "bts_exec_prog exec\n";
	static const char path[] = "/ptt/work/exact_nolibc_exec";
	static const char *const argv[] = { path, 0 }, *const envp[] = { 0 };

	bts_prog_work();
	sys3(1, 1, (long)msg, sizeof(msg) - 1);
	sys3(59, (long)path, (long)argv, (long)envp);	/* execve */
	sys3(60, 2, 0, 0);
	__builtin_unreachable();
}
