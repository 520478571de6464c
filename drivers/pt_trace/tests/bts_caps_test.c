// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the BTS capabilities (bts_caps.c) from CPUID leaf 1 and
 * IA32_MISC_ENABLE, pure.  The model's profiles are checked in the VM
 * (bts_caps).
 */
#include <kunit/test.h>

#include "../bts_caps.h"
#include "../bts_regs.h"

static void bts_caps_cases(struct kunit *test)
{
	struct bts_caps c;

	/* DS with DS-CPL, BTS available: a Core since Nehalem. */
	bts_caps_decode(BTS_CPUID1_ECX_DS_CPL, BTS_CPUID1_EDX_DS, 0, true, &c);
	KUNIT_EXPECT_TRUE(test, bts_present(&c));
	KUNIT_EXPECT_TRUE(test, c.cpl_filter);
	KUNIT_EXPECT_TRUE(test, c.pebs);
	/* No DS: nothing, whatever DS-CPL says. */
	bts_caps_decode(BTS_CPUID1_ECX_DS_CPL, 0, 0, false, &c);
	KUNIT_EXPECT_FALSE(test, c.ds);
	KUNIT_EXPECT_FALSE(test, c.cpl_filter);
	KUNIT_EXPECT_FALSE(test, c.unavailable);
	KUNIT_EXPECT_FALSE(test, c.pebs);
	KUNIT_EXPECT_FALSE(test, bts_present(&c));
	/* MISC_ENABLE[11] set: DS, but no BTS. */
	bts_caps_decode(0, BTS_CPUID1_EDX_DS, BTS_MISC_ENABLE_BTS_UNAVAIL,
			true, &c);
	KUNIT_EXPECT_TRUE(test, c.ds);
	KUNIT_EXPECT_TRUE(test, c.unavailable);
	KUNIT_EXPECT_FALSE(test, bts_present(&c));
	/* Only PEBS unavailable: BTS is there. */
	bts_caps_decode(0, BTS_CPUID1_EDX_DS, BTS_MISC_ENABLE_PEBS_UNAVAIL,
			true, &c);
	KUNIT_EXPECT_TRUE(test, bts_present(&c));
	KUNIT_EXPECT_FALSE(test, c.cpl_filter);
	KUNIT_EXPECT_FALSE(test, c.pebs);
	/* MISC_ENABLE unreadable: not offered. */
	bts_caps_decode(0, BTS_CPUID1_EDX_DS, 0, false, &c);
	KUNIT_EXPECT_FALSE(test, bts_present(&c));
	KUNIT_EXPECT_FALSE(test, c.pebs);
}

static struct kunit_case bts_caps_test_cases[] = {
	KUNIT_CASE(bts_caps_cases),
	{}
};

static struct kunit_suite bts_caps_suite = {
	.name = "pt_trace_bts_caps",
	.test_cases = bts_caps_test_cases,
};

kunit_test_suite(bts_caps_suite);
