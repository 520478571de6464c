/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The branchy functions the exact-model tests' programs share
 * (exact_static.c, exact_nolibc.c, bts_exact_prog.c, exact_threads*.c):
 * recursion (nested returns to compress), jump tables (indirect jmps) and
 * calls through function pointers (indirect calls), so a trace has every
 * kind of branch.
 * noipa keeps each a real call; they are global, so a program that does
 * not call one gets no unused warning.  Each program includes this once.
 * sys3() is the raw system call of the programs built without libc.
 */
#ifndef PTT_WORKLOAD_H
#define PTT_WORKLOAD_H

unsigned long sink;	/* global: its loads and stores stay */

unsigned long __attribute__((noipa)) fib(unsigned int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

unsigned long __attribute__((noipa)) table(unsigned int i)
{
	/* Dense cases: a jump table (an indirect jmp). */
	switch (i % 8) {
	case 0: return sink + 3;
	case 1: return sink ^ 5;
	case 2: return sink * 7;
	case 3: return sink - 11;
	case 4: return sink + 13;
	case 5: return sink | 17;
	case 6: return sink & 19;
	default: return sink >> 1;
	}
}

/* One step of the threads' loops (exact_threads*.c): a small jump table. */
unsigned long __attribute__((noipa)) step(unsigned long x, unsigned int i)
{
	switch (i % 4) {
	case 0: return x + i;
	case 1: return x ^ (i << 3);
	case 2: return x * 3;
	default: return x >> 1;
	}
}

unsigned long __attribute__((noipa)) add1(unsigned long x) { return x + 1; }
unsigned long __attribute__((noipa)) dbl(unsigned long x) { return x * 2; }
unsigned long (*const ops[])(unsigned long) = { add1, dbl };	/* global: kept */

static inline long sys3(long nr, long a, long b, long c)
{
	long ret;

	asm volatile ("syscall"
		      : "=a" (ret)
		      : "a" (nr), "D" (a), "S" (b), "d" (c)
		      : "rcx", "r11", "memory");
	return ret;
}

#endif
