// SPDX-License-Identifier: GPL-2.0
/*
 * Compose IA32_RTIT_CTL from a user configuration (SDM Vol. 3C, 36.2.7.2,
 * Table 36-6) and refuse, before any MSR is written, every request the
 * CPU would answer with #GP: reserved bits, encodings missing from the
 * CPUID bitmaps of leaf 0x14 subleaf 1, features CPUID does not list,
 * non-canonical address ranges and CR3_MATCH values with reserved bits.
 */
#include <linux/bitfield.h>
#include <linux/bits.h>
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/pt_trace.h>

#include "caps.h"
#include "rtit_ctl.h"

/*
 * ADDRn_A/B hold a linear address, canonical for the CPU's linear-address
 * width (@virt_bits, CPUID 0x80000008 EAX[15:8]: 48, or 57 with LA57):
 * the bits above it copy its top bit.
 */
bool pt_addr_is_canonical(u64 addr, unsigned int virt_bits)
{
	unsigned int sh = 64 - clamp(virt_bits, 32U, 64U);

	return (u64)((s64)(addr << sh) >> sh) == addr;
}

int pt_rtit_check_range(const struct pt_caps *caps, unsigned int index,
			unsigned int cfg, u64 start, u64 end,
			unsigned int virt_bits)
{
	if (index >= PT_TRACE_MAX_ADDR_RANGES)
		return -EINVAL;
	if (index >= caps->num_addr_ranges)
		return (cfg || start || end) ? -EOPNOTSUPP : 0;
	/* Encodings 3..15 are reserved. */
	if (cfg > PT_ADDR_CFG_STOP)
		return -EINVAL;
	/* The MSRs are written whenever the range exists: always canonical. */
	if (!pt_addr_is_canonical(start, virt_bits) ||
	    !pt_addr_is_canonical(end, virt_bits))
		return -EINVAL;
	if (cfg != PT_ADDR_CFG_OFF && start > end)
		return -EINVAL;
	return 0;
}

/* A period/threshold field: its encoding must be listed in @bitmap. */
static int pt_check_encoding(u64 ctl, u64 mask, bool enabled, u32 bitmap)
{
	unsigned int val = (ctl & mask) >> __ffs64(mask);

	if (!enabled && !val)
		return 0;
	return (bitmap & BIT(val)) ? 0 : -EINVAL;
}

/*
 * IA32_RTIT_CR3_MATCH holds CR3[63:5]; only bits 4:0 are reserved (SDM
 * Vol. 3C, 36.2.7.6).  Bits above MAXPHYADDR are not: a CR3 carries LAM
 * (bits 61, 62) and other non-address bits there.
 */
static int pt_check_cr3(const struct pt_trace_config *cfg,
			const struct pt_caps *caps)
{
	if (!pt_cap(caps, PT_CAP_CR3_FILTER))
		return cfg->cr3_match ? -EOPNOTSUPP : 0;
	if (cfg->cr3_match & GENMASK_ULL(4, 0))
		return -EINVAL;
	return 0;
}

int pt_rtit_ctl_compose(const struct pt_trace_config *cfg,
			const struct pt_caps *caps, unsigned int virt_bits,
			u64 *ctl_out)
{
	u64 ctl = cfg->ctl;
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(cfg->reserved); i++)
		if (cfg->reserved[i])
			return -EINVAL;
	if (ctl & PT_CTL_DRIVER_BITS)
		return -EINVAL;
	if (ctl & ~PT_CTL_ARCH_BITS)
		return -EINVAL;
	if (ctl & ~caps->ctl_valid)
		return -EOPNOTSUPP;

	switch (cfg->output) {
	case PT_OUTPUT_AUTO:
		break;
	case PT_OUTPUT_TOPA:
		if (!pt_cap(caps, PT_CAP_TOPA))
			return -EOPNOTSUPP;
		break;
	case PT_OUTPUT_SINGLE:
		if (!pt_cap(caps, PT_CAP_SINGLE_RANGE))
			return -EOPNOTSUPP;
		break;
	default:
		return -EINVAL;
	}

	switch (cfg->mode) {
	case PT_MODE_FLIGHT:
		break;
	case PT_MODE_STREAM:
		/* INT and STOP are ToPA entry bits: no ToPA, no streaming. */
		if (!pt_cap(caps, PT_CAP_TOPA))
			return -EOPNOTSUPP;
		if (cfg->output == PT_OUTPUT_SINGLE)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}

	if (pt_cap(caps, PT_CAP_MTC)) {
		ret = pt_check_encoding(ctl, PT_CTL_MTCFREQ_MASK,
					ctl & PT_CTL_MTCEN, caps->mtc_periods);
		if (ret)
			return ret;
	}
	if (pt_cap(caps, PT_CAP_PSB_CYC)) {
		ret = pt_check_encoding(ctl, PT_CTL_CYCTHRESH_MASK, false,
					caps->cyc_thresholds);
		if (ret)
			return ret;
		ret = pt_check_encoding(ctl, PT_CTL_PSBFREQ_MASK, false,
					caps->psb_periods);
		if (ret)
			return ret;
	}

	ret = pt_check_cr3(cfg, caps);
	if (ret)
		return ret;

	for (i = 0; i < PT_TRACE_MAX_ADDR_RANGES; i++) {
		unsigned int acfg = (ctl & PT_CTL_ADDR_CFG_MASK(i)) >>
				    PT_CTL_ADDR_CFG_SHIFT(i);

		ret = pt_rtit_check_range(caps, i, acfg, cfg->addr[i].start,
					  cfg->addr[i].end, virt_bits);
		if (ret)
			return ret;
	}

	/* BDM106: clearing BranchEn faults on Broadwell; keep it set. */
	if (caps->quirks & PT_QUIRK_BRANCHEN_ALWAYS_ON)
		ctl |= PT_CTL_BRANCHEN;

	*ctl_out = ctl;
	return 0;
}
