// SPDX-License-Identifier: GPL-2.0
/*
 * Branch Trace Store capabilities (bts_caps.h; SDM Vol. 3B 18.4.4 and
 * 18.7.8, Vol. 4 IA32_MISC_ENABLE).  IA32_MISC_ENABLE is read only when
 * CPUID lists DS, through pt_rdmsr() like every MSR; a read that fails
 * counts as BTS unavailable.
 */
#include <linux/preempt.h>

#include "bts_caps.h"
#include "bts_regs.h"
#include "caps.h"
#include "hw.h"

struct bts_caps bts_caps;

void bts_caps_decode(u32 leaf1_ecx, u32 leaf1_edx, u64 misc_enable,
		     bool misc_ok, struct bts_caps *caps)
{
	caps->ds = leaf1_edx & BTS_CPUID1_EDX_DS;
	caps->cpl_filter = caps->ds && (leaf1_ecx & BTS_CPUID1_ECX_DS_CPL);
	caps->unavailable = caps->ds &&
			    (!misc_ok ||
			     (misc_enable & BTS_MISC_ENABLE_BTS_UNAVAIL));
	caps->pebs = caps->ds && misc_ok &&
		     !(misc_enable & BTS_MISC_ENABLE_PEBS_UNAVAIL);
}

void bts_caps_read(void)
{
	const struct pt_cpuid_regs *l1 = &pt_caps.raw.leaf1;
	u64 misc = 0;
	bool ok = false;

	if (l1->edx & BTS_CPUID1_EDX_DS) {
		/* The same on every CPU; read on one, not migrating meanwhile. */
		preempt_disable();
		ok = !pt_rdmsr(BTS_MSR_MISC_ENABLE, &misc);
		preempt_enable();
	}
	bts_caps_decode(l1->ecx, l1->edx, misc, ok, &bts_caps);
}
