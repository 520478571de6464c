// SPDX-License-Identifier: GPL-2.0
/*
 * Which MSR writes the modelled CPU accepts: the #GP rules of SDM Vol. 3C
 * 36.2.7 (Tables 36-6 to 36-9) and 36.3.1 (Table 36-11), checked against
 * the profile's CPUID and the current register state.  Pure: no side
 * effects, so KUnit drives it directly.
 */
#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/minmax.h>
#include <linux/pt_trace.h>
#include <asm/processor.h>

#include "../regs.h"
#include "model.h"

/* IA32_RTIT_CTL bits the model knows beyond the uapi ones. */
#define PT_CTL_INJECT_PSB_PMI	BIT_ULL(56)	/* EBX[6] */

#define PT_STATUS_RO_BITS	(PT_STATUS_FILTEREN | PT_STATUS_CONTEXTEN | \
				 PT_STATUS_TRIGGEREN)

static const char * const pt_gp_names[PT_GP_NR] = {
	[PT_GP_NONE]		= "none",
	[PT_GP_UNKNOWN_MSR]	= "unknown_msr",
	[PT_GP_RESERVED]	= "reserved_bit",
	[PT_GP_ENCODING]	= "bad_encoding",
	[PT_GP_TRACEEN]		= "write_while_traceen",
	[PT_GP_CTL_CHANGE]	= "ctl_change_while_traceen",
	[PT_GP_NO_OUTPUT]	= "output_scheme_unsupported",
	[PT_GP_NONCANONICAL]	= "noncanonical_addr",
	[PT_GP_BDM106]		= "bdm106_branchen",
	[PT_GP_READONLY]	= "read_only_msr",
	[PT_GP_VMX]		= "traceen_in_vmx_operation",
	[PT_GP_INJECTED]	= "injected_disable_fault",
	[PT_GP_BTS]		= "bts_unsupported",
};

const char *pt_model_gp_str(enum pt_model_gp why)
{
	return why < PT_GP_NR ? pt_gp_names[why] : "?";
}

/* RTIT_CTL bits that are not reserved on this profile. */
static u64 pt_ctl_defined(const struct pt_model_profile *p)
{
	u64 v = PT_CTL_TRACEEN | PT_CTL_OS | PT_CTL_USER | PT_CTL_TSCEN |
		PT_CTL_DISRETC | PT_CTL_BRANCHEN;
	unsigned int n;

	if (pt_mp_ecx(p, PT_MP_TOPA))
		v |= PT_CTL_TOPA;
	if (pt_mp_ecx(p, PT_MP_FABRIC))
		v |= PT_CTL_FABRICEN;
	if (pt_mp_ebx(p, PT_MP_CR3))
		v |= PT_CTL_CR3FILTER;
	if (pt_mp_ebx(p, PT_MP_PSB_CYC))
		v |= PT_CTL_CYCEN | PT_CTL_CYCTHRESH_MASK | PT_CTL_PSBFREQ_MASK;
	if (pt_mp_ebx(p, PT_MP_MTC))
		v |= PT_CTL_MTCEN | PT_CTL_MTCFREQ_MASK;
	if (pt_mp_ebx(p, PT_MP_PTWRITE))
		v |= PT_CTL_PTWEN | PT_CTL_FUPONPTW;
	if (pt_mp_ebx(p, PT_MP_PWR))
		v |= PT_CTL_PWREVTEN;
	if (pt_mp_ebx(p, PT_MP_EVENT))
		v |= PT_CTL_EVENTEN;
	if (pt_mp_ebx(p, PT_MP_NOTNT))
		v |= PT_CTL_NOTNT;
	if (pt_mp_ebx(p, PT_MP_PSB_PMI))
		v |= PT_CTL_INJECT_PSB_PMI;
	for (n = 0; n < pt_mp_nr_ranges(p); n++)
		v |= PT_CTL_ADDR_CFG_MASK(n);
	return v;
}

static bool pt_in_bitmap(u32 bitmap, unsigned int v)
{
	return v < 32 && (bitmap & BIT(v));
}

static int pt_check_ctl(const struct pt_model_profile *p,
			const struct pt_model_regs *cur, u64 val,
			enum pt_model_gp *why)
{
	unsigned int n;

