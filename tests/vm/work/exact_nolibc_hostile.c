// SPDX-License-Identifier: GPL-2.0
/*
 * The traced program of tests/vm/exact_hostile.sh, without libc: code
 * that plays with what the exact model steps it by.  pushf/popf of the
 * flags as they are (the model's TF included) and with TF cleared; a
 * signal handler that rewrites the saved eflags (TF cleared, RF set,
 * the arithmetic flags flipped)
 * before rt_sigreturn; vfork whose child execs a file that does not
 * exist and exits; clone(CLONE_VM) without CLONE_THREAD running on its
 * own stack; execve of a file that does not exist in the program itself;
 * a second process that attaches with ptrace (a SIGSTOP), then detaches.
 * The model must neither kill, hang nor mis-step it: the last line is
 * "exact_nolibc_hostile done" with every step's answer as expected,
 * else "exact_nolibc_hostile failed N" (N: the first step that failed).
 */
#include "workload.h"	/* sink, fib(), table(), sys3() */
#include "nolibc.h"	/* _start, sys4() */

#define CLONE_VM	0x100
#define SIGCHLD		17
#define SIGUSR1		10
#define SA_SIGINFO	4
#define SA_RESTORER	0x04000000
#define WALL		0x40000000
#define EFL_TF		0x100UL
#define EFL_RF		0x10000UL
#define EFL_ARITH	0x8d5UL	/* OF SF ZF AF PF CF */

static unsigned long handled, cloned;
static unsigned long clone_stack[2048];	/* 16-byte aligned top: see below */
static const char missing[] = "/ptt/work/no such program";

static void __attribute__((noipa)) work(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		sink += table(i);
}

static void fail(unsigned long step)
{
	static const char m[] = "exact_nolibc_hostile failed ";
	char d[2] = { (char)('0' + step % 10), '\n' };

	sys3(1, 1, (long)m, sizeof(m) - 1);
	sys3(1, 1, (long)d, 2);
	sys3(231, 1, 0, 0);
}

/* uc_mcontext.eflags: ucontext's mcontext at 40, eflags its 18th word. */
static void handler(int sig, void *info, void *uc)
{
	unsigned long *fl = (unsigned long *)((char *)uc + 40 + 17 * 8);

	(void)sig;
	(void)info;
	*fl &= ~EFL_TF;
	*fl ^= EFL_ARITH;	/* the kill's return does not look at them */
	*fl |= EFL_RF;
	handled++;
}

/* rt_sigreturn; naked: its first instruction is the mov. */
static __attribute__((naked)) void restorer(void)
{
	asm volatile("mov $15, %eax\n\tsyscall\n\thlt");
}

void clone_child(void)
{
	work(20);
	cloned = 1;	/* the same memory: the parent sees it */
}

static unsigned long flags_now(void)
{
	unsigned long f;

	asm volatile("pushf\n\tpop %0" : "=r" (f));
	return f;
}

void start_c(unsigned long *sp)
{
	struct {
		void *handler;
		unsigned long flags;
		void *restorer;
		unsigned long mask;
	} sa = { (void *)handler, SA_SIGINFO | SA_RESTORER, (void *)restorer, 0 };
	long pid, ret, me;
	unsigned long f;
	unsigned int mask = 0;
	int st = 0;

	/* argv[1]: the steps to run (digits), all without it */
	if (sp[0] > 1)
		for (f = 0; ((char *)sp[2])[f]; f++)
			mask |= 1U << (((char *)sp[2])[f] - '0');
	if (!mask)
		mask = ~0U;
	me = sys3(39, 0, 0, 0);		/* getpid */
	work(10);
	/* 1: pushf/popf as they are, three times. */
	for (ret = 0; ret < 3 && (mask & 2); ret++)
		asm volatile("pushf\n\tpopf" ::: "memory", "cc");
	work(10);
	/* 2: popf with TF cleared (stepping stops until the next syscall). */
	if (mask & (1U << 2)) {
		f = flags_now() & ~EFL_TF;
		asm volatile("push %0\n\tpopf" :: "r" (f) : "memory", "cc");
		work(10);
	}
	/* 3: a handler rewrites the saved eflags. */
	if (mask & (1U << 3)) {
		if (sys4(13, SIGUSR1, (long)&sa, 0, 8))	/* rt_sigaction */
			fail(3);
		sys3(62, me, SIGUSR1, 0);	/* kill */
		if (handled != 1)
			fail(3);
		work(10);
	}
	/* 4: vfork; the child execs what does not exist, then exits 3. */
	if (mask & (1U << 4)) {
		asm volatile("mov $58, %%eax\n\t"
			     "syscall\n\t"
			     "test %%rax, %%rax\n\t"
			     "jnz 1f\n\t"
			     "mov $59, %%eax\n\t"
			     "mov %1, %%rdi\n\t"
			     "xor %%esi, %%esi\n\t"
			     "xor %%edx, %%edx\n\t"
			     "syscall\n\t"
			     "mov $60, %%eax\n\t"
			     "mov $3, %%edi\n\t"
			     "syscall\n"
			     "1:"
			     : "=&a" (pid) : "r" (missing)
			     : "rcx", "r11", "rdi", "rsi", "rdx", "memory");
		if (pid <= 0 || sys4(61, pid, (long)&st, WALL, 0) != pid ||
		    (st & 0xffff) != 0x300)
			fail(4);
		work(10);
	}
	/* 5: clone(CLONE_VM) without CLONE_THREAD, on its own stack. */
	if (mask & (1U << 5)) {
		{
			register long r10 asm("r10") = 0;
			register long r8 asm("r8") = 0;

			asm volatile("mov $56, %%eax\n\t"
				     "syscall\n\t"
				     "test %%rax, %%rax\n\t"
				     "jnz 1f\n\t"
				     "call clone_child\n\t"
				     "mov $60, %%eax\n\t"
				     "xor %%edi, %%edi\n\t"
				     "syscall\n"
				     "1:"
				     : "=&a" (pid)
				     : "D" (CLONE_VM | SIGCHLD),
				       "S" ((unsigned long)(clone_stack + 2048) & -16UL),
				       "d" (0), "r" (r10), "r" (r8)
				     : "rcx", "r11", "memory");
		}
		if (pid <= 0 || sys4(61, pid, (long)&st, WALL, 0) != pid ||
		    (st & 0xffff) || !cloned)
			fail(5);
		work(10);
	}
	/* 6: execve of a file that does not exist (ENOENT). */
	if (mask & (1U << 6)) {
		if (sys3(59, (long)missing, 0, 0) != -2)
			fail(6);
		work(10);
	}
	/* 7: a child attaches with ptrace, waits for the stop, detaches. */
	if (mask & (1U << 7)) {
		pid = sys3(57, 0, 0, 0);	/* fork */
		if (!pid) {
			/* EPERM under pt-trace record, which traces it already */
			if (sys4(101, 16, me, 0, 0))	/* PTRACE_ATTACH */
				sys3(60, 0, 0, 0);
			if (sys4(61, me, (long)&st, WALL, 0) != me)
				sys3(60, 2, 0, 0);
			sys4(101, 17, me, 0, 0);	/* PTRACE_DETACH */
			sys3(60, 0, 0, 0);
		}
		if (pid < 0)
			fail(7);
		for (ret = 0; ret < 20; ret++)
			work(10);
		if (sys4(61, pid, (long)&st, WALL, 0) != pid || (st & 0xffff))
			fail(7);
		work(10);
	}
	exit_saying("exact_nolibc_hostile done ", sink & 1);
}
