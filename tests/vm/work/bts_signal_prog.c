// SPDX-License-Identifier: GPL-2.0
/*
 * The traced program of tests/vm/bts_exact_signal.c, without libc: the
 * transfers between user and kernel mode that BTS stores, with a few
 * hundred instructions.  System calls (write, rt_sigaction: returns by
 * SYSRET), an illegal instruction (the ud2 fault() starts with) whose
 * SIGILL handler steps over it, a kill() of itself whose SIGUSR1 is
 * delivered at the system call's return (an IRET into the handler),
 * rt_sigreturn back from both handlers (IRET), stores to pages not yet
 * mapped (page faults the kernel resolves, IRET to the store) and a loop
 * long enough under the stepper for a timer interrupt or two.  It moves
 * itself to cpu0, prints "restorer=ADDR" (hex) and ends with
 * "bts_signal_prog done".
 */
#include "workload.h"

/* The kernel's struct sigaction for rt_sigaction (x86-64). */
struct bts_ksigaction {
	void (*handler)(int sig, void *info, void *uc);
	unsigned long flags;
	void (*restorer)(void);
	unsigned long mask;
};

#define BTS_SA_SIGINFO	0x4UL
#define BTS_SA_RESTORER	0x04000000UL
#define BTS_SIGILL	4
#define BTS_SIGUSR1	10
/* uc_mcontext.rip in the x86-64 ucontext: the 22nd 8-byte word. */
#define BTS_UC_RIP	21

static char fresh[4 * 4096];	/* bss: each page faults at its first store */

/* rt_sigreturn; naked: its first instruction is the mov. */
static __attribute__((naked)) void bts_sig_restorer(void)
{
	asm volatile("mov $15, %eax\n\tsyscall\n\thlt");
}

/* SIGILL: past the 2-byte ud2 that raised it. */
void bts_ill_handler(int sig, void *info, void *uc)
{
	(void)sig;
	(void)info;
	((unsigned long *)uc)[BTS_UC_RIP] += 2;
}

void bts_usr1_handler(int sig, void *info, void *uc)
{
	(void)info;
	(void)uc;
	sink += sig;
}

/* Naked: its first instruction is the ud2, and the handler's +2 the ret. */
static __attribute__((naked, noipa)) void fault(void)
{
	asm volatile("ud2\n\tret");
}

static void on(int sig, void (*handler)(int, void *, void *))
{
	struct bts_ksigaction sa = {
		handler, BTS_SA_SIGINFO | BTS_SA_RESTORER, bts_sig_restorer, 0
	};
	long ret;

	/* rt_sigaction(sig, &sa, NULL, 8) */
	asm volatile("mov $8, %%r10\n\tsyscall"
		     : "=a" (ret) : "a" (13), "D" (sig), "S" (&sa), "d" (0)
		     : "rcx", "r11", "r10", "memory");
	sink += ret;
}

static char *hex(char *p, unsigned long v)
{
	int i;

	*p++ = '0';
	*p++ = 'x';
	for (i = 60; i >= 0; i -= 4)
		*p++ = "0123456789abcdef"[(v >> i) & 15];
	return p;
}

void _start(void)
{
	static const char done[] = "bts_signal_prog done\n";
	unsigned long mask = 1, i;
	char line[64], *p = line;

	/* sched_setaffinity(0, 8, {cpu0}): from here on it runs on cpu0. */
	sys3(203, 0, sizeof(mask), (long)&mask);
	on(BTS_SIGILL, bts_ill_handler);
	on(BTS_SIGUSR1, bts_usr1_handler);
	fault();
	/* kill(getpid(), SIGUSR1): delivered at the kill's return. */
	sys3(62, sys3(39, 0, 0, 0), BTS_SIGUSR1, 0);
	for (i = 0; i < sizeof(fresh); i += 4096)
		fresh[i] = 1;
	for (i = 0; i < 400; i++)
		sink += i;
	for (const char *s = "restorer="; *s; s++)
		*p++ = *s;
	p = hex(p, (unsigned long)bts_sig_restorer);
	*p++ = '\n';
	sys3(1, 1, (long)line, p - line);
	sys3(1, 1, (long)done, sizeof(done) - 1);
	sys3(60, 0, 0, 0);
	__builtin_unreachable();
}
