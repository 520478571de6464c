// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: ToPA layout (one entry per chunk, END chains, single-entry
 * tables) and the MASK_PTRS <-> linear offset arithmetic, on made-up
 * physical addresses.
 */
#include <kunit/test.h>
#include <linux/errno.h>

#include "../regs.h"
#include "../topa.h"

struct topa_fixture {
	struct pt_topa t;
	u64 *tables[2];
	u64 table_phys[2];
	struct pt_topa_chunk chunks[600];
	u64 chunk_off[601];
};

static void fixture(struct kunit *test, struct topa_fixture *f,
		    unsigned int n, const unsigned int *shifts, bool single)
{
	u64 phys = 1ULL << 30;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		f->tables[i] = kunit_kzalloc(test, PT_TOPA_TABLE_BYTES,
					     GFP_KERNEL);
		f->table_phys[i] = 0x100000ULL * (i + 1);
	}
	f->chunk_off[0] = 0;
	for (i = 0; i < n; i++) {
		unsigned int s = shifts ? shifts[i] : 12;

		phys = ALIGN(phys, 1ULL << s);
		f->chunks[i].phys = phys;
		f->chunks[i].shift = s;
		phys += 1ULL << s;
		f->chunk_off[i + 1] = f->chunk_off[i] + (1ULL << s);
	}
	f->t.single_entry = single;
	f->t.nr_chunks = n;
	f->t.nr_tables = pt_topa_nr_tables(n, single);
	f->t.tables = f->tables;
	f->t.table_phys = f->table_phys;
	f->t.chunks = f->chunks;
	f->t.chunk_off = f->chunk_off;
}

static void topa_nr_tables(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, pt_topa_nr_tables(1, false), 1U);
	KUNIT_EXPECT_EQ(test, pt_topa_nr_tables(511, false), 1U);
	KUNIT_EXPECT_EQ(test, pt_topa_nr_tables(512, false), 2U);
	KUNIT_EXPECT_EQ(test, pt_topa_nr_tables(1, true), 1U);
	/* Single entry: one table whatever the (streaming) regions. */
	KUNIT_EXPECT_EQ(test, pt_topa_nr_tables(2, true), 1U);
	KUNIT_EXPECT_EQ(test, pt_topa_nr_tables(0, true), 0U);
}

static void topa_one_table(struct kunit *test)
{
	static const unsigned int shifts[] = { 22, 13, 12 };
	struct topa_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	u64 base, mask;

	fixture(test, f, 3, shifts, false);
	KUNIT_ASSERT_EQ(test, pt_topa_build(&f->t), 0);
	KUNIT_EXPECT_EQ(test, f->tables[0][0],
			f->chunks[0].phys | (10ULL << PT_TOPA_SIZE_SHIFT));
	KUNIT_EXPECT_EQ(test, f->tables[0][1],
			f->chunks[1].phys | (1ULL << PT_TOPA_SIZE_SHIFT));
	KUNIT_EXPECT_EQ(test, f->tables[0][2], f->chunks[2].phys);
	KUNIT_EXPECT_EQ(test, f->tables[0][3], f->table_phys[0] | PT_TOPA_END);
	KUNIT_EXPECT_EQ(test, f->tables[0][4], 0ULL);

	/* Round trips, region boundaries included. */
	KUNIT_ASSERT_EQ(test, pt_topa_offset_to_ptrs(&f->t, (4 << 20) + 100,
						     &base, &mask), 0);
	KUNIT_EXPECT_EQ(test, base, f->table_phys[0]);
	KUNIT_EXPECT_EQ(test, mask, (100ULL << 32) | (1ULL << 7) | 0x7f);
	KUNIT_EXPECT_EQ(test, pt_topa_ptrs_to_offset(&f->t, base, mask),
			(4ULL << 20) + 100);
	/* Offset at the end of region 0 is the start of region 1. */
	mask = ((4ULL << 20) << 32) | 0x7f;
	KUNIT_EXPECT_EQ(test, pt_topa_ptrs_to_offset(&f->t, base, mask),
			4ULL << 20);
	/* Pointing at END wraps to the start. */
	mask = (3ULL << 7) | 0x7f;
	KUNIT_EXPECT_EQ(test, pt_topa_ptrs_to_offset(&f->t, base, mask), 0ULL);
	KUNIT_EXPECT_EQ(test, pt_topa_offset_to_ptrs(&f->t, f->chunk_off[3],
						     &base, &mask), -EINVAL);
}

