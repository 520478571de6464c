// SPDX-License-Identifier: GPL-2.0
/*
 * The traced program of tests/vm/decode_kmod.sh: for about 150 ms, the
 * driver's own ioctls (GET_CAPS, GET_CONFIG: no IPI, unlike GET_STATUS,
 * whose time goes to smp_call_function_single) on CPU 1's device, which
 * the recording of CPU 0 leaves free, so that the model's sampled
 * generator (OS=1) sees this task in pt_trace.ko's code many times.
 * Prints "decode_kmod CALLS" at the end.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/pt_trace.h>

int main(void)
{
	int fd = open("/dev/pt1", O_RDWR);
	struct pt_trace_config cfg;
	struct pt_trace_caps caps;
	struct timespec t0, t;
	long n = 0;

	if (fd < 0) {
		perror("/dev/pt1");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		memset(&caps, 0, sizeof(caps));
		caps.size = sizeof(caps);
		n += !ioctl(fd, PT_TRACE_IOC_GET_CAPS, &caps);
		memset(&cfg, 0, sizeof(cfg));
		cfg.size = sizeof(cfg);
		n += !ioctl(fd, PT_TRACE_IOC_GET_CONFIG, &cfg);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + t.tv_nsec - t0.tv_nsec < 150000000L);
	printf("decode_kmod %ld\n", n);
	close(fd);
	return n ? 0 : 1;
}
