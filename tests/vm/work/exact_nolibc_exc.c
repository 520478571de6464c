// SPDX-License-Identifier: GPL-2.0
/*
 * The traced program of tests/vm/exact_exc.sh and tests/vm/bts_exact_exc.c,
 * without libc (static, -nostdlib, as every exact_nolibc*): user-mode
 * exceptions whose handlers step over the instruction that raised them
 * (uc_mcontext.rip += its length), ROUNDS times each:
 *  - #GP: hlt at CPL 3 (SIGSEGV); the kernel reports no die event for it;
 *  - #DE: div by zero (SIGFPE; DIE_TRAP);
 *  - #UD: ud2 (SIGILL; DIE_TRAP);
 *  - #XM: divss by zero with ZM clear in MXCSR (SIGFPE, if the CPU, here
 *    QEMU's, raises it; no die event either);
 *  - #BP: int3 (a trap: SIGTRAP at the next instruction, nothing to
 *    skip; pt-trace record ptraces its command and delivers it).
 * It moves itself to cpu0, writes "exc gp=IP de=IP ud=IP xm=IP bp=IP
 * restorer=IP" (hex: the faulting instructions, its rt_sigreturn) and "exc nsegv=N nfpe=N nill=N
 * ntrap=N", then "exact_nolibc_exc N" (N: the signals handled).
 */
#include "workload.h"
#include "nolibc.h"	/* _start, exit_saying() */

#define ROUNDS	4

/* The kernel's struct sigaction for rt_sigaction (x86-64). */
struct exc_ksigaction {
	void (*handler)(int sig, void *info, void *uc);
	unsigned long flags;
	void (*restorer)(void);
	unsigned long mask;
};

#define EXC_SA_SIGINFO	0x4UL
#define EXC_SA_RESTORER	0x04000000UL
/* uc_mcontext.rip in the x86-64 ucontext: the 22nd 8-byte word. */
#define EXC_UC_RIP	21

/* Globals: the handler's stores stay. */
unsigned long skip;		/* the length of the next faulting instruction */
unsigned long nsig[32];		/* signals handled, by number */
unsigned int mxcsr[2] = { 0x1f80 & ~0x200u, 0x1f80 };	/* ZM clear; default */

/* rt_sigreturn; naked: its first instruction is the mov. */
static __attribute__((naked)) void exc_restorer(void)
{
	asm volatile("mov $15, %eax\n\tsyscall\n\thlt");
}

void exc_handler(int sig, void *info, void *uc)
{
	(void)info;
	nsig[sig & 31]++;
	((unsigned long *)uc)[EXC_UC_RIP] += skip;
}

/* Naked: each faulting instruction at a known offset, then ret. */
static __attribute__((naked, noipa)) void do_gp(void)
{
	asm volatile("hlt\n\tret");			/* +0, 1 byte */
}

static __attribute__((naked, noipa)) void do_de(void)
{
	asm volatile("xor %ecx, %ecx\n\t"		/* 2 bytes */
		     "div %ecx\n\t"			/* +2, 2 bytes */
		     "ret");
}

static __attribute__((naked, noipa)) void do_ud(void)
{
	asm volatile("ud2\n\tret");			/* +0, 2 bytes */
}

/*
 * do_xm(mxcsr, 1), its arguments in RDI and ESI: ZM cleared by mxcsr[0], the default back
 * from [1].
 */
static __attribute__((naked, noipa)) void do_xm(void)
{
	asm volatile("ldmxcsr (%rdi)\n\t"		/* 3 bytes */
		     "xorps %xmm1, %xmm1\n\t"		/* 3 bytes */
		     "cvtsi2ss %esi, %xmm0\n\t"		/* 4 bytes */
		     "divss %xmm1, %xmm0\n\t"		/* +10, 4 bytes */
		     "ldmxcsr 4(%rdi)\n\t"
		     "ret");
}

/* Global: called through it, with the arguments do_xm() reads. */
void (*xm_fn)(const unsigned int *m, int one) =
	(void (*)(const unsigned int *, int))do_xm;

static __attribute__((naked, noipa)) void do_bp(void)
{
	asm volatile("int3\n\tret");			/* +0, a trap */
}

static void on(int sig)
{
	struct exc_ksigaction sa = {
		exc_handler, EXC_SA_SIGINFO | EXC_SA_RESTORER, exc_restorer, 0
	};

	/* rt_sigaction(sig, &sa, NULL, 8) */
	asm volatile("mov $8, %%r10\n\tsyscall"
		     : : "a" (13), "D" (sig), "S" (&sa), "d" (0)
		     : "rcx", "r11", "r10", "memory");
}

static char *put(char *p, const char *s)
{
	while (*s)
		*p++ = *s++;
	return p;
}

static char *hex(char *p, unsigned long v)
{
	int i;

	p = put(p, "0x");
	for (i = 60; i >= 0; i -= 4)
		*p++ = "0123456789abcdef"[(v >> i) & 15];
	return p;
}

static char *dec(char *p, unsigned long v)
{
	char d[24];
	int n = 0;

	do
		d[n++] = (char)('0' + v % 10);
	while (v /= 10);
	while (n)
		*p++ = d[--n];
	return p;
}

void start_c(unsigned long *sp)
{
	unsigned long mask = 1, i;
	char line[160], *p = line;

	(void)sp;
	/* sched_setaffinity(0, 8, {cpu0}): from here on it runs on cpu0. */
	sys3(203, 0, sizeof(mask), (long)&mask);
	on(4);		/* SIGILL */
	on(5);		/* SIGTRAP */
	on(8);		/* SIGFPE */
	on(11);		/* SIGSEGV */
	for (i = 0; i < ROUNDS; i++) {
		skip = 1;
		do_gp();
		skip = 2;
		do_de();
		skip = 2;
		do_ud();
		skip = 4;
		xm_fn(mxcsr, 1);
		skip = 0;
		do_bp();
	}
	p = put(p, "exc gp=");
	p = hex(p, (unsigned long)do_gp);
	p = put(p, " de=");
	p = hex(p, (unsigned long)do_de + 2);
	p = put(p, " ud=");
	p = hex(p, (unsigned long)do_ud);
	p = put(p, " xm=");
	p = hex(p, (unsigned long)do_xm + 10);
	p = put(p, " bp=");
	p = hex(p, (unsigned long)do_bp);
	p = put(p, " restorer=");
	p = hex(p, (unsigned long)exc_restorer);
	p = put(p, "\nexc nsegv=");
	p = dec(p, nsig[11]);
	p = put(p, " nfpe=");
	p = dec(p, nsig[8]);
	p = put(p, " nill=");
	p = dec(p, nsig[4]);
	p = put(p, " ntrap=");
	p = dec(p, nsig[5]);
	*p++ = '\n';
	sys3(1, 1, (long)line, p - line);
	exit_saying("exact_nolibc_exc ",
		    nsig[4] + nsig[5] + nsig[8] + nsig[11]);
}
