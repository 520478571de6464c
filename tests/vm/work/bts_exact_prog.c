// SPDX-License-Identifier: GPL-2.0
/*
 * The traced program of tests/vm/bts_exact.c, without libc (built
 * -static -nostdlib by scripts/mkinitramfs.sh), so that it is a few
 * hundred instructions: a loop, recursion, a jump table, calls through
 * function pointers and system calls.  It first moves itself to cpu0,
 * where BTS is recorded, and ends with "bts_exact_prog done".
 */
/* Globals: the compiler keeps their loads, stores and indirect calls. */
unsigned long sink;

static long sys3(long nr, long a, long b, long c)
{
	long r;

	asm volatile("syscall" : "=a"(r) : "a"(nr), "D"(a), "S"(b), "d"(c)
		     : "rcx", "r11", "memory");
	return r;
}

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

static unsigned long __attribute__((noipa)) twice(unsigned long v)
{
	return v * 2;
}

static unsigned long __attribute__((noipa)) plus1(unsigned long v)
{
	return v + 1;
}

unsigned long (*fns[2])(unsigned long) = { twice, plus1 };

void _start(void)
{
	static const char done[] = "bts_exact_prog done\n";
	unsigned long mask = 1, acc = 0;
	unsigned int i;

	/* sched_setaffinity(0, 8, {cpu0}): from here on it runs on cpu0. */
	sys3(203, 0, sizeof(mask), (long)&mask);
	for (i = 0; i < 16; i++) {
		sink = table(i);
		acc += fns[i & 1](sink);
	}
	sink = acc + fib(7);
	sys3(1, 1, (long)done, sizeof(done) - 1);
	sys3(60, 0, 0, 0);
	__builtin_unreachable();
}
