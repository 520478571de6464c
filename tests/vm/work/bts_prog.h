/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The work that bts_exact_prog.c and bts_exec_prog.c (the traced
 * programs of tests/vm/bts_exact.c and bts_exec.c, built without libc)
 * share before they end their own way: include after workload.h.
 * Static inline and called once, gcc inlines it into _start even at -O1
 * (-finline-functions-called-once): the programs' branches stay those of
 * the loop and workload.h's calls, with no call and return of its own
 * (the tests count and check each record's branch; the programs' code
 * is the one they had before this header, registers aside).
 */
#ifndef PTT_BTS_PROG_H
#define PTT_BTS_PROG_H

/*
 * Moves the program to cpu0, where BTS is recorded, then runs a jump
 * table, calls through function pointers and recursion (workload.h).
 */
static inline void bts_prog_work(void)
{
	unsigned long mask = 1, acc = 0;
	unsigned int i;

	/* sched_setaffinity(0, 8, {cpu0}): from here on it runs on cpu0. */
	sys3(203, 0, sizeof(mask), (long)&mask);
	for (i = 0; i < 16; i++) {
		sink = table(i);
		acc += ops[i & 1](sink);
	}
	sink = acc + fib(7);
}

#endif /* PTT_BTS_PROG_H */
