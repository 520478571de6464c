// SPDX-License-Identifier: GPL-2.0
/*
 * The traced program of tests/vm/exact_pie.sh: a PIE linked against libc
 * (ld.so, libc and the vdso are stepped from ld.so's first instruction
 * to exit): stdio, qsort with a callback, string functions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

int main(void)
{
	int v[64], i;
	char buf[128];

	for (i = 0; i < 64; i++)
		v[i] = (i * 37) % 64;
	qsort(v, 64, sizeof(v[0]), cmp);
	snprintf(buf, sizeof(buf), "%d %d %zu", v[0], v[63], strlen("hello"));
	printf("exact_pie %s\n", buf);
	return 0;
}
