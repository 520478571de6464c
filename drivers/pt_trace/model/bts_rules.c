// SPDX-License-Identifier: GPL-2.0
/*
 * Which BTS-related MSR accesses the modelled CPU accepts (SDM Vol. 3B
 * 18.4.1 "IA32_DEBUGCTL", 18.7.8, Table 18-8; Vol. 4 for
 * IA32_MISC_ENABLE and IA32_DS_AREA), and the DS buffer management
 * area's layout rules.  Pure, as msr_rules.c.
 *
 * Strict where the SDM leaves it open, so that a driver which relies on
 * kindness fails here rather than on silicon:
 *  - DEBUGCTL bits other than LBR, BTF, TR, BTS, BTINT, BTS_OFF_OS/USR
 *    and the freeze bits #GP; BTS and BTINT #GP without CPUID.1:EDX.DS
 *    or with IA32_MISC_ENABLE.BTS_UNAVAILABLE set; BTS_OFF_OS/USR #GP
 *    without CPUID.1:ECX.DS-CPL.
 *  - IA32_DS_AREA exists only with DS and takes a canonical address.
 *  - IA32_MISC_ENABLE is read-only here (the driver has no business
 *    writing it; its writable bits are not modelled).
 *  - IA32_PEBS_ENABLE exists only with DS and IA32_MISC_ENABLE.PEBS_
 *    UNAVAILABLE clear; it takes a bit per general-purpose counter, the
 *    same bits at 32 (load latency) and a bit per fixed counter at 48
 *    (adaptive PEBS, Ice Lake's layout), the rest #GP.  Nothing stores
 *    PEBS records: it stands for perf's PEBS that another agent enables
 *    (the msr debugfs hook).
 */
#include <linux/errno.h>

#include "../bts_regs.h"
#include "model.h"

bool pt_model_bts_present(const struct pt_model_profile *p)
{
	return (p->leaf1.edx & BTS_CPUID1_EDX_DS) &&
	       !(p->misc_enable & BTS_MISC_ENABLE_BTS_UNAVAIL);
}

static bool pt_model_pebs_present(const struct pt_model_profile *p)
{
	return (p->leaf1.edx & BTS_CPUID1_EDX_DS) &&
	       !(p->misc_enable & BTS_MISC_ENABLE_PEBS_UNAVAIL);
}

static u64 pt_debugctl_valid(const struct pt_model_profile *p)
{
	u64 v = BTS_DEBUGCTL_LBR | BTS_DEBUGCTL_BTF | BTS_DEBUGCTL_TR |
		BTS_DEBUGCTL_FREEZE_LBRS | BTS_DEBUGCTL_FREEZE_PERFMON |
		BTS_DEBUGCTL_FREEZE_SMM;

	if (pt_model_bts_present(p))
		v |= BTS_DEBUGCTL_BTS | BTS_DEBUGCTL_BTINT;
	if (pt_model_bts_present(p) && (p->leaf1.ecx & BTS_CPUID1_ECX_DS_CPL))
		v |= BTS_DEBUGCTL_OFF_OS | BTS_DEBUGCTL_OFF_USR;
	return v;
}

int pt_model_bts_check_rdmsr(const struct pt_model_profile *p, u32 msr,
			     enum pt_model_gp *why)
{
	switch (msr) {
	case BTS_MSR_DEBUGCTL:
	case BTS_MSR_MISC_ENABLE:
		return 0;
	case BTS_MSR_DS_AREA:
		if (p->leaf1.edx & BTS_CPUID1_EDX_DS)
			return 0;
		*why = PT_GP_UNKNOWN_MSR;
		return -EIO;
	case BTS_MSR_PEBS_ENABLE:
		if (pt_model_pebs_present(p))
			return 0;
		*why = PT_GP_UNKNOWN_MSR;
		return -EIO;
	}
	return -ENOENT;
}

int pt_model_bts_check_wrmsr(const struct pt_model_profile *p, u32 msr,
			     u64 val, u64 *store, enum pt_model_gp *why)
{
	u64 bad;
	int ret = pt_model_bts_check_rdmsr(p, msr, why);

	if (ret)
		return ret;
	*store = val;
	switch (msr) {
	case BTS_MSR_MISC_ENABLE:
		*why = PT_GP_READONLY;
		return -EIO;
	case BTS_MSR_DS_AREA:
		if (!pt_model_canonical(val)) {
			*why = PT_GP_NONCANONICAL;
			return -EIO;
		}
		return 0;
	case BTS_MSR_PEBS_ENABLE:
		if (!(val & ~p->pebs_valid))
			return 0;
		*why = PT_GP_RESERVED;
		return -EIO;
	}
	bad = val & ~pt_debugctl_valid(p);
	if (!bad)
		return 0;
	*why = bad & (BTS_DEBUGCTL_BTS | BTS_DEBUGCTL_BTINT |
		      BTS_DEBUGCTL_OFF_OS | BTS_DEBUGCTL_OFF_USR) ?
	       PT_GP_BTS : PT_GP_RESERVED;
	return -EIO;
}

/*
 * The BTS fields of the DS buffer management area describe a buffer
 * (SDM Vol. 3B 18.4.4.1): base <= index <= absolute maximum, the
 * threshold within, and each an exact number of 24-byte records from
 * the base (the SDM asks for whole records; the model refuses anything
 * else rather than guess what silicon would store).
 */
bool pt_model_bts_layout_ok(const struct bts_ds_area *ds)
{
	u64 b = ds->bts_base;

	if (ds->bts_max <= b || ds->bts_index < b ||
	    ds->bts_index > ds->bts_max || ds->bts_thresh < b ||
	    ds->bts_thresh > ds->bts_max)
		return false;
	return !((ds->bts_max - b) % BTS_RECORD_SIZE) &&
	       !((ds->bts_index - b) % BTS_RECORD_SIZE) &&
	       !((ds->bts_thresh - b) % BTS_RECORD_SIZE);
}
