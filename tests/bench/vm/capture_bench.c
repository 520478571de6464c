// SPDX-License-Identifier: GPL-2.0
/*
 * Capture-core benchmark (ratios only, nothing asserted): START+STOP
 * latency relative to a plain system call and to a stopped GET_STATUS
 * ioctl, and the ToPA table overhead per GiB of buffer, read from
 * /sys/kernel/debug/pt_trace/buffers.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <linux/pt_trace.h>

#include "bench_common.h"

static double overhead_per_gib(void)
{
	unsigned long long size, ovh, tables;
	unsigned int cpu, out, chunks;
	char line[256];
	FILE *f = fopen("/sys/kernel/debug/pt_trace/buffers", "r");
	double r = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%u %llu %u %u %llu %llu", &cpu, &size, &out,
			   &chunks, &tables, &ovh) == 6 && cpu == 0) {
			printf("buffer %llu MiB: %u chunks, %llu ToPA tables\n",
			       size >> 20, chunks, tables);
			r = tables * 4096.0 / (size / (double)(1 << 30));
		}
	fclose(f);
	return r;
}

int main(void)
{
	struct pt_trace_status st = { .size = sizeof(st) };
	__u64 size = 256ULL << 20;
	int fd = open("/dev/pt0", O_RDONLY);
	double t0, sys, stat, ss, ovh;
	const int n = 200;

	if (fd < 0) {
		perror("open /dev/pt0");
		return 1;
	}
	t0 = now();
	for (int i = 0; i < n; i++)
		getppid();
	sys = (now() - t0) / n;
	t0 = now();
	for (int i = 0; i < n; i++)
		ioctl(fd, PT_TRACE_IOC_GET_STATUS, &st);
	stat = (now() - t0) / n;
	ioctl(fd, PT_TRACE_IOC_START);		/* allocate once */
	ioctl(fd, PT_TRACE_IOC_STOP);
	t0 = now();
	for (int i = 0; i < n; i++) {
		ioctl(fd, PT_TRACE_IOC_START);
		ioctl(fd, PT_TRACE_IOC_STOP);
	}
	ss = (now() - t0) / n;
	printf("start+stop: %.1f x getppid, %.1f x GET_STATUS\n", ss / sys,
	       ss / stat);

	if (ioctl(fd, PT_TRACE_IOC_SET_BUFSIZE, &size) == 0 &&
	    ioctl(fd, PT_TRACE_IOC_START) == 0) {
		ioctl(fd, PT_TRACE_IOC_STOP);
		ovh = overhead_per_gib();
		printf("ToPA overhead: %.0f bytes per GiB (%.5f%% of the buffer)\n",
		       ovh, ovh * 100.0 / (1 << 30));
	} else {
		printf("ToPA overhead: 256 MiB buffer not available\n");
	}
	close(fd);
	return 0;
}
