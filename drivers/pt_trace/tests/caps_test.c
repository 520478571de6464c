// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: CPUID decoding (caps.c).  The decoder must refuse non-Intel CPUs
 * and CPUs without PT, read subleaf 1 only when subleaf 0 says it exists,
 * gate each subleaf-1 field on its EBX capability, and flag the errata.
 */
#include <kunit/test.h>
#include <linux/pt_trace.h>

#include "../caps.h"

#define INTEL_L0(max) { .eax = (max), .ebx = 0x756e6547, .edx = 0x49656e69, \
			.ecx = 0x6c65746e }

/* Skylake client (06_5E): SDM Table 36-11 fields as enumerated there. */
static const struct pt_cpuid_raw skl = {
	.leaf0 = INTEL_L0(0x16),
	.leaf1 = { .eax = 0x506e3 },
	.leaf7 = { .ebx = 1 << 25 },
	.leaf14 = { { .eax = 1, .ebx = 0xf, .ecx = 0x7 },
		    { .eax = 0x02490002, .ebx = 0x003f3fff } },
};

static void caps_decode_skylake(struct kunit *test)
{
	struct pt_caps c;

	KUNIT_ASSERT_EQ(test, pt_caps_decode(&skl, &c), PT_CAPS_OK);
	KUNIT_EXPECT_EQ(test, c.family, 6U);
	KUNIT_EXPECT_EQ(test, c.model, 0x5eU);
	KUNIT_EXPECT_EQ(test, c.stepping, 3U);
	KUNIT_EXPECT_EQ(test, c.flags,
			PT_CAP_CR3_FILTER | PT_CAP_PSB_CYC | PT_CAP_IP_FILTER |
			PT_CAP_MTC | PT_CAP_TOPA | PT_CAP_TOPA_MULTI |
			PT_CAP_SINGLE_RANGE);
	KUNIT_EXPECT_EQ(test, c.num_addr_ranges, 2U);
	KUNIT_EXPECT_EQ(test, c.mtc_periods, 0x249U);
	KUNIT_EXPECT_EQ(test, c.cyc_thresholds, 0x3fffU);
	KUNIT_EXPECT_EQ(test, c.psb_periods, 0x3fU);
	KUNIT_EXPECT_EQ(test, c.quirks, 0U);
	KUNIT_EXPECT_TRUE(test, c.ctl_valid & PT_CTL_CYCEN);
	KUNIT_EXPECT_TRUE(test, c.ctl_valid & PT_CTL_ADDR_CFG_MASK(1));
	KUNIT_EXPECT_FALSE(test, c.ctl_valid & PT_CTL_ADDR_CFG_MASK(2));
	KUNIT_EXPECT_FALSE(test, c.ctl_valid & PT_CTL_PTWEN);
	/* The driver owns these: never offered to user space. */
	KUNIT_EXPECT_FALSE(test, c.ctl_valid &
			   (PT_CTL_TRACEEN | PT_CTL_TOPA | PT_CTL_FABRICEN));
}

static void caps_decode_refusals(struct kunit *test)
{
	struct pt_cpuid_raw r = skl;
	struct pt_caps c;

	r.leaf0.ebx = 0x68747541;	/* "Auth"enticAMD */
	KUNIT_EXPECT_EQ(test, pt_caps_decode(&r, &c), PT_CAPS_NOT_INTEL);

	r = skl;
	r.leaf0.eax = 0x13;
	KUNIT_EXPECT_EQ(test, pt_caps_decode(&r, &c), PT_CAPS_NO_LEAF14);

	r = skl;
	r.leaf7.ebx = 0;
	KUNIT_EXPECT_EQ(test, pt_caps_decode(&r, &c), PT_CAPS_NO_PT);

	r = skl;
	r.leaf14[0].ecx = 0;		/* neither ToPA nor single range */
	KUNIT_EXPECT_EQ(test, pt_caps_decode(&r, &c), PT_CAPS_NO_OUTPUT);
}

/* Subleaf 1 is garbage unless subleaf 0 EAX >= 1; fields need their cap. */
static void caps_decode_subleaf_gating(struct kunit *test)
{
	struct pt_cpuid_raw r = skl;
	struct pt_caps c;

	r.leaf14[0].eax = 0;
	KUNIT_ASSERT_EQ(test, pt_caps_decode(&r, &c), PT_CAPS_OK);
	KUNIT_EXPECT_EQ(test, c.num_addr_ranges, 0U);
	KUNIT_EXPECT_EQ(test, c.mtc_periods, 0U);
	KUNIT_EXPECT_EQ(test, c.cyc_thresholds, 0U);

	r = skl;
	r.leaf14[0].ebx = PT_CAP_CR3_FILTER;	/* no PSB/CYC, IP, MTC */
	KUNIT_ASSERT_EQ(test, pt_caps_decode(&r, &c), PT_CAPS_OK);
	KUNIT_EXPECT_EQ(test, c.num_addr_ranges, 0U);
	KUNIT_EXPECT_EQ(test, c.mtc_periods, 0U);
	KUNIT_EXPECT_EQ(test, c.psb_periods, 0U);
	KUNIT_EXPECT_FALSE(test, c.ctl_valid & PT_CTL_CYCEN);
	KUNIT_EXPECT_FALSE(test, c.ctl_valid & PT_CTL_MTCEN);

	/* More ranges than the ABI has room for are clamped. */
	r = skl;
	r.leaf14[1].eax = (r.leaf14[1].eax & ~7U) | 7;
	KUNIT_ASSERT_EQ(test, pt_caps_decode(&r, &c), PT_CAPS_OK);
	KUNIT_EXPECT_EQ(test, c.num_addr_ranges, PT_TRACE_MAX_ADDR_RANGES);
}

