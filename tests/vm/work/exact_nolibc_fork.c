// SPDX-License-Identifier: GPL-2.0
/*
 * The traced program of tests/vm/exact_fork.sh, without libc
 * (scripts/mkinitramfs.sh: exact_nolibc* static with -nostdlib) so that
 * each task steps a few hundred instructions of its own.  The parent
 * runs parent_work(), forks, waits for the child and runs
 * parent_work() again; the child runs child_work() (other code: a jump
 * table, recursion) and execs /ptt/work/exact_nolibc_exec, another
 * static program linked at the same addresses, so a decoder that keeps
 * this program's image for the child after its exec decodes wrong code.
 * argv[1], if given: milliseconds to sleep first, so that a recorder can
 * attach to it (follow_pid_exact.sh: record -p PID --no-inherit).
 * The last line written is "exact_nolibc_fork done" (exit status 0) or
 * "exact_nolibc_fork child failed" (1).
 */
#include "workload.h"	/* sink, fib(), table() */
#include "nolibc.h"	/* _start, sys4(), atou() */

static void __attribute__((noipa)) parent_work(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		sink = sink * 5 + (i & 3 ? i : sink >> 2);
}

static void __attribute__((noipa)) child_work(void)
{
	unsigned int i;

	for (i = 0; i < 30; i++)
		sink += table(i);
	sink += fib(7);
}

static void say(const char *s)
{
	unsigned long n = 0;

	while (s[n])
		n++;
	sys3(1, 1, (long)s, (long)n);		/* write */
}

/* Called by _start only; it never returns. */
void start_c(unsigned long *sp)
{
	static const char path[] = "/ptt/work/exact_nolibc_exec";
	static const char *const argv[] = { path, 0 }, *const envp[] = { 0 };
	int status = -1;
	long pid;

	if (sp[0] > 1) {
		unsigned int ms = atou(((char **)(sp + 1))[1]);
		long pause[2] = { ms / 1000, (ms % 1000) * 1000000L };

		sys3(35, (long)pause, 0, 0);		/* nanosleep */
	}
	parent_work(40);
	pid = sys3(57, 0, 0, 0);			/* fork */
	if (!pid) {
		child_work();
		sys3(59, (long)path, (long)argv, (long)envp);	/* execve */
		for (;;)
			sys3(231, 2, 0, 0);		/* exit_group */
	}
	if (pid < 0 || sys4(61, pid, (long)&status, 0, 0) != pid)  /* wait4 */
		status = -1;
	parent_work(20);
	say(status ? "exact_nolibc_fork child failed\n" :
		     "exact_nolibc_fork done\n");
	for (;;)
		sys3(231, status != 0, 0, 0);		/* exit_group */
}
