/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Facts about the machine that the driver does not report: CPUID of the
 * CPU we run on, MSR_PLATFORM_INFO through /dev/cpu/N/msr.
 */
#ifndef PT_TRACE_CPU_INFO_H
#define PT_TRACE_CPU_INFO_H

#include <stdint.h>

/* 1 when CPUID.(EAX=07H,ECX=0):EBX[25] (Intel PT) is set. */
int cpu_has_intel_pt(void);
/* CPUID 0x15 EAX/EBX, 0 when the leaf is absent. */
void cpu_cpuid_0x15(uint32_t *eax, uint32_t *ebx);
/* MSR_PLATFORM_INFO[15:8] of @cpu; -errno when unreadable. */
int cpu_max_nonturbo_ratio(int cpu, uint32_t *ratio);

#endif /* PT_TRACE_CPU_INFO_H */