static void caps_decode_errata(struct kunit *test)
{
	struct pt_cpuid_raw r = skl;
	struct pt_caps c;

	r.leaf1.eax = 0x306d4;		/* Broadwell 06_3D: BDM106 */
	KUNIT_ASSERT_EQ(test, pt_caps_decode(&r, &c), PT_CAPS_OK);
	KUNIT_EXPECT_TRUE(test, c.quirks & PT_QUIRK_BRANCHEN_ALWAYS_ON);

	r.leaf1.eax = 0x906a3;		/* Alder Lake 06_9A: ADL037 */
	KUNIT_ASSERT_EQ(test, pt_caps_decode(&r, &c), PT_CAPS_OK);
	KUNIT_EXPECT_EQ(test, c.model, 0x9aU);
	KUNIT_EXPECT_TRUE(test, c.quirks & PT_QUIRK_SINGLE_RANGE_4K);
	KUNIT_EXPECT_FALSE(test, c.quirks & PT_QUIRK_BRANCHEN_ALWAYS_ON);
}

/*
 * TGL052/ADL037/RPL017 ("incorrect data with single range output larger
 * than 4KB"): limited everywhere except the generations before Tiger
 * Lake, so a newer CPU that no list names yet is limited too.
 */
static void caps_decode_single_range_4k(struct kunit *test)
{
	static const u32 limited[] = {
		0x806c1,	/* Tiger Lake 06_8C */
		0x90672,	/* Alder Lake 06_97 */
		0xb06f2,	/* Raptor Lake 06_BF */
		0xa06a4,	/* Meteor Lake 06_AA, in no erratum list */
		0x806f8,	/* Sapphire Rapids 06_8F */
		0xc06f1,	/* Emerald Rapids 06_CF */
		0x400f01,	/* a family 19 CPU */
	};
	static const u32 before_tgl[] = {
		0x306d4,	/* Broadwell 06_3D */
		0x506e3,	/* Skylake 06_5E */
		0x906ea,	/* Coffee Lake 06_9E */
		0x706e5,	/* Ice Lake 06_7E */
		0x506c9,	/* Goldmont 06_5C */
	};
	struct pt_cpuid_raw r = skl;
	struct pt_caps c;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(limited); i++) {
		r.leaf1.eax = limited[i];
		KUNIT_ASSERT_EQ(test, pt_caps_decode(&r, &c), PT_CAPS_OK);
		KUNIT_EXPECT_TRUE_MSG(test, c.quirks & PT_QUIRK_SINGLE_RANGE_4K,
				      "cpuid 1 eax %#x", limited[i]);
	}
	for (i = 0; i < ARRAY_SIZE(before_tgl); i++) {
		r.leaf1.eax = before_tgl[i];
		KUNIT_ASSERT_EQ(test, pt_caps_decode(&r, &c), PT_CAPS_OK);
		KUNIT_EXPECT_FALSE_MSG(test, c.quirks & PT_QUIRK_SINGLE_RANGE_4K,
				       "cpuid 1 eax %#x", before_tgl[i]);
	}
}

/* TraceEn in VMX operation needs IA32_VMX_MISC[14] (only with VMX). */
static void caps_decode_vmx(struct kunit *test)
{
	struct pt_cpuid_raw r = skl;
	struct pt_caps c;

	KUNIT_ASSERT_EQ(test, pt_caps_decode(&r, &c), PT_CAPS_OK);
	KUNIT_EXPECT_FALSE(test, c.vmx);
	pt_caps_set_vmx_misc(&c, 0);
	KUNIT_EXPECT_FALSE(test, c.vmx_blocks_trace);

	r.leaf1.ecx = BIT(5);		/* CPUID.1:ECX.VMX */
	KUNIT_ASSERT_EQ(test, pt_caps_decode(&r, &c), PT_CAPS_OK);
	KUNIT_EXPECT_TRUE(test, c.vmx);
	KUNIT_EXPECT_FALSE(test, c.vmx_blocks_trace);
	pt_caps_set_vmx_misc(&c, BIT_ULL(14));
	KUNIT_EXPECT_FALSE(test, c.vmx_blocks_trace);
	pt_caps_set_vmx_misc(&c, GENMASK_ULL(63, 0) & ~BIT_ULL(14));
	KUNIT_EXPECT_TRUE(test, c.vmx_blocks_trace);
}

static struct kunit_case caps_cases[] = {
	KUNIT_CASE(caps_decode_skylake),
	KUNIT_CASE(caps_decode_refusals),
	KUNIT_CASE(caps_decode_subleaf_gating),
	KUNIT_CASE(caps_decode_errata),
	KUNIT_CASE(caps_decode_single_range_4k),
	KUNIT_CASE(caps_decode_vmx),
	{}
};

static struct kunit_suite caps_suite = {
	.name = "pt_trace_caps",
	.test_cases = caps_cases,
};

kunit_test_suite(caps_suite);
