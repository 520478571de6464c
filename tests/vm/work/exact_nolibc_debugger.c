// SPDX-License-Identifier: GPL-2.0
/*
 * The traced program of tests/vm/exact_debugger.sh, without libc
 * (scripts/mkinitramfs.sh: exact_nolibc* static with -nostdlib): a
 * debugger beside the exact model, which steps the same task with the
 * same TF.  The parent forks a child that asks to be traced
 * (PTRACE_TRACEME) and stops itself (SIGSTOP); the parent single-steps
 * it STEPS times (PTRACE_SINGLESTEP), taking its RIP at each stop
 * (PTRACE_GETREGS), lets it run on to its end (PTRACE_CONT) and writes
 * "dbg RIP" per step, then "exact_nolibc_debugger N": N the steps that
 * stopped with SIGTRAP, or 2000 when the child's SIGSTOP did not come,
 * 1000 + N when it did not run to its end after them.
 */
#include "workload.h"	/* sink, fib(), table(), sys3() */
#include "nolibc.h"	/* _start, sys4(), exit_saying() */

#define STEPS		100
#define PTRACE_TRACEME		0
#define PTRACE_CONT		7
#define PTRACE_SINGLESTEP	9
#define PTRACE_GETREGS		12
#define RIP		16	/* in struct user_regs_struct */
#define SIGSTOP		19
#define SIGTRAP		5

static void __attribute__((noipa)) child_work(void)
{
	unsigned int i;

	for (i = 0; i < 30; i++)
		sink += table(i);
	sink += fib(7);
}

static char *hex(char *p, unsigned long v)
{
	int i;

	for (i = 60; i >= 0; i -= 4)
		*p++ = "0123456789abcdef"[(v >> i) & 15];
	return p;
}

/* Called by _start only; it never returns. */
void start_c(unsigned long *sp)
{
	static unsigned long rip[STEPS];
	static char out[STEPS * 21];
	unsigned long regs[27];
	unsigned int n, i;
	int status = 0;
	char *p = out;
	long pid;

	(void)sp;
	pid = sys3(57, 0, 0, 0);			/* fork */
	if (!pid) {
		sys4(101, PTRACE_TRACEME, 0, 0, 0);
		sys3(62, sys3(39, 0, 0, 0), SIGSTOP, 0);	/* kill(getpid()) */
		child_work();
		for (;;)
			sys3(231, 0, 0, 0);		/* exit_group */
	}
	if (pid < 0 || sys4(61, pid, (long)&status, 0, 0) != pid ||
	    (status & 0xffff) != (SIGSTOP << 8 | 0x7f))
		exit_saying("exact_nolibc_debugger ", 2000);
	for (n = 0; n < STEPS; n++) {
		if (sys4(101, PTRACE_SINGLESTEP, pid, 0, 0) ||
		    sys4(61, pid, (long)&status, 0, 0) != pid ||
		    (status & 0xffff) != (SIGTRAP << 8 | 0x7f) ||
		    sys4(101, PTRACE_GETREGS, pid, 0, (long)regs))
			break;
		rip[n] = regs[RIP];
	}
	if (sys4(101, PTRACE_CONT, pid, 0, 0) ||
	    sys4(61, pid, (long)&status, 0, 0) != pid || status)
		exit_saying("exact_nolibc_debugger ", n + 1000);
	for (i = 0; i < n; i++) {
		const char *t = "dbg ";

		while (*t)
			*p++ = *t++;
		p = hex(p, rip[i]);
		*p++ = '\n';
	}
	sys3(1, 1, (long)out, p - out);			/* write */
	exit_saying("exact_nolibc_debugger ", n);
}
