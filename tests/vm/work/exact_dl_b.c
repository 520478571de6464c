// SPDX-License-Identifier: GPL-2.0
/*
 * The other library exact_dlswap.c loads (exact_dl_b.so), where
 * exact_dl_a.so was: other code at the same offsets.
 */
static long __attribute__((noipa)) square(long x)
{
	return x * x;
}

long exact_dl_work(long x)
{
	long s = 1;

	while (x-- > 0)
		s = (s + square(x)) % 1000003;
	return s;
}
