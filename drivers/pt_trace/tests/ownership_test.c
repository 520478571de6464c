// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: what protects PT against perf (ownership.c): the decision and
 * that each state says what it means.  The reservation itself runs in
 * the VM against the model's intel_pt PMU (coexist_perf_reserve).
 */
#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/string.h>

#include "../ownership.h"

static void ownership_decide(struct kunit *test)
{
	/* The model's stand-in for perf's PMU is reserved like perf's. */
	KUNIT_EXPECT_EQ(test, pt_own_decide(true, 8, 0), PT_OWN_RESERVED);
	KUNIT_EXPECT_EQ(test, pt_own_decide(true, 8, -EBUSY),
			PT_OWN_PERF_BUSY);
	KUNIT_EXPECT_EQ(test, pt_own_decide(true, -1, 0), PT_OWN_MODEL);
	KUNIT_EXPECT_EQ(test, pt_own_decide(false, -1, 0), PT_OWN_NO_PMU);
	KUNIT_EXPECT_EQ(test, pt_own_decide(false, 8, 0), PT_OWN_RESERVED);
	KUNIT_EXPECT_EQ(test, pt_own_decide(false, 8, -EBUSY),
			PT_OWN_PERF_BUSY);
	KUNIT_EXPECT_EQ(test, pt_own_decide(false, 8, -ENODEV),
			PT_OWN_FAILED);
	KUNIT_EXPECT_EQ(test, pt_own_decide(false, 8, -EINVAL),
			PT_OWN_FAILED);
}

static void ownership_words(struct kunit *test)
{
	KUNIT_EXPECT_NOT_NULL(test, strstr(pt_own_str(PT_OWN_NO_PMU),
					   "intel_pt PMU absent"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(pt_own_str(PT_OWN_RESERVED),
					   "reserved through perf"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(pt_own_str(PT_OWN_PERF_BUSY),
					   "perf"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(pt_own_str(PT_OWN_FAILED),
					   "not protected"));
}

static struct kunit_case ownership_cases[] = {
	KUNIT_CASE(ownership_decide),
	KUNIT_CASE(ownership_words),
	{}
};

static struct kunit_suite ownership_suite = {
	.name = "pt_trace_ownership",
	.test_cases = ownership_cases,
};

kunit_test_suite(ownership_suite);
