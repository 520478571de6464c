// SPDX-License-Identifier: GPL-2.0
/*
 * Decode the PT capabilities from CPUID (SDM Vol. 3C, 36.3.1, Table 36-2).
 *
 * pt_caps_decode() is pure: it only interprets the raw CPUID answers, so
 * the KUnit suite can run it on the published values of real CPUs.
 */
#include <linux/bitfield.h>
#include <linux/string.h>
#include <linux/pt_trace.h>

#include "caps.h"
#include "regs.h"

struct pt_caps pt_caps;

#define LEAF1_ECX_VMX			BIT(5)
#define LEAF7_EBX_INTEL_PT		BIT(25)

/* CPUID.(EAX=14H,ECX=1) fields. */
#define LEAF14_1_EAX_NUM_RANGES		GENMASK(2, 0)
#define LEAF14_1_EAX_MTC_PERIODS	GENMASK(31, 16)
#define LEAF14_1_EBX_CYC_THRESHOLDS	GENMASK(15, 0)
#define LEAF14_1_EBX_PSB_PERIODS	GENMASK(31, 16)

/* "GenuineIntel" as CPUID leaf 0 returns it in EBX, EDX, ECX. */
static bool pt_vendor_is_intel(const struct pt_cpuid_regs *l0)
{
	return l0->ebx == 0x756e6547 && l0->edx == 0x49656e69 &&
	       l0->ecx == 0x6c65746e;
}

static void pt_decode_fms(u32 eax, struct pt_caps *caps)
{
	u32 family = (eax >> 8) & 0xf;
	u32 model = (eax >> 4) & 0xf;

	if (family == 0xf)
		family += (eax >> 20) & 0xff;
	if (family >= 6)
		model += ((eax >> 16) & 0xf) << 4;
	caps->family = family;
	caps->model = model;
	caps->stepping = eax & 0xf;
}

/*
 * Broadwell (family 6, models 0x3d, 0x47, 0x4f, 0x56) faults when BranchEn
 * is cleared: erratum BDM106.
 */
static bool pt_is_broadwell(const struct pt_caps *caps)
{
	if (caps->family != 6)
		return false;
	return caps->model == 0x3d || caps->model == 0x47 ||
	       caps->model == 0x4f || caps->model == 0x56;
}

/*
 * Errata TGL052, ADL037 and RPL017, "Trace May Contain Incorrect Data
 * When Configured With Single Range Output Larger Than 4KB": silently
 * wrong data, not a fault.  Later cores share those designs and their
 * specification updates may list it under other numbers, so (as perf's
 * pt.c, which limits every CPU) the limit applies to every CPU except
 * the generations released before Tiger Lake, listed here.  A CPU
 * missing from the list loses only single range above 4 KiB (ToPA is
 * used instead); one wrongly listed would corrupt traces.
 */
static bool pt_single_range_4k_only(const struct pt_caps *caps)
{
	static const u8 before_tgl[] = {
		0x3d, 0x47, 0x4f, 0x56,		/* Broadwell */
		0x4e, 0x5e, 0x55,		/* Skylake, Skylake-X */
		0x8e, 0x9e, 0xa5, 0xa6,		/* Kaby/Coffee/Comet Lake */
		0x66,				/* Cannon Lake */
		0x7d, 0x7e, 0x6a, 0x6c,		/* Ice Lake */
		0x5c, 0x5f, 0x7a,		/* Goldmont, Goldmont Plus */
	};
	unsigned int i;

	if (caps->family != 6)
		return true;
	for (i = 0; i < ARRAY_SIZE(before_tgl); i++)
		if (caps->model == before_tgl[i])
			return false;
	return true;
}

/* The RTIT_CTL bits user space may set, given what the CPU enumerates. */
static u64 pt_ctl_valid(const struct pt_caps *caps)
{
	u64 v = PT_CTL_OS | PT_CTL_USER | PT_CTL_TSCEN | PT_CTL_DISRETC |
		PT_CTL_BRANCHEN;
	unsigned int n;

	if (pt_cap(caps, PT_CAP_PSB_CYC))
		v |= PT_CTL_CYCEN | PT_CTL_CYCTHRESH_MASK | PT_CTL_PSBFREQ_MASK;
	if (pt_cap(caps, PT_CAP_CR3_FILTER))
		v |= PT_CTL_CR3FILTER;
	if (pt_cap(caps, PT_CAP_MTC))
		v |= PT_CTL_MTCEN | PT_CTL_MTCFREQ_MASK;
	if (pt_cap(caps, PT_CAP_PTWRITE))
		v |= PT_CTL_PTWEN | PT_CTL_FUPONPTW;
	if (pt_cap(caps, PT_CAP_POWER_EVENTS))
		v |= PT_CTL_PWREVTEN;
	if (pt_cap(caps, PT_CAP_EVENT_TRACE))
		v |= PT_CTL_EVENTEN;
	if (pt_cap(caps, PT_CAP_TNT_DISABLE))
		v |= PT_CTL_NOTNT;
	for (n = 0; n < caps->num_addr_ranges; n++)
		v |= PT_CTL_ADDR_CFG_MASK(n);
	return v;
}

