/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the CPU's PT can do, decoded from CPUID alone (vendor, leaf 7
 * EBX[25], leaf 0x14 subleaves 0 and 1).  pt_caps_decode() is pure so
 * KUnit can feed it the published CPUID values of real CPUs.
 */
#ifndef _PT_TRACE_CAPS_H
#define _PT_TRACE_CAPS_H

#include <linux/types.h>
#include "hw.h"

/* The raw CPUID answers the decoder needs. */
struct pt_cpuid_raw {
	struct pt_cpuid_regs leaf0;	/* max leaf, vendor */
	struct pt_cpuid_regs leaf1;	/* family/model/stepping */
	struct pt_cpuid_regs leaf7;	/* subleaf 0: EBX[25] = PT */
	struct pt_cpuid_regs leaf14[2];	/* PT subleaves 0 and 1 */
	struct pt_cpuid_regs leaf15;	/* TSC/core crystal clock ratio */
};

struct pt_caps {
	struct pt_cpuid_raw raw;
	u32 flags;			/* PT_CAP_* (uapi) */
	u32 quirks;			/* PT_QUIRK_* (uapi) */
	u32 num_addr_ranges;
	u32 mtc_periods;
	u32 cyc_thresholds;
	u32 psb_periods;
	u32 family, model, stepping;
	u64 ctl_valid;			/* RTIT_CTL bits that may be set */
	/*
	 * VMX (CPUID.1:ECX[5]) without IA32_VMX_MISC[14]: VMXON clears
	 * TraceEn and a WRMSR setting it in VMX operation #GPs (SDM Vol.
	 * 3C, ch. 23 "Restrictions on VMX Operation", and Appendix A.6),
	 * so nothing may be traced while CR4.VMXE is set.
	 */
	bool vmx;
	bool vmx_blocks_trace;
};

/* Why pt_caps_decode() refused, for the one log line at load. */
enum pt_caps_verdict {
	PT_CAPS_OK = 0,
	PT_CAPS_NOT_INTEL,		/* vendor is not GenuineIntel */
	PT_CAPS_NO_LEAF14,		/* max basic leaf < 0x14 */
	PT_CAPS_NO_PT,			/* CPUID.(EAX=07H):EBX[25] = 0 */
	PT_CAPS_NO_OUTPUT,		/* neither ToPA nor single range */
};

enum pt_caps_verdict pt_caps_decode(const struct pt_cpuid_raw *raw,
				    struct pt_caps *caps);
const char *pt_caps_verdict_str(enum pt_caps_verdict v);
/* Fold IA32_VMX_MISC (read only when caps->vmx) into the caps. */
void pt_caps_set_vmx_misc(struct pt_caps *caps, u64 vmx_misc);
void pt_caps_read_raw(struct pt_cpuid_raw *raw);

extern struct pt_caps pt_caps;		/* the boot CPU's, set at load */

static inline bool pt_cap(const struct pt_caps *caps, u32 flag)
{
	return caps->flags & flag;
}

#endif /* _PT_TRACE_CAPS_H */
