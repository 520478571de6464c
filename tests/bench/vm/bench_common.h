/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the in-VM benchmarks share: clocks, CPU pinning, the model's
 * module parameters and the memcpy yardstick their ratios divide by.
 * Define _GNU_SOURCE before the first #include (for cpu_set_t).
 */
#ifndef PTT_BENCH_COMMON_H
#define PTT_BENCH_COMMON_H

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Wall-clock seconds (monotonic). */
static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* This thread's CPU time (not the time it slept). */
static inline unsigned long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Runs the calling thread on @cpu only. */
static inline void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* Writes a pt_trace_model parameter; silently nothing without the model. */
static inline void param(const char *name, const char *val)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/pt_trace_model/parameters/%s",
		 name);
	f = fopen(path, "w");
	if (f) {
		fputs(val, f);
		fclose(f);
	}
}

/*
 * Nanoseconds one memcpy of a GB takes here: 16 copies of 64 MiB, back
 * and forth between two buffers, the barrier keeping the compiler from
 * dropping copies whose result is not read.  0 if out of memory.
 */
static inline double memcpy_ns_per_gb(void)
{
	size_t n = 64u << 20;
	char *a = malloc(n), *b = malloc(n);
	double t0, t;
	int i;

	if (!a || !b) {
		free(a);
		free(b);
		return 0;
	}
	memset(a, 1, n);
	memset(b, 2, n);
	t0 = now();
	for (i = 0; i < 16; i++) {
		memcpy(i & 1 ? a : b, i & 1 ? b : a, n);
		__asm__ __volatile__("" : : "r"(a), "r"(b) : "memory");
	}
	t = now() - t0;
	free(a);
	free(b);
	return t * 1e9 / (16.0 * n / 1e9);
}

#endif