enum pt_caps_verdict pt_caps_decode(const struct pt_cpuid_raw *raw,
				    struct pt_caps *caps)
{
	const struct pt_cpuid_regs *s0 = &raw->leaf14[0];
	const struct pt_cpuid_regs *s1 = &raw->leaf14[1];

	memset(caps, 0, sizeof(*caps));
	caps->raw = *raw;
	pt_decode_fms(raw->leaf1.eax, caps);

	caps->vmx = raw->leaf1.ecx & LEAF1_ECX_VMX;

	if (!pt_vendor_is_intel(&raw->leaf0))
		return PT_CAPS_NOT_INTEL;
	if (raw->leaf0.eax < 0x14)
		return PT_CAPS_NO_LEAF14;
	if (!(raw->leaf7.ebx & LEAF7_EBX_INTEL_PT))
		return PT_CAPS_NO_PT;

	/* EBX[8:0] map one to one onto PT_CAP_* bits 8:0. */
	caps->flags = s0->ebx & 0x1ff;
	if (s0->ecx & BIT(0))
		caps->flags |= PT_CAP_TOPA;
	if (s0->ecx & BIT(1))
		caps->flags |= PT_CAP_TOPA_MULTI;
	if (s0->ecx & BIT(2))
		caps->flags |= PT_CAP_SINGLE_RANGE;
	if (s0->ecx & BIT(3))
		caps->flags |= PT_CAP_TRACE_TRANSPORT;
	if (s0->ecx & BIT(31))
		caps->flags |= PT_CAP_LIP;

	/* Subleaf 1 exists only when EAX of subleaf 0 says so. */
	if (s0->eax >= 1) {
		if (pt_cap(caps, PT_CAP_IP_FILTER))
			caps->num_addr_ranges =
				FIELD_GET(LEAF14_1_EAX_NUM_RANGES, s1->eax);
		if (pt_cap(caps, PT_CAP_MTC))
			caps->mtc_periods =
				FIELD_GET(LEAF14_1_EAX_MTC_PERIODS, s1->eax);
		if (pt_cap(caps, PT_CAP_PSB_CYC)) {
			caps->cyc_thresholds =
				FIELD_GET(LEAF14_1_EBX_CYC_THRESHOLDS, s1->ebx);
			caps->psb_periods =
				FIELD_GET(LEAF14_1_EBX_PSB_PERIODS, s1->ebx);
		}
	}
	if (caps->num_addr_ranges > PT_TRACE_MAX_ADDR_RANGES)
		caps->num_addr_ranges = PT_TRACE_MAX_ADDR_RANGES;

	if (pt_is_broadwell(caps))
		caps->quirks |= PT_QUIRK_BRANCHEN_ALWAYS_ON;
	if (pt_single_range_4k_only(caps))
		caps->quirks |= PT_QUIRK_SINGLE_RANGE_4K;

	caps->ctl_valid = pt_ctl_valid(caps);

	if (!pt_cap(caps, PT_CAP_TOPA) && !pt_cap(caps, PT_CAP_SINGLE_RANGE))
		return PT_CAPS_NO_OUTPUT;
	return PT_CAPS_OK;
}

void pt_caps_set_vmx_misc(struct pt_caps *caps, u64 vmx_misc)
{
	caps->vmx_blocks_trace = caps->vmx &&
				 !(vmx_misc & PT_VMX_MISC_PT_IN_VMX);
}

const char *pt_caps_verdict_str(enum pt_caps_verdict v)
{
	switch (v) {
	case PT_CAPS_OK:
		return "Intel PT present";
	case PT_CAPS_NOT_INTEL:
		return "not an Intel CPU (CPUID leaf 0 vendor is not GenuineIntel)";
	case PT_CAPS_NO_LEAF14:
		return "CPUID leaf 0x14 is not enumerated (max basic leaf < 0x14)";
	case PT_CAPS_NO_PT:
		return "this CPU has no Intel PT: CPUID.(EAX=07H):EBX[25]=0";
	case PT_CAPS_NO_OUTPUT:
		return "Intel PT has neither ToPA nor single-range output";
	}
	return "unknown";
}

/* Read the raw CPUID answers through the selected backend. */
void pt_caps_read_raw(struct pt_cpuid_raw *raw)
{
	memset(raw, 0, sizeof(*raw));
	pt_cpuid(0, 0, &raw->leaf0);
	pt_cpuid(1, 0, &raw->leaf1);
	if (raw->leaf0.eax >= 7)
		pt_cpuid(7, 0, &raw->leaf7);
	if (raw->leaf0.eax >= 0x14) {
		pt_cpuid(0x14, 0, &raw->leaf14[0]);
		if (raw->leaf14[0].eax >= 1)
			pt_cpuid(0x14, 1, &raw->leaf14[1]);
	}
	if (raw->leaf0.eax >= 0x15)
		pt_cpuid(0x15, 0, &raw->leaf15);
}
