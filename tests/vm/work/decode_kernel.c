// SPDX-License-Identifier: GPL-2.0
/*
 * The traced program of tests/vm/decode_kernel.sh: system calls for about
 * 100 ms (getppid, a write to /dev/null, a read of /dev/zero), so that
 * the model's sampled generator (OS=1: the kernel is not stepped) sees
 * this task in the kernel many times.
 */
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

int main(void)
{
	int out = open("/dev/null", O_WRONLY), in = open("/dev/zero", O_RDONLY);
	struct timespec t0, t;
	char buf[256] = "";
	long n = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		n += getppid() > 0;
		n += write(out, buf, sizeof(buf)) > 0;
		n += read(in, buf, sizeof(buf)) > 0;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + t.tv_nsec - t0.tv_nsec < 100000000L);
	printf("decode_kernel %ld\n", n);
	return 0;
}
