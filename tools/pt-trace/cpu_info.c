// SPDX-License-Identifier: GPL-2.0
/*
 * CPUID and MSR reads for info and the recorder's sideband.
 */
#include <cpuid.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "cpu_info.h"

#define MSR_PLATFORM_INFO	0xce

int cpu_has_intel_pt(void)
{
	unsigned int a, b, c, d;

	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
		return 0;
	return (b >> 25) & 1;
}

void cpu_cpuid_0x15(uint32_t *eax, uint32_t *ebx)
{
	unsigned int a = 0, b = 0, c, d;

	if (__get_cpuid_max(0, NULL) < 0x15 ||
	    !__get_cpuid_count(0x15, 0, &a, &b, &c, &d)) {
		a = 0;
		b = 0;
	}
	*eax = a;
	*ebx = b;
}

int cpu_max_nonturbo_ratio(int cpu, uint32_t *ratio)
{
	char path[64];
	uint64_t val;
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/dev/cpu/%d/msr", cpu);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = pread(fd, &val, sizeof(val), MSR_PLATFORM_INFO);
	close(fd);
	if (n != sizeof(val))
		return n < 0 ? -errno : -EIO;
	*ratio = (uint32_t)((val >> 8) & 0xff);
	return 0;
}