static void topa_two_tables(struct kunit *test)
{
	struct topa_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	u64 base, mask, off;

	fixture(test, f, 600, NULL, false);
	KUNIT_ASSERT_EQ(test, f->t.nr_tables, 2U);
	KUNIT_ASSERT_EQ(test, pt_topa_build(&f->t), 0);
	KUNIT_EXPECT_EQ(test, f->tables[0][511], f->table_phys[1] | PT_TOPA_END);
	KUNIT_EXPECT_EQ(test, f->tables[1][89], f->table_phys[0] | PT_TOPA_END);
	for (off = 0; off < 600 * 4096; off += 4096 * 37 + 8) {
		KUNIT_ASSERT_EQ(test, pt_topa_offset_to_ptrs(&f->t, off, &base,
							     &mask), 0);
		KUNIT_EXPECT_EQ(test, pt_topa_ptrs_to_offset(&f->t, base, mask),
				off);
	}
	/* Table 0 entry 511 (END) continues in table 1. */
	KUNIT_EXPECT_EQ(test, pt_topa_ptrs_to_offset(&f->t, f->table_phys[0],
						     (511ULL << 7) | 0x7f),
			511ULL * 4096);
}

/* The PMI acts only when OUTPUT_BASE is one of our tables. */
static void topa_owns_base(struct kunit *test)
{
	struct topa_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	fixture(test, f, 600, NULL, false);
	KUNIT_ASSERT_EQ(test, f->t.nr_tables, 2U);
	KUNIT_EXPECT_TRUE(test, pt_topa_owns_base(&f->t, f->table_phys[0]));
	KUNIT_EXPECT_TRUE(test, pt_topa_owns_base(&f->t, f->table_phys[1]));
	KUNIT_EXPECT_FALSE(test, pt_topa_owns_base(&f->t, 0));
	KUNIT_EXPECT_FALSE(test, pt_topa_owns_base(&f->t,
						   f->table_phys[1] + 4096));
	KUNIT_EXPECT_FALSE(test, pt_topa_owns_base(&f->t, f->chunks[0].phys));
	/* A single-entry layout has its one table. */
	fixture(test, f, 4, NULL, true);
	KUNIT_EXPECT_TRUE(test, pt_topa_owns_base(&f->t, f->table_phys[0]));
	KUNIT_EXPECT_FALSE(test, pt_topa_owns_base(&f->t, f->table_phys[1]));
}

static void topa_single_entry(struct kunit *test)
{
	static const unsigned int shifts[] = { 20 };
	struct topa_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	fixture(test, f, 1, shifts, true);
	KUNIT_ASSERT_EQ(test, pt_topa_build(&f->t), 0);
	KUNIT_EXPECT_EQ(test, f->tables[0][0],
			f->chunks[0].phys | (8ULL << PT_TOPA_SIZE_SHIFT));
	KUNIT_EXPECT_EQ(test, f->tables[0][1], f->table_phys[0] | PT_TOPA_END);
	/* Streaming splits the one chunk: entry 0 names region 0. */
	fixture(test, f, 2, NULL, true);
	KUNIT_ASSERT_EQ(test, pt_topa_build(&f->t), 0);
	KUNIT_EXPECT_EQ(test, f->tables[0][0], f->chunks[0].phys);
	KUNIT_EXPECT_EQ(test, f->tables[0][1], f->table_phys[0] | PT_TOPA_END);
}

