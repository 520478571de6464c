// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the model's BTS rules (model/bts_rules.c), pure: DEBUGCTL bits
 * per capability, DS_AREA, MISC_ENABLE, and the DS area layout.  The
 * record store itself runs in the VM (bts_model).
 */
#include <kunit/test.h>
#include <linux/errno.h>

#include "../bts_regs.h"
#include "../model/model.h"

static const struct pt_model_profile pt_bts_full = {
	.leaf1 = { 0, 0, BTS_CPUID1_ECX_DS_CPL, BTS_CPUID1_EDX_DS },
};

static const struct pt_model_profile pt_bts_nocpl_unavail = {
	.leaf1 = { 0, 0, 0, BTS_CPUID1_EDX_DS },
	.misc_enable = BTS_MISC_ENABLE_BTS_UNAVAIL,
};

static const struct pt_model_profile pt_bts_none = {
	.leaf1 = { 0, 0, BTS_CPUID1_ECX_DS_CPL, 0 },
};

static int wr(const struct pt_model_profile *p, u32 msr, u64 val,
	      enum pt_model_gp *why)
{
	u64 store;

	return pt_model_bts_check_wrmsr(p, msr, val, &store, why);
}

static void model_bts_debugctl(struct kunit *test)
{
	enum pt_model_gp why;

	KUNIT_EXPECT_EQ(test, wr(&pt_bts_full, BTS_MSR_DEBUGCTL,
				 BTS_DEBUGCTL_BTS_BITS, &why), 0);
	KUNIT_EXPECT_EQ(test, wr(&pt_bts_full, BTS_MSR_DEBUGCTL, BIT_ULL(2),
				 &why), -EIO);
	KUNIT_EXPECT_EQ(test, why, PT_GP_RESERVED);
	/* BTS while unavailable, and the CPL bits without DS-CPL. */
	KUNIT_EXPECT_EQ(test, wr(&pt_bts_nocpl_unavail, BTS_MSR_DEBUGCTL,
				 BTS_DEBUGCTL_TR | BTS_DEBUGCTL_BTS, &why),
			-EIO);
	KUNIT_EXPECT_EQ(test, why, PT_GP_BTS);
	KUNIT_EXPECT_EQ(test, wr(&pt_bts_full, BTS_MSR_DEBUGCTL,
				 BTS_DEBUGCTL_TR, &why), 0);
	KUNIT_EXPECT_EQ(test, wr(&pt_bts_none, BTS_MSR_DEBUGCTL,
				 BTS_DEBUGCTL_OFF_OS, &why), -EIO);
	KUNIT_EXPECT_EQ(test, why, PT_GP_BTS);
	/* DS_AREA: only with DS; MISC_ENABLE read-only; others not ours. */
	KUNIT_EXPECT_EQ(test, wr(&pt_bts_none, BTS_MSR_DS_AREA, 0, &why),
			-EIO);
	KUNIT_EXPECT_EQ(test, wr(&pt_bts_full, BTS_MSR_MISC_ENABLE, 0, &why),
			-EIO);
	KUNIT_EXPECT_EQ(test, why, PT_GP_READONLY);
	KUNIT_EXPECT_EQ(test, wr(&pt_bts_full, 0x570, 0, &why), -ENOENT);
	KUNIT_EXPECT_TRUE(test, pt_model_bts_present(&pt_bts_full));
	KUNIT_EXPECT_FALSE(test, pt_model_bts_present(&pt_bts_nocpl_unavail));
	KUNIT_EXPECT_FALSE(test, pt_model_bts_present(&pt_bts_none));
}

static void model_bts_layout(struct kunit *test)
{
	struct bts_ds_area ds = {
		.bts_base = 0x1000,
		.bts_index = 0x1000,
		.bts_max = 0x1000 + 10 * BTS_RECORD_SIZE,
		.bts_thresh = 0x1000 + 8 * BTS_RECORD_SIZE,
	};

	KUNIT_EXPECT_TRUE(test, pt_model_bts_layout_ok(&ds));
	ds.bts_index = ds.bts_max;
	KUNIT_EXPECT_TRUE(test, pt_model_bts_layout_ok(&ds));	/* full */
	ds.bts_index = ds.bts_base + 8;
	KUNIT_EXPECT_FALSE(test, pt_model_bts_layout_ok(&ds));	/* mid-record */
	ds.bts_index = ds.bts_base;
	ds.bts_max -= 8;
	KUNIT_EXPECT_FALSE(test, pt_model_bts_layout_ok(&ds));	/* not whole */
	ds.bts_max = ds.bts_base;
	KUNIT_EXPECT_FALSE(test, pt_model_bts_layout_ok(&ds));	/* empty */
	ds.bts_max = ds.bts_base + 10 * BTS_RECORD_SIZE;
	ds.bts_thresh = ds.bts_max + BTS_RECORD_SIZE;
	KUNIT_EXPECT_FALSE(test, pt_model_bts_layout_ok(&ds));	/* beyond */
}

static struct kunit_case model_bts_cases[] = {
	KUNIT_CASE(model_bts_debugctl),
	KUNIT_CASE(model_bts_layout),
	{}
};

static struct kunit_suite model_bts_suite = {
	.name = "pt_trace_model_bts",
	.test_cases = model_bts_cases,
};

kunit_test_suite(model_bts_suite);
