/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Facts about the machine that the driver does not report: CPUID of the
 * CPU we run on, MSRs through /dev/cpu/N/msr, and TSC samples against
 * CLOCK_MONOTONIC for the recorder's sideband.
 */
#ifndef PT_TRACE_CPU_INFO_H
#define PT_TRACE_CPU_INFO_H

#include <stdint.h>

#define MSR_IA32_TSC_ADJUST	0x3b
#define MSR_PLATFORM_INFO	0xce

/* 1 when CPUID.(EAX=07H,ECX=0):EBX[25] (Intel PT) is set. */
int cpu_has_intel_pt(void);
/* CPUID 0x15 EAX/EBX/ECX, 0 when the leaf is absent. */
void cpu_cpuid_0x15(uint32_t *eax, uint32_t *ebx, uint32_t *ecx);
/*
 * CPUID 0x16 (SDM Vol. 2A, "Processor Frequency Information"): base,
 * maximum and bus (reference) frequency in MHz, 0 when the leaf or a
 * value is absent (the SDM calls them informational: not the TSC rate).
 */
void cpu_cpuid_0x16(uint32_t *base, uint32_t *max, uint32_t *bus);
/* CPUID 0x16 EAX: base (nominal) frequency in MHz, 0 when absent. */
uint32_t cpu_cpuid_0x16_base_mhz(void);
/* Read MSR @msr of @cpu through /dev/cpu/N/msr; -errno when unreadable. */
int cpu_read_msr(int cpu, uint32_t msr, uint64_t *val);
/* MSR_PLATFORM_INFO[15:8] of @cpu; -errno when unreadable. */
int cpu_max_nonturbo_ratio(int cpu, uint32_t *ratio);
/* cpufreq's base_frequency of @cpu in MHz; -errno when absent. */
int cpu_cpufreq_base_mhz(int cpu, uint32_t *mhz);

/*
 * The TSC of @cpu and CLOCK_MONOTONIC (ns) at the same moment, to within
 * *err_ns: the calling thread moves to @cpu (the caller restores its
 * affinity) and keeps the tightest of a few tries.
 */
int cpu_tsc_sample(int cpu, uint64_t *tsc, uint64_t *mono_ns,
		   uint64_t *err_ns);

/* The TSC of the CPU the caller runs on and CLOCK_MONOTONIC (ns), now. */
void cpu_tsc_now(uint64_t *tsc, uint64_t *mono_ns);

#endif /* PT_TRACE_CPU_INFO_H */