/* Eight 4 KiB regions, multi-entry: where INT and STOP go. */
static void topa_stream_marks(struct kunit *test)
{
	struct topa_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct pt_topa_marks m, m2;
	u64 base, mask;

	fixture(test, f, 8, NULL, false);
	KUNIT_ASSERT_EQ(test, pt_topa_build(&f->t), 0);

	/* Empty ring at 0: the whole ring, STOP before region 0. */
	KUNIT_ASSERT_EQ(test, pt_topa_stream_marks(&f->t, 0, 0, 8192, &m), 0);
	KUNIT_EXPECT_EQ(test, m.stop, 7U);
	KUNIT_EXPECT_EQ(test, m.stop_end, 32768ULL);
	KUNIT_EXPECT_EQ(test, m.intr, 1U);
	KUNIT_EXPECT_EQ(test, m.int_end, 8192ULL);

	/* Reader in region 2, head in region 5 of the next lap. */
	KUNIT_ASSERT_EQ(test, pt_topa_stream_marks(&f->t, 32768 + 5 * 4096 + 10,
						   32768 + 2 * 4096 + 7, 4096,
						   &m2), 0);
	KUNIT_EXPECT_EQ(test, m2.stop, 1U);
	KUNIT_EXPECT_EQ(test, m2.stop_end, 2 * 32768ULL + 2 * 4096);
	/* The watermark is already behind: INT on the head's region. */
	KUNIT_EXPECT_EQ(test, m2.intr, 5U);
	KUNIT_EXPECT_EQ(test, m2.int_end, 32768ULL + 6 * 4096);

	pt_topa_apply_marks(&f->t, NULL, &m);
	pt_topa_apply_marks(&f->t, &m, &m2);
	KUNIT_EXPECT_EQ(test, f->tables[0][7] & (PT_TOPA_INT | PT_TOPA_STOP),
			0ULL);
	KUNIT_EXPECT_EQ(test, f->tables[0][1] & (PT_TOPA_INT | PT_TOPA_STOP),
			PT_TOPA_INT | PT_TOPA_STOP);
	KUNIT_EXPECT_EQ(test, f->tables[0][5] & (PT_TOPA_INT | PT_TOPA_STOP),
			PT_TOPA_INT);

	/*
	 * Reader at a region start: the region before it may fill up.  A
	 * watermark beyond the STOP: INT one region before it, so that a
	 * PMI can still move the STOP by what the reader releases.
	 */
	KUNIT_ASSERT_EQ(test, pt_topa_stream_marks(&f->t, 3 * 4096 + 1,
						   4096, 100000, &m), 0);
	KUNIT_EXPECT_EQ(test, m.stop, 0U);
	KUNIT_EXPECT_EQ(test, m.stop_end, 32768ULL + 4096);
	KUNIT_EXPECT_EQ(test, m.intr, 7U);
	KUNIT_EXPECT_EQ(test, m.int_end, 32768ULL);
	/* A watermark that ends in the STOP region: the same. */
	KUNIT_ASSERT_EQ(test, pt_topa_stream_marks(&f->t, 3 * 4096 + 1,
						   4096, 32768 + 10, &m), 0);
	KUNIT_EXPECT_EQ(test, m.intr, 7U);
	KUNIT_EXPECT_EQ(test, m.int_end, 32768ULL);
	/* The head in the STOP region: the STOP is the next INT. */
	KUNIT_ASSERT_EQ(test, pt_topa_stream_marks(&f->t, 32768 + 100,
						   4096, 100000, &m), 0);
	KUNIT_EXPECT_EQ(test, m.stop, 0U);
	KUNIT_EXPECT_EQ(test, m.intr, 0U);
	KUNIT_EXPECT_EQ(test, m.int_end, m.stop_end);
	KUNIT_EXPECT_EQ(test, m.stop_end, 32768ULL + 4096);

	/* Unread data ahead of the head in its own region: no room. */
	KUNIT_EXPECT_EQ(test, pt_topa_stream_marks(&f->t, 32768 + 100, 200,
						   0, &m), -ENOSPC);
	/* Full ring. */
	KUNIT_EXPECT_EQ(test, pt_topa_stream_marks(&f->t, 32768, 0, 0, &m),
			-ENOSPC);
	/* Head and tail in one region, tail behind: all the rest. */
	KUNIT_ASSERT_EQ(test, pt_topa_stream_marks(&f->t, 4096 + 300,
						   4096 + 100, 0, &m), 0);
	KUNIT_EXPECT_EQ(test, m.stop, 0U);
	KUNIT_EXPECT_EQ(test, m.stop_end, 32768ULL + 4096);
	/* Bad positions. */
	KUNIT_EXPECT_EQ(test, pt_topa_stream_marks(&f->t, 10, 11, 0, &m),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, pt_topa_stream_marks(&f->t, 40000, 10, 0, &m),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, pt_topa_region_left(&f->t, 4096 + 300),
			4096ULL - 300);
	KUNIT_ASSERT_EQ(test, pt_topa_offset_to_ptrs(&f->t, 5 * 4096 + 8,
						     &base, &mask), 0);
	KUNIT_EXPECT_EQ(test, mask, (8ULL << 32) | (5ULL << 7) | 0x7f);
}

