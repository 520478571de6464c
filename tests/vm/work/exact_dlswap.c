// SPDX-License-Identifier: GPL-2.0
/*
 * dlopen, for tests/vm/exact_realprog.sh (a PIE with libc): loads
 * /ptt/work/exact_dl_a.so, calls its function, unloads it, loads
 * exact_dl_b.so (ld.so maps it where a was: the same addresses, another
 * file) and calls its function, then a again.  The decoder must take
 * each library's code from the mapping of its time (the recording's
 * mmap records), not from the last one.
 */
#include <dlfcn.h>
#include <stdio.h>

static long call(const char *path, long x)
{
	long (*fn)(long x);
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		fprintf(stderr, "exact_dlswap: %s\n", dlerror());
		return -1;
	}
	*(void **)&fn = dlsym(h, "exact_dl_work");
	x = fn ? fn(x) : -1;
	printf("%s %p %ld\n", path, *(void **)&fn, x);
	dlclose(h);
	return x;
}

int main(void)
{
	long a = call("/ptt/work/exact_dl_a.so", 10);
	long b = call("/ptt/work/exact_dl_b.so", 10);
	long c = call("/ptt/work/exact_dl_a.so", 11);

	printf("exact_dlswap %ld %ld %ld\n", a, b, c);
	return a < 0 || b < 0 || c < 0;
}
