// SPDX-License-Identifier: GPL-2.0
/*
 * The traced program of tests/vm/bts_exact_fault.c, without libc: an
 * illegal instruction (the ud2 that fault() starts with) whose SIGILL handler steps
 * over it, so that BTS shows what an exception in user code stores.  It
 * moves itself to cpu0, prints "ud2=ADDR handler=ADDR restorer=ADDR"
 * (hex) and ends with "bts_fault_prog done".
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
/* uc_mcontext.rip in the x86-64 ucontext: the 22nd 8-byte word. */
#define BTS_UC_RIP	21

/* rt_sigreturn; naked: its first instruction is the mov. */
static __attribute__((naked)) void bts_fault_restorer(void)
{
	asm volatile("mov $15, %eax\n\tsyscall\n\thlt");
}

/* Past the 2-byte ud2 that raised it. */
void bts_fault_handler(int sig, void *info, void *uc)
{
	(void)sig;
	(void)info;
	((unsigned long *)uc)[BTS_UC_RIP] += 2;
}

/* Naked: its first instruction is the ud2, and the handler's +2 the ret. */
static __attribute__((naked, noipa)) void fault(void)
{
	asm volatile("ud2\n\tret");
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
	static const char done[] = "bts_fault_prog done\n";
	struct bts_ksigaction sa = {
		bts_fault_handler, BTS_SA_SIGINFO | BTS_SA_RESTORER,
		bts_fault_restorer, 0
	};
	unsigned long mask = 1;
	char line[128], *p = line;

	/* sched_setaffinity(0, 8, {cpu0}): from here on it runs on cpu0. */
	sys3(203, 0, sizeof(mask), (long)&mask);
	/* rt_sigaction(SIGILL, &sa, NULL, 8) */
	asm volatile("mov $8, %%r10\n\tsyscall"
		     : : "a" (13), "D" (4), "S" (&sa), "d" (0)
		     : "rcx", "r11", "r10", "memory");
	fault();
	for (const char *s = "ud2="; *s; s++)
		*p++ = *s;
	p = hex(p, (unsigned long)fault);
	for (const char *s = " handler="; *s; s++)
		*p++ = *s;
	p = hex(p, (unsigned long)bts_fault_handler);
	for (const char *s = " restorer="; *s; s++)
		*p++ = *s;
	p = hex(p, (unsigned long)bts_fault_restorer);
	*p++ = '\n';
	sys3(1, 1, (long)line, p - line);
	sys3(1, 1, (long)done, sizeof(done) - 1);
	sys3(60, 0, 0, 0);
	__builtin_unreachable();
}