	/*
	 * With TraceEn=1 the only accepted writes are the same value and
	 * writes that clear TraceEn (36.2.7.3, "Other Writes to
	 * IA32_RTIT_CTL"; note to Table 36-6).
	 */
	if ((cur->ctl & PT_CTL_TRACEEN) && val != cur->ctl &&
	    (val & PT_CTL_TRACEEN)) {
		*why = PT_GP_CTL_CHANGE;
		return -EIO;
	}
	if (val & ~pt_ctl_defined(p)) {
		*why = PT_GP_RESERVED;
		return -EIO;
	}
	/* Encodings must be in the CPUID bitmaps (Table 36-6). */
	if (pt_mp_ebx(p, PT_MP_MTC) &&
	    !pt_in_bitmap(pt_mp_mtc_bitmap(p),
			  (val & PT_CTL_MTCFREQ_MASK) >> PT_CTL_MTCFREQ_SHIFT)) {
		*why = PT_GP_ENCODING;
		return -EIO;
	}
	if (pt_mp_ebx(p, PT_MP_PSB_CYC) &&
	    (!pt_in_bitmap(pt_mp_cyc_bitmap(p),
			   (val & PT_CTL_CYCTHRESH_MASK) >> PT_CTL_CYCTHRESH_SHIFT) ||
	     !pt_in_bitmap(pt_mp_psb_bitmap(p),
			   (val & PT_CTL_PSBFREQ_MASK) >> PT_CTL_PSBFREQ_SHIFT))) {
		*why = PT_GP_ENCODING;
		return -EIO;
	}
	/* ADDRn_CFG accepts 0..2 (Table 36-11, EBX[2]). */
	for (n = 0; n < pt_mp_nr_ranges(p); n++) {
		u64 cfg = (val & PT_CTL_ADDR_CFG_MASK(n)) >>
			  PT_CTL_ADDR_CFG_SHIFT(n);

		if (cfg > PT_ADDR_CFG_STOP) {
			*why = PT_GP_ENCODING;
			return -EIO;
		}
	}
	if (val & PT_CTL_TRACEEN) {
		/*
		 * In VMX operation without IA32_VMX_MISC[14], a write that
		 * sets TraceEn #GPs (SDM Vol. 3C 36.5, "VMX support").
		 */
		if (cur->vmxe && !(p->vmx_misc & BIT_ULL(14))) {
			*why = PT_GP_VMX;
			return -EIO;
		}
		/* TraceEn with ToPA=0, FabricEn=0 needs single range. */
		if (!(val & (PT_CTL_TOPA | PT_CTL_FABRICEN)) &&
		    !pt_mp_ecx(p, PT_MP_SINGLE)) {
			*why = PT_GP_NO_OUTPUT;
			return -EIO;
		}
		/*
		 * BDM106: the model reads the erratum as "tracing with
		 * BranchEn=0 faults"; a write that also clears TraceEn is
		 * accepted so software can always stop.
		 */
		if (p->branchen_always_on && !(val & PT_CTL_BRANCHEN)) {
			*why = PT_GP_BDM106;
			return -EIO;
		}
	}
	return 0;
}

static int pt_check_status(const struct pt_model_profile *p,
			   const struct pt_model_regs *cur, u64 val,
			   u64 *store, enum pt_model_gp *why)
{
	u64 writable = PT_STATUS_ERROR | PT_STATUS_STOPPED;

	if (pt_mp_ebx(p, PT_MP_PSB_CYC))
		writable |= PT_STATUS_BYTECNT_MASK;
	if (pt_mp_ebx(p, PT_MP_PSB_PMI))
		writable |= PT_STATUS_PENDPSB | PT_STATUS_PENDTOPAPMI;
	/* FilterEn, ContextEn, TriggerEn: "Writes are ignored". */
	if (val & ~(writable | PT_STATUS_RO_BITS)) {
		*why = PT_GP_RESERVED;
		return -EIO;
	}
	*store = (cur->status & PT_STATUS_RO_BITS) | (val & writable);
	return 0;
}

static bool pt_has_output(const struct pt_model_profile *p)
{
	return pt_mp_ecx(p, PT_MP_TOPA) || pt_mp_ecx(p, PT_MP_SINGLE);
}

/*
 * Canonical for the linear-address width of the CPU the model runs on
 * (48, or 57 with LA57), as the WRMSR of silicon checks it.
 */
