// SPDX-License-Identifier: GPL-2.0
/*
 * A program for tests/host/exact_enc_check.c: every kind of control flow
 * whose Intel PT packets the exact model's encoder must get right --
 * loops (TNT), recursion deeper than the 64-entry RET-compression stack,
 * a jump table and function pointers (TIP), an indirect tail call,
 * setjmp/longjmp (RETs that do not match their CALL), rep movsb (one
 * instruction, many steps), syscalls (TIP.PGD, TIP.PGE), a page fault
 * whose handler makes the store retry and a raised signal (FUP +
 * TIP.PGD, then TIP.PGE in the handler, rt_sigreturn back).
 */
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static jmp_buf env;
int sink;		/* global: its loads and stores stay */

static int __attribute__((noipa)) depth(int n)
{
	if (n == 0)
		return 0;
	return 1 + depth(n - 1) + sink;
}

static int __attribute__((noipa)) table(int i)
{
	switch (i) {
	case 0: return sink + 3;
	case 1: return sink * 5;
	case 2: return sink - 7;
	case 3: return sink ^ 11;
	case 4: return sink + 13;
	case 5: return sink | 17;
	case 6: return sink - 19;
	case 7: return sink * 23;
	default: return -1;
	}
}

static int __attribute__((noipa)) add1(int x) { return x + 1; }
static int __attribute__((noipa)) dbl(int x) { return x * 2; }
int (*ops[])(int) = { add1, dbl };	/* global: not constant-folded */

/* Tail position: compiled as jmp *%rax at -O2. */
static int __attribute__((noipa)) tail(int i, int x)
{
	return ops[i & 1](x);
}

static void __attribute__((noipa)) thrower(int n)
{
	if (n == 0)
		longjmp(env, 1);
	thrower(n - 1);
	sink++;
}

char *guard;

static void on_signal(int sig)
{
	if (sig == SIGSEGV)
		mprotect(guard, 4096, PROT_READ | PROT_WRITE);
	sink += sig;
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	static char src[300] = "exact", dst[300];
	char *d = dst, *s = src;
	long n = sizeof(src);
	int i, acc = 0;

	for (i = 0; i < 100; i++)
		acc += (i % 3 == 0) ? table(i % 9) : tail(i, acc);
	acc += depth(200);
	if (!setjmp(env))
		thrower(10);
	__asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
	acc += syscall(SYS_getpid) > 0;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	guard = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (guard == MAP_FAILED)
		return 1;
	guard[0] = 1;		/* faults once, then retries */
	raise(SIGUSR1);
	sink = acc + dst[0];
	return write(-1, "x", 1) == -1 ? 0 : 1;
}