/* Single-entry: the one entry follows the head with INT|STOP. */
static void topa_stream_single(struct kunit *test)
{
	struct topa_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct pt_topa_marks m;
	u64 base, mask;

	fixture(test, f, 4, NULL, true);
	KUNIT_ASSERT_EQ(test, pt_topa_build(&f->t), 0);
	KUNIT_ASSERT_EQ(test, pt_topa_stream_marks(&f->t, 2 * 4096 + 16, 4096,
						   0, &m), 0);
	KUNIT_EXPECT_EQ(test, m.stop, 2U);
	KUNIT_EXPECT_EQ(test, m.stop_end, 3 * 4096ULL);
	KUNIT_EXPECT_EQ(test, m.int_end, 3 * 4096ULL - pt_topa_pmi_window(4096));
	pt_topa_apply_marks(&f->t, NULL, &m);
	KUNIT_EXPECT_EQ(test, f->tables[0][0],
			f->chunks[2].phys | PT_TOPA_INT | PT_TOPA_STOP);
	KUNIT_ASSERT_EQ(test, pt_topa_offset_to_ptrs(&f->t, 2 * 4096 + 16,
						     &base, &mask), 0);
	KUNIT_EXPECT_EQ(test, base, f->table_phys[0]);
	KUNIT_EXPECT_EQ(test, mask, (16ULL << 32) | 0x7f);
	KUNIT_EXPECT_EQ(test, pt_topa_ptrs_to_offset(&f->t, base,
						     (4096ULL << 32) | 0x7f),
			3 * 4096ULL);
	/* The next region still holds unread data. */
	KUNIT_EXPECT_EQ(test, pt_topa_stream_marks(&f->t, 4 * 4096 + 16,
						   100, 0, &m), -ENOSPC);
}

/*
 * Flight recorder: INT on the last region only (a PMI per lap), no
 * STOP, END entries untouched; with two tables the last region is in
 * the second.  Single-entry: the one entry.
 */