bool pt_model_canonical(u64 v)
{
	unsigned int sh = 64 - clamp_t(unsigned int,
				       boot_cpu_data.x86_virt_bits, 32, 64);

	return (u64)((s64)(v << sh) >> sh) == v;
}

/* Is msr an existing ADDRn_A/B register on this profile? */
static bool pt_is_addr(const struct pt_model_profile *p, u32 msr)
{
	return msr >= PT_MSR_RTIT_ADDR0_A &&
	       msr < PT_MSR_RTIT_ADDR0_A + 2 * pt_mp_nr_ranges(p);
}

int pt_model_check_rdmsr(const struct pt_model_profile *p, u32 msr,
			 enum pt_model_gp *why)
{
	int ret;

	*why = PT_GP_NONE;
	ret = pt_model_bts_check_rdmsr(p, msr, why);
	if (ret != -ENOENT)
		return ret;
	switch (msr) {
	case PT_MSR_RTIT_CTL:
	case PT_MSR_RTIT_STATUS:
	case PT_MSR_PERF_GLOBAL_STATUS:
	case PT_MSR_PLATFORM_INFO:
	case PT_MSR_VMX_MISC:
		return 0;
	case PT_MSR_RTIT_OUTPUT_BASE:
	case PT_MSR_RTIT_OUTPUT_MASK:
		if (pt_has_output(p))
			return 0;
		break;
	case PT_MSR_RTIT_CR3_MATCH:
		if (pt_mp_ebx(p, PT_MP_CR3))
			return 0;
		break;
	default:
		if (pt_is_addr(p, msr))
			return 0;
		break;
	}
	*why = PT_GP_UNKNOWN_MSR;
	return -EIO;
}

int pt_model_check_wrmsr(const struct pt_model_profile *p,
			 const struct pt_model_regs *cur, u32 msr, u64 val,
			 u64 *store, enum pt_model_gp *why)
{
	bool tracing = cur->ctl & PT_CTL_TRACEEN;
	u64 phys_mask = GENMASK_ULL(p->phys_bits - 1, 0);
	int ret;

	*why = PT_GP_NONE;
	*store = val;
	/* Not PT MSRs: writable whatever TraceEn (bts_rules.c). */
	ret = pt_model_bts_check_wrmsr(p, msr, val, store, why);
	if (ret != -ENOENT)
		return ret;

	if (msr == PT_MSR_RTIT_CTL)
		return pt_check_ctl(p, cur, val, why);
	if (msr == PT_MSR_PERF_GLOBAL_STATUS_RESET) {
		/* SDM Vol. 3B 20.2.4: reserved bits #GP (bit 55 is modelled). */
		if (val & ~p->gsr_valid) {
			*why = PT_GP_RESERVED;
			return -EIO;
		}
		return 0;
	}
	if (msr == PT_MSR_PERF_GLOBAL_STATUS || msr == PT_MSR_PLATFORM_INFO ||
	    msr == PT_MSR_VMX_MISC) {
		*why = PT_GP_READONLY;
		return -EIO;
	}
	if (pt_model_check_rdmsr(p, msr, why))
		return -EIO;	/* not present on this profile */

	/* Every other PT MSR: only with TraceEn=0 (36.2.7.4 - 36.2.7.8). */
	if (tracing) {
		*why = PT_GP_TRACEEN;
		return -EIO;
	}
	switch (msr) {
	case PT_MSR_RTIT_STATUS:
		return pt_check_status(p, cur, val, store, why);
	case PT_MSR_RTIT_OUTPUT_BASE:
		/* Bits 6:0 and bits at or above MAXPHYADDR are reserved. */
		if (val & (GENMASK_ULL(6, 0) | ~phys_mask)) {
			*why = PT_GP_RESERVED;
			return -EIO;
		}
		return 0;
	case PT_MSR_RTIT_OUTPUT_MASK:
		/* LowerMask, bits 6:0, is forced to 1. */
		*store = val | PT_MASK_LOWER;
		return 0;
	case PT_MSR_RTIT_CR3_MATCH:
		if (val & GENMASK_ULL(4, 0)) {
			*why = PT_GP_RESERVED;
			return -EIO;
		}
		return 0;
	default:
		/* ADDRn_A/B: must be sign-extended (36.2.7.5). */
		if (!pt_model_canonical(val)) {
			*why = PT_GP_NONCANONICAL;
			return -EIO;
		}
		return 0;
	}
}
