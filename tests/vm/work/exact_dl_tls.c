// SPDX-License-Identifier: GPL-2.0
/*
 * A library with thread-local storage, for exact_libc.c's "tls" part
 * (scripts/mkinitramfs.sh: exact_dl_tls.so, loaded with dlopen): its
 * __thread variables are reached through __tls_get_addr (the
 * general-dynamic model), which allocates each thread's block at its
 * first use.
 */
static __thread long tls_count;
static __thread long tls_buf[64] = { 1, 2, 3 };

long exact_dl_tls(long x)
{
	for (long i = 0; i < 8; i++) {
		tls_count += x + i;
		tls_buf[(x + i) % 64] ^= tls_count;
	}
	return tls_count + tls_buf[x % 64];
}
