// SPDX-License-Identifier: GPL-2.0
/*
 * The hardware backend: the calling CPU's own CPUID and MSRs.  The _safe
 * accessors turn a #GP into -EIO instead of an oops, so a driver bug on a
 * CPU that behaves differently from its CPUID is reported, not fatal.
 */
#include <linux/errno.h>
#include <linux/pt_trace.h>
#include <asm/apic.h>
#include <asm/msr.h>
#include <asm/processor.h>
#include <asm/processor-flags.h>
#include <asm/special_insns.h>

#include "hw.h"

static void pt_msr_cpuid(u32 leaf, u32 subleaf, struct pt_cpuid_regs *r)
{
	cpuid_count(leaf, subleaf, &r->eax, &r->ebx, &r->ecx, &r->edx);
}

static int pt_msr_rdmsr(u32 msr, u64 *val)
{
	return rdmsrl_safe(msr, val) ? -EIO : 0;
}

static int pt_msr_wrmsr(u32 msr, u64 val)
{
	return wrmsrl_safe(msr, val) ? -EIO : 0;
}

/*
 * The local APIC masks LVTPC when it delivers a PMI; re-arm it with NMI
 * delivery, as perf's handler does, so the next PMI is not lost when perf
 * is not the one re-arming it.
 */
static void pt_msr_pmi_rearm(void)
{
	/* Through 'apic': apic_write()'s static call is not exported. */
	apic->write(APIC_LVTPC, APIC_DM_NMI);
}

static bool pt_msr_vmx_on(void)
{
	return __read_cr4() & X86_CR4_VMXE;
}

const struct pt_hw_ops pt_hw_msr_ops = {
	.name		= "hw",
	.backend	= PT_BACKEND_HW,
	.cpuid		= pt_msr_cpuid,
	.rdmsr		= pt_msr_rdmsr,
	.wrmsr		= pt_msr_wrmsr,
	.pmi_rearm	= pt_msr_pmi_rearm,
	.vmx_on		= pt_msr_vmx_on,
};
