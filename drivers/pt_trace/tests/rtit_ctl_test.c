// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: RTIT_CTL validation and composition on the CPUID values of real
 * CPUs (decoded with pt_caps_decode(), as at module load).
 */
#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/pt_trace.h>

#include "../caps.h"
#include "../rtit_ctl.h"

#define INTEL_L0 { .eax = 0x16, .ebx = 0x756e6547, .edx = 0x49656e69, \
		   .ecx = 0x6c65746e }

/* Skylake client (06_5E): CR3, PSB/CYC, IP filter, MTC; 2 ranges. */
static const struct pt_cpuid_raw skl_raw = {
	.leaf0 = INTEL_L0,
	.leaf1 = { .eax = 0x506e3 },
	.leaf7 = { .ebx = 1 << 25 },
	.leaf14 = { { .eax = 1, .ebx = 0xf, .ecx = 0x7 },
		    { .eax = 0x02490002, .ebx = 0x003f3fff } },
};

/* Broadwell (06_3D): CR3 filter only, single-entry ToPA, BDM106. */
static const struct pt_cpuid_raw bdw_raw = {
	.leaf0 = INTEL_L0,
	.leaf1 = { .eax = 0x306d4 },
	.leaf7 = { .ebx = 1 << 25 },
	.leaf14 = { { .eax = 0, .ebx = 0x1, .ecx = 0x5 } },
};

static struct pt_trace_config base_cfg(void)
{
	struct pt_trace_config c = { .size = sizeof(c) };

	c.ctl = PT_CTL_BRANCHEN | PT_CTL_USER;
	return c;
}

static int compose(const struct pt_cpuid_raw *raw, struct pt_trace_config c,
		   u64 *ctl)
{
	struct pt_caps caps;

	if (pt_caps_decode(raw, &caps) != PT_CAPS_OK)
		return -ENODEV;
	return pt_rtit_ctl_compose(&c, &caps, 48, ctl);
}

static void rtit_valid_skl(struct kunit *test)
{
	struct pt_trace_config c = base_cfg();
	u64 ctl = 0;

	c.ctl |= PT_CTL_CYCEN | PT_CTL_MTCEN | PT_CTL_TSCEN | PT_CTL_OS |
		 (3ULL << PT_CTL_MTCFREQ_SHIFT) | (13ULL << PT_CTL_CYCTHRESH_SHIFT) |
		 (5ULL << PT_CTL_PSBFREQ_SHIFT) | PT_CTL_CR3FILTER |
		 ((u64)PT_ADDR_CFG_FILTER << PT_CTL_ADDR_CFG_SHIFT(1));
	c.cr3_match = 0x12345000;
	c.addr[1].start = 0x400000;
	c.addr[1].end = 0x500000;
	KUNIT_EXPECT_EQ(test, compose(&skl_raw, c, &ctl), 0);
	KUNIT_EXPECT_EQ(test, ctl, c.ctl);
	KUNIT_EXPECT_FALSE(test, ctl & (PT_CTL_TRACEEN | PT_CTL_TOPA));
}

