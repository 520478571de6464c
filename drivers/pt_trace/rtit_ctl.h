/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Validation of a user configuration against the CPU's capabilities and
 * composition of the IA32_RTIT_CTL value (pure: no MSR, no global state,
 * so KUnit can run it on the CPUID values of real CPUs).
 */
#ifndef _PT_TRACE_RTIT_CTL_H
#define _PT_TRACE_RTIT_CTL_H

#include <linux/types.h>
#include <linux/pt_trace.h>

struct pt_caps;

/* Every RTIT_CTL bit the SDM defines; anything else is reserved. */
#define PT_CTL_ARCH_BITS						\
	(PT_CTL_TRACEEN | PT_CTL_CYCEN | PT_CTL_OS | PT_CTL_USER |	\
	 PT_CTL_PWREVTEN | PT_CTL_FUPONPTW | PT_CTL_FABRICEN |		\
	 PT_CTL_CR3FILTER | PT_CTL_TOPA | PT_CTL_MTCEN | PT_CTL_TSCEN |	\
	 PT_CTL_DISRETC | PT_CTL_PTWEN | PT_CTL_BRANCHEN |		\
	 PT_CTL_MTCFREQ_MASK | PT_CTL_CYCTHRESH_MASK |			\
	 PT_CTL_PSBFREQ_MASK | PT_CTL_EVENTEN | PT_CTL_ADDR_CFG_MASK(0) |	\
	 PT_CTL_ADDR_CFG_MASK(1) | PT_CTL_ADDR_CFG_MASK(2) |		\
	 PT_CTL_ADDR_CFG_MASK(3) | PT_CTL_NOTNT)

/* Bits the driver alone decides; user space must leave them 0. */
#define PT_CTL_DRIVER_BITS	(PT_CTL_TRACEEN | PT_CTL_FABRICEN | PT_CTL_TOPA)

/* The user-controlled bits that imply tracing the kernel. */
#define PT_CTL_NEEDS_PRIV	PT_CTL_OS

bool pt_addr_is_canonical(u64 addr, unsigned int virt_bits);

/*
 * Check @cfg against @caps and compose RTIT_CTL without TraceEn and ToPA
 * (the core adds them).  Returns 0, -EINVAL for a value the CPU cannot
 * honour (reserved bits, unsupported encodings, bad ranges) or
 * -EOPNOTSUPP for a feature the CPU lacks.  @virt_bits is the CPU's
 * linear-address width (ADDRn canonical).  Nothing here touches hardware: every value that
 * could make a later WRMSR #GP is refused here.
 */
int pt_rtit_ctl_compose(const struct pt_trace_config *cfg,
			const struct pt_caps *caps, unsigned int virt_bits,
			u64 *ctl);

/* Validation of one address range, shared with PT_TRACE_IOC_SET_ADDR. */
int pt_rtit_check_range(const struct pt_caps *caps, unsigned int index,
			unsigned int cfg, u64 start, u64 end,
			unsigned int virt_bits);

#endif /* _PT_TRACE_RTIT_CTL_H */
