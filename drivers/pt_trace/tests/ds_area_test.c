// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the DS save area and BTS buffer (ds_area.c) as the SDM lays
 * them out (Vol. 3B 18.4.4.1): base, index, absolute maximum and
 * threshold each a whole number of 24-byte records from the base, index
 * at the base after arming, the threshold clamped to the maximum, the
 * area page-aligned; the record count, threshold test and rewind the
 * streaming PMI relies on; sizes refused.  The CPU's (the model's)
 * stores are exercised in the VM (bts_flight, bts_stream).
 */
#include <kunit/test.h>
#include <linux/mm.h>

#include "../buffer.h"
#include "../ds_area.h"

static void ds_area_layout(struct kunit *test)
{
	struct bts_ds ds;
	struct bts_ds_area *a;
	u64 base;

	KUNIT_ASSERT_EQ(test, bts_ds_alloc(&ds, 1000, NUMA_NO_NODE), 0);
	KUNIT_EXPECT_EQ(test, ds.nr_records, 41ULL);
	a = ds.area;
	KUNIT_EXPECT_TRUE(test, PAGE_ALIGNED(a));
	KUNIT_EXPECT_EQ(test, bts_ds_msr(&ds), (u64)(unsigned long)a);
	bts_ds_arm(&ds, 20);
	base = (u64)(unsigned long)ds.buf;
	KUNIT_EXPECT_EQ(test, a->bts_base, base);
	KUNIT_EXPECT_EQ(test, a->bts_index, base);
	KUNIT_EXPECT_EQ(test, a->bts_max, base + 41 * BTS_RECORD_SIZE);
	KUNIT_EXPECT_EQ(test, a->bts_thresh, base + 20 * BTS_RECORD_SIZE);
	/* PEBS: a scratch buffer in the area page's second half. */
	KUNIT_EXPECT_EQ(test, a->pebs_base,
			(u64)(unsigned long)a + BTS_DS_PEBS_SCRATCH);
	KUNIT_EXPECT_EQ(test, a->pebs_index, a->pebs_base);
	/* Room past the maximum for the largest record (1248 bytes). */
	KUNIT_EXPECT_LE(test, a->pebs_max + 1248,
			(u64)(unsigned long)a + BTS_DS_AREA_BYTES);
	/* Room below it for two of them before the first PMI is served. */
	KUNIT_EXPECT_GE(test, a->pebs_max - a->pebs_base, 2 * 1248);
	KUNIT_EXPECT_GT(test, a->pebs_thresh, a->pebs_base);
	KUNIT_EXPECT_LT(test, a->pebs_thresh, a->pebs_base + 32);
	KUNIT_EXPECT_GE(test, a->pebs_base,
			(u64)(unsigned long)a + sizeof(*a) + 48 * sizeof(u64));
	KUNIT_EXPECT_FALSE(test, bts_ds_pebs_stored(&ds));
	a->pebs_index += 32;
	KUNIT_EXPECT_TRUE(test, bts_ds_pebs_stored(&ds));
	KUNIT_EXPECT_EQ(test, bts_ds_count(&ds), 0ULL);
	KUNIT_EXPECT_FALSE(test, bts_ds_due(&ds));
	/* The CPU stored 19, then 20 records. */
	a->bts_index = base + 19 * BTS_RECORD_SIZE;
	KUNIT_EXPECT_EQ(test, bts_ds_count(&ds), 19ULL);
	KUNIT_EXPECT_FALSE(test, bts_ds_due(&ds));
	a->bts_index = base + 20 * BTS_RECORD_SIZE;
	KUNIT_EXPECT_TRUE(test, bts_ds_due(&ds));
	bts_ds_rewind(&ds);
	KUNIT_EXPECT_EQ(test, a->bts_index, base);
	/* An index outside the buffer is never trusted. */
	a->bts_index = base + 42 * BTS_RECORD_SIZE;
	KUNIT_EXPECT_EQ(test, bts_ds_count(&ds), 0ULL);
	/* Circular: the threshold at the maximum, beyond it clamped. */
	bts_ds_arm(&ds, 1000);
	KUNIT_EXPECT_EQ(test, a->bts_thresh, a->bts_max);
	bts_ds_free(&ds);
	KUNIT_EXPECT_NULL(test, ds.area);
}

static void ds_area_sizes(struct kunit *test)
{
	struct bts_ds ds;

	KUNIT_EXPECT_EQ(test, bts_ds_alloc(&ds, 47, NUMA_NO_NODE), -EINVAL);
	KUNIT_EXPECT_EQ(test, bts_ds_alloc(&ds, pt_buffer_max_contig() + 48,
					   NUMA_NO_NODE), -EINVAL);
	KUNIT_ASSERT_EQ(test, bts_ds_alloc(&ds, 48, NUMA_NO_NODE), 0);
	KUNIT_EXPECT_EQ(test, ds.nr_records, 2ULL);
	bts_ds_free(&ds);
}

static struct kunit_case ds_area_test_cases[] = {
	KUNIT_CASE(ds_area_layout),
	KUNIT_CASE(ds_area_sizes),
	{}
};

static struct kunit_suite ds_area_suite = {
	.name = "pt_trace_ds_area",
	.test_cases = ds_area_test_cases,
};

kunit_test_suite(ds_area_suite);