static void rtit_invalid_skl(struct kunit *test)
{
	struct pt_trace_config c;
	u64 ctl;

	c = base_cfg(); c.ctl |= PT_CTL_TRACEEN;
	KUNIT_EXPECT_EQ(test, compose(&skl_raw, c, &ctl), -EINVAL);
	c = base_cfg(); c.ctl |= PT_CTL_TOPA;
	KUNIT_EXPECT_EQ(test, compose(&skl_raw, c, &ctl), -EINVAL);
	c = base_cfg(); c.ctl |= BIT_ULL(18);		/* reserved */
	KUNIT_EXPECT_EQ(test, compose(&skl_raw, c, &ctl), -EINVAL);
	c = base_cfg(); c.ctl |= PT_CTL_PTWEN;		/* no PTWRITE */
	KUNIT_EXPECT_EQ(test, compose(&skl_raw, c, &ctl), -EOPNOTSUPP);
	c = base_cfg(); c.ctl |= PT_CTL_ADDR_CFG_MASK(2) & (1ULL << 40);
	KUNIT_EXPECT_EQ(test, compose(&skl_raw, c, &ctl), -EOPNOTSUPP);
	c = base_cfg(); c.ctl |= PT_CTL_MTCEN | (1ULL << PT_CTL_MTCFREQ_SHIFT);
	KUNIT_EXPECT_EQ(test, compose(&skl_raw, c, &ctl), -EINVAL);
	c = base_cfg(); c.ctl |= 14ULL << PT_CTL_CYCTHRESH_SHIFT;
	KUNIT_EXPECT_EQ(test, compose(&skl_raw, c, &ctl), -EINVAL);
	c = base_cfg(); c.ctl |= 6ULL << PT_CTL_PSBFREQ_SHIFT;
	KUNIT_EXPECT_EQ(test, compose(&skl_raw, c, &ctl), -EINVAL);
	c = base_cfg(); c.cr3_match = 0x1003;
	KUNIT_EXPECT_EQ(test, compose(&skl_raw, c, &ctl), -EINVAL);
	/* Only CR3_MATCH[4:0] is reserved: LAM bits and the like pass. */
	c = base_cfg(); c.cr3_match = (1ULL << 50) | (1ULL << 61);
	KUNIT_EXPECT_EQ(test, compose(&skl_raw, c, &ctl), 0);
	c = base_cfg(); c.ctl |= 3ULL << PT_CTL_ADDR_CFG_SHIFT(0);
	KUNIT_EXPECT_EQ(test, compose(&skl_raw, c, &ctl), -EINVAL);
	c = base_cfg(); c.addr[0].start = 0x0000800000000000ULL;
	KUNIT_EXPECT_EQ(test, compose(&skl_raw, c, &ctl), -EINVAL);
	c = base_cfg(); c.ctl |= 1ULL << PT_CTL_ADDR_CFG_SHIFT(0);
	c.addr[0].start = 0x2000; c.addr[0].end = 0x1000;
	KUNIT_EXPECT_EQ(test, compose(&skl_raw, c, &ctl), -EINVAL);
	c = base_cfg(); c.addr[3].start = 0x1000;	/* range absent */
	KUNIT_EXPECT_EQ(test, compose(&skl_raw, c, &ctl), -EOPNOTSUPP);
	c = base_cfg(); c.mode = PT_MODE_STREAM;
	KUNIT_EXPECT_EQ(test, compose(&skl_raw, c, &ctl), 0);
	c.output = PT_OUTPUT_SINGLE;	/* no INT/STOP in single range */
	KUNIT_EXPECT_EQ(test, compose(&skl_raw, c, &ctl), -EINVAL);
	c = base_cfg(); c.output = 3;
	KUNIT_EXPECT_EQ(test, compose(&skl_raw, c, &ctl), -EINVAL);
	c = base_cfg(); c.reserved[3] = 1;
	KUNIT_EXPECT_EQ(test, compose(&skl_raw, c, &ctl), -EINVAL);
}

static void rtit_bdw(struct kunit *test)
{
	struct pt_trace_config c = base_cfg();
	u64 ctl = 0;

	/* BDM106: BranchEn stays on even when not asked for. */
	c.ctl = PT_CTL_USER | PT_CTL_CR3FILTER;
	c.cr3_match = 0x1000;
	KUNIT_EXPECT_EQ(test, compose(&bdw_raw, c, &ctl), 0);
	KUNIT_EXPECT_TRUE(test, ctl & PT_CTL_BRANCHEN);
	c = base_cfg(); c.ctl |= PT_CTL_CYCEN;
	KUNIT_EXPECT_EQ(test, compose(&bdw_raw, c, &ctl), -EOPNOTSUPP);
	c = base_cfg(); c.ctl |= PT_CTL_MTCEN;
	KUNIT_EXPECT_EQ(test, compose(&bdw_raw, c, &ctl), -EOPNOTSUPP);
	c = base_cfg(); c.ctl |= 1ULL << PT_CTL_ADDR_CFG_SHIFT(0);
	KUNIT_EXPECT_EQ(test, compose(&bdw_raw, c, &ctl), -EOPNOTSUPP);
}

static void rtit_canonical(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, pt_addr_is_canonical(0, 48));
	KUNIT_EXPECT_TRUE(test, pt_addr_is_canonical(0x00007fffffffffffULL, 48));
	KUNIT_EXPECT_TRUE(test, pt_addr_is_canonical(0xffff800000000000ULL, 48));
	KUNIT_EXPECT_FALSE(test, pt_addr_is_canonical(0x0000800000000000ULL, 48));
	KUNIT_EXPECT_FALSE(test, pt_addr_is_canonical(0xfff0800000000000ULL, 48));
	/* LA57: 57-bit canonical. */
	KUNIT_EXPECT_TRUE(test, pt_addr_is_canonical(0x00ff800000000000ULL, 57));
	KUNIT_EXPECT_TRUE(test, pt_addr_is_canonical(0xff00000000000000ULL, 57));
	KUNIT_EXPECT_FALSE(test, pt_addr_is_canonical(0x0100000000000000ULL, 57));
}

static struct kunit_case rtit_ctl_cases[] = {
	KUNIT_CASE(rtit_valid_skl),
	KUNIT_CASE(rtit_invalid_skl),
	KUNIT_CASE(rtit_bdw),
	KUNIT_CASE(rtit_canonical),
	{}
};

static struct kunit_suite rtit_ctl_suite = {
	.name = "pt_trace_rtit_ctl",
	.test_cases = rtit_ctl_cases,
};

kunit_test_suite(rtit_ctl_suite);
