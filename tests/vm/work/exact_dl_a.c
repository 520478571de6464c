// SPDX-License-Identifier: GPL-2.0
/* A library exact_dlswap.c loads (scripts/mkinitramfs.sh: exact_dl_a.so). */
static long __attribute__((noipa)) twice(long x)
{
	return 2 * x;
}

long exact_dl_work(long x)
{
	long s = 0;

	for (long i = 0; i < x; i++)
		s += i % 3 ? twice(i) : i;
	return s;
}
