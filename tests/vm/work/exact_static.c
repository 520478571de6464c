// SPDX-License-Identifier: GPL-2.0
/*
 * The traced program of tests/vm/exact_static.sh, linked statically
 * (scripts/mkinitramfs.sh builds tests/vm/work/ *.c into /ptt/work/):
 * loops, recursion, a jump table, calls through function pointers and
 * setjmp/longjmp, so the exact model's trace has every kind of branch.
 */
#include <setjmp.h>
#include <stdio.h>
#include <unistd.h>

unsigned long sink;	/* global: its loads and stores stay */
static jmp_buf env;

static unsigned long __attribute__((noipa)) fib(unsigned int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static unsigned long __attribute__((noipa)) table(unsigned int i)
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

static unsigned long add1(unsigned long x) { return x + 1; }
static unsigned long dbl(unsigned long x) { return x * 2; }
static unsigned long (*const ops[])(unsigned long) = { add1, dbl };

/* Every path that returns recurses: it ends in longjmp, on purpose. */
#pragma GCC diagnostic ignored "-Winfinite-recursion"
static void __attribute__((noipa)) deep(int n)
{
	sink += n;
	if (n > 0)
		deep(n - 1);
	else
		longjmp(env, 42);
	sink -= n;	/* never reached */
}

int main(void)
{
	unsigned int i;
	char msg[64];
	int n;

	for (i = 0; i < 200; i++)
		sink += table(i);
	sink += fib(12);
	for (i = 0; i < 100; i++)
		sink = ops[(sink >> 3) & 1](sink);
	if (setjmp(env) == 0)
		deep(20);
	n = snprintf(msg, sizeof(msg), "exact_static %lu\n", sink);
	if (write(1, msg, n) != n)
		return 1;
	return 0;
}
