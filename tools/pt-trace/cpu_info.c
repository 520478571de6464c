// SPDX-License-Identifier: GPL-2.0
/*
 * CPUID and MSR reads for info and the recorder's sideband.  Under the
 * model backend these describe the CPU the tool runs on, not the modelled
 * one (the driver's GET_CAPS gives that): the sideband names both.
 */
#include <cpuid.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include "cpu_info.h"

int cpu_has_intel_pt(void)
{
	unsigned int a, b, c, d;

	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
		return 0;
	return (b >> 25) & 1;
}

void cpu_cpuid_0x15(uint32_t *eax, uint32_t *ebx, uint32_t *ecx)
{
	unsigned int a = 0, b = 0, c = 0, d;

	if (__get_cpuid_max(0, NULL) < 0x15 ||
	    !__get_cpuid_count(0x15, 0, &a, &b, &c, &d)) {
		a = 0;
		b = 0;
		c = 0;
	}
	*eax = a;
	*ebx = b;
	*ecx = c;
}

void cpu_cpuid_0x16(uint32_t *base, uint32_t *max, uint32_t *bus)
{
	unsigned int a = 0, b = 0, c = 0, d;

	if (__get_cpuid_max(0, NULL) < 0x16 ||
	    !__get_cpuid_count(0x16, 0, &a, &b, &c, &d)) {
		a = 0;
		b = 0;
		c = 0;
	}
	*base = a & 0xffff;
	*max = b & 0xffff;
	*bus = c & 0xffff;
}

uint32_t cpu_cpuid_0x16_base_mhz(void)
{
	uint32_t base, max, bus;

	cpu_cpuid_0x16(&base, &max, &bus);
	return base;
}

int cpu_read_msr(int cpu, uint32_t msr, uint64_t *val)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/dev/cpu/%d/msr", cpu);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = pread(fd, val, sizeof(*val), msr);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n != sizeof(*val))
		return n < 0 ? (int)n : -EIO;
	return 0;
}

int cpu_max_nonturbo_ratio(int cpu, uint32_t *ratio)
{
	uint64_t val;
	int err = cpu_read_msr(cpu, MSR_PLATFORM_INFO, &val);

	if (err)
		return err;
	*ratio = (uint32_t)((val >> 8) & 0xff);
	return 0;
}

int cpu_cpufreq_base_mhz(int cpu, uint32_t *mhz)
{
	char path[96];
	unsigned long khz;
	FILE *f;
	int n;

	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/cpufreq/base_frequency", cpu);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fscanf(f, "%lu", &khz);
	fclose(f);
	if (n != 1 || !khz)
		return -EINVAL;
	*mhz = (uint32_t)(khz / 1000);
	return 0;
}

static uint64_t cpu_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void cpu_tsc_now(uint64_t *tsc, uint64_t *mono_ns)
{
	uint64_t t0 = cpu_mono_ns();

	*tsc = __rdtsc();
	*mono_ns = t0 + (cpu_mono_ns() - t0) / 2;
}

int cpu_tsc_sample(int cpu, uint64_t *tsc, uint64_t *mono_ns,
		   uint64_t *err_ns)
{
	uint64_t best = UINT64_MAX;
	cpu_set_t set;
	int i;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -errno;
	/* A preemption between the three reads only widens that try. */
	for (i = 0; i < 16; i++) {
		uint64_t t0 = cpu_mono_ns();
		uint64_t c = __rdtsc();
		uint64_t t1 = cpu_mono_ns();

		if (t1 - t0 < best) {
			best = t1 - t0;
			*tsc = c;
			*mono_ns = t0 + (t1 - t0) / 2;
		}
	}
	*err_ns = best / 2 + 1;
	return 0;
}