static void topa_flight_marks(struct kunit *test)
{
	static const unsigned int shifts[] = { 14 };
	struct topa_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	unsigned int i;

	fixture(test, f, 600, NULL, false);
	KUNIT_ASSERT_EQ(test, pt_topa_build(&f->t), 0);
	pt_topa_flight_marks(&f->t);
	for (i = 0; i < 600; i++) {
		u64 e = f->tables[i / 511][i % 511];

		KUNIT_EXPECT_EQ(test, !!(e & PT_TOPA_INT), i == 599);
		KUNIT_EXPECT_FALSE(test, e & (PT_TOPA_STOP | PT_TOPA_END));
	}
	KUNIT_EXPECT_EQ(test, f->tables[0][511], f->table_phys[1] | PT_TOPA_END);
	KUNIT_EXPECT_EQ(test, f->tables[1][89], f->table_phys[0] | PT_TOPA_END);
	/* Multi-entry signals at the wrap: any offset is after it. */
	KUNIT_EXPECT_TRUE(test, pt_topa_lap_done(&f->t, 600 * 4096 - 1));
	KUNIT_EXPECT_TRUE(test, pt_topa_lap_done(&f->t, 0));
	/* Its lap PMI leaves the output in the first region. */
	KUNIT_EXPECT_TRUE(test, pt_topa_lap_plausible(&f->t, 0));
	KUNIT_EXPECT_TRUE(test, pt_topa_lap_plausible(&f->t, 4095));
	KUNIT_EXPECT_FALSE(test, pt_topa_lap_plausible(&f->t, 4096));
	KUNIT_EXPECT_FALSE(test, pt_topa_lap_plausible(&f->t, 600 * 4096 - 1));
	/* One region: its first quarter. */
	fixture(test, f, 1, shifts, false);
	KUNIT_ASSERT_EQ(test, pt_topa_build(&f->t), 0);
	KUNIT_EXPECT_TRUE(test, pt_topa_lap_plausible(&f->t, 4095));
	KUNIT_EXPECT_FALSE(test, pt_topa_lap_plausible(&f->t, 4096));

	fixture(test, f, 1, shifts, true);
	KUNIT_ASSERT_EQ(test, pt_topa_build(&f->t), 0);
	pt_topa_flight_marks(&f->t);
	KUNIT_EXPECT_EQ(test, f->tables[0][0],
			f->chunks[0].phys | (2ULL << PT_TOPA_SIZE_SHIFT) |
			PT_TOPA_INT);
	KUNIT_EXPECT_EQ(test, f->tables[0][1], f->table_phys[0] | PT_TOPA_END);
	/* Single-entry may signal inside its window, before the wrap. */
	KUNIT_EXPECT_TRUE(test, pt_topa_lap_done(&f->t, 16384 - 4096 - 1));
	KUNIT_EXPECT_FALSE(test, pt_topa_lap_done(&f->t, 16384 - 4096));
	KUNIT_EXPECT_FALSE(test, pt_topa_lap_done(&f->t, 16383));
	KUNIT_EXPECT_TRUE(test, pt_topa_lap_done(&f->t, 0));
	/* Its window before the wrap, or as far after it. */
	KUNIT_EXPECT_TRUE(test, pt_topa_lap_plausible(&f->t, 16384 - 4096));
	KUNIT_EXPECT_TRUE(test, pt_topa_lap_plausible(&f->t, 4095));
	KUNIT_EXPECT_FALSE(test, pt_topa_lap_plausible(&f->t, 4096));
	KUNIT_EXPECT_FALSE(test, pt_topa_lap_plausible(&f->t, 16384 - 4097));
}

static void topa_misaligned(struct kunit *test)
{
	static const unsigned int shifts[] = { 13 };
	struct topa_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	fixture(test, f, 1, shifts, false);
	f->chunks[0].phys += 4096;
	KUNIT_EXPECT_EQ(test, pt_topa_build(&f->t), -EINVAL);
}

static void topa_single_range(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, pt_single_mask_ptrs(4096, 0), 0xfffULL);
	KUNIT_EXPECT_EQ(test, pt_single_mask_ptrs(1 << 20, 5),
			(5ULL << 32) | 0xfffffULL);
	KUNIT_EXPECT_EQ(test, pt_single_ptrs_to_offset(4096,
						       (123ULL << 32) | 0xfff),
			123ULL);
}

static struct kunit_case topa_cases[] = {
	KUNIT_CASE(topa_nr_tables),
	KUNIT_CASE(topa_one_table),
	KUNIT_CASE(topa_two_tables),
	KUNIT_CASE(topa_owns_base),
	KUNIT_CASE(topa_single_entry),
	KUNIT_CASE(topa_misaligned),
	KUNIT_CASE(topa_single_range),
	KUNIT_CASE(topa_stream_marks),
	KUNIT_CASE(topa_stream_single),
	KUNIT_CASE(topa_flight_marks),
	{}
};

static struct kunit_suite topa_suite = {
	.name = "pt_trace_topa",
	.test_cases = topa_cases,
};

kunit_test_suite(topa_suite);
