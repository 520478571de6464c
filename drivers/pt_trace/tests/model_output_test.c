// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the model's output engine (model/output.c) puts every byte where
 * the SDM says the hardware would, and refuses what the SDM calls an
 * operational error.  The expectations come from SDM Vol. 3C, not from
 * output.c:
 *
 * - 36.2.6.1 and Tables 36-8/36-9: single-range output is circular inside
 *   OUTPUT_BASE .. OUTPUT_BASE + mask; MaskOrTableOffset must be a run of
 *   ones starting at bit 7, the base aligned to the size, OutputOffset <=
 *   the mask, otherwise an operational error when TraceEn is set.
 * - 36.2.6.2 and Table 36-3: ToPA entries (END bit 0, INT bit 2, STOP
 *   bit 4, Size 9:6, bits 1, 3, 5, 11:10 and 63:MAXPHYADDR reserved); a
 *   filled region moves output to the next entry, END to the next table;
 *   a filled STOP region sets STATUS.Stopped (TriggerEn cleared) and
 *   leaves OUTPUT_BASE/MaskOrTableOffset on that entry with OutputOffset
 *   equal to the region size; a filled INT region signals the PMI;
 *   "ToPA Errors" lists the malformed entries, detected when the entry is
 *   reached; a single-entry implementation needs entry 1 to be END back
 *   to the table and signals its PMI before the region wraps.
 * - 36.3.9: an operational error sets STATUS.Error, packet generation
 *   stops (TriggerEn cleared).
 *
 * The constants are spelled out from those tables here on purpose, so a
 * wrong value in the driver's headers fails these tests instead of being
 * shared by them.  Memory is real pages (the engine writes through the
 * direct map and refuses what is not RAM); every region sits in a larger
 * allocation filled with a canary so a byte outside it is caught too.
 */
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/gfp.h>
#include <linux/io.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "../model/model.h"

/* IA32_RTIT_CTL (Table 36-6), IA32_RTIT_STATUS (Table 36-7). */
#define OT_CTL_TRACEEN		BIT_ULL(0)
#define OT_CTL_BRANCHEN		BIT_ULL(13)
#define OT_CTL_TOPA		BIT_ULL(8)
#define OT_ST_TRIGGEREN		BIT_ULL(2)
#define OT_ST_ERROR		BIT_ULL(4)
#define OT_ST_STOPPED		BIT_ULL(5)
/* ToPA entry (Table 36-3). */
#define OT_END			BIT_ULL(0)
#define OT_INT			BIT_ULL(2)
#define OT_STOP			BIT_ULL(4)
/* The profiles' MAXPHYADDR (profiles.c); checked in pt_ot_profile(). */
#define OT_MAXPHYADDR		39
/* perf's margin for the single-entry early PMI (anchors.md). */
#define OT_PERF_PMI_MARGIN	512
#define OT_CANARY		0xa5

/* Zeroed pages that live as long as the test case. */
struct pt_ot_pages {
	struct page *page;
	unsigned int order;
};

static int pt_ot_pages_init(struct kunit_resource *res, void *context)
{
	struct pt_ot_pages *pg = kzalloc(sizeof(*pg), GFP_KERNEL);

	if (!pg)
		return -ENOMEM;
	pg->order = *(unsigned int *)context;
	pg->page = alloc_pages(GFP_KERNEL | __GFP_ZERO, pg->order);
	if (!pg->page) {
		kfree(pg);
		return -ENOMEM;
	}
	res->data = pg;
	return 0;
}

static void pt_ot_pages_free(struct kunit_resource *res)
{
	struct pt_ot_pages *pg = res->data;

	__free_pages(pg->page, pg->order);
	kfree(pg);
}

/* 2^order pages, naturally aligned (buddy allocator); their physical base. */
static u64 pt_ot_alloc(struct kunit *test, unsigned int order)
{
	struct pt_ot_pages *pg;

	pg = kunit_alloc_resource(test, pt_ot_pages_init, pt_ot_pages_free,
				  GFP_KERNEL, &order);
	KUNIT_ASSERT_NOT_NULL(test, pg);
	return page_to_phys(pg->page);
}

static u8 *pt_ot_virt(u64 phys)
{
	return phys_to_virt(phys);
}

/*
 * An output region inside an allocation at least twice its size, so the
 * bytes after it (and, with skew, before it) are a guard.  want holds what
 * the whole allocation must contain.
 */
struct pt_ot_region {
	u64 alloc_phys;
	u32 alloc;
	u32 skew;
	u32 size;
	u8 *want;
};

static void pt_ot_region(struct kunit *test, struct pt_ot_region *g,
			 u32 size, u32 skew)
{
	unsigned int order = get_order(skew + 2 * size);

	g->alloc_phys = pt_ot_alloc(test, order);
	g->alloc = PAGE_SIZE << order;
	g->skew = skew;
	g->size = size;
	g->want = kunit_kmalloc(test, g->alloc, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, g->want);
	memset(pt_ot_virt(g->alloc_phys), OT_CANARY, g->alloc);
	memset(g->want, OT_CANARY, g->alloc);
}

static u64 pt_ot_base(const struct pt_ot_region *g)
{
	return g->alloc_phys + g->skew;
}

static void pt_ot_want(struct pt_ot_region *g, u32 off, const u8 *d, u32 n)
{
	memcpy(g->want + g->skew + off, d, n);
}

/* Put the canary back (memory and expectation) for a second run. */
static void pt_ot_region_reset(struct pt_ot_region *g)
{
	memset(pt_ot_virt(g->alloc_phys), OT_CANARY, g->alloc);
	memset(g->want, OT_CANARY, g->alloc);
}

static void pt_ot_check(struct kunit *test, const struct pt_ot_region *g,
			const char *what)
{
	const u8 *got = pt_ot_virt(g->alloc_phys);
	u32 i;

	for (i = 0; i < g->alloc; i++)
		if (got[i] != g->want[i])
			break;
	if (i == g->alloc)
		return;
	KUNIT_FAIL(test,
		   "%s: byte %d of the region (size %u) is %#x, want %#x",
		   what, (int)i - (int)g->skew, g->size, got[i], g->want[i]);
}

/* A trace stream that differs at every byte position. */
static u8 *pt_ot_data(struct kunit *test, u32 len, u8 seed)
{
	u8 *d = kunit_kmalloc(test, len, GFP_KERNEL);
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, d);
	for (i = 0; i < len; i++)
		d[i] = (u8)(seed + i + (i >> 8) * 13);
	return d;
}

/*
 * The ToPA ring as a test reference: regions in the order the hardware
 * fills them, and the linear position of the next byte.
 */
struct pt_ot_ring {
	struct pt_ot_region *g[4];
	unsigned int n;
	u64 pos;
};

static u64 pt_ot_ring_size(const struct pt_ot_ring *ring)
{
	u64 t = 0;
	unsigned int i;

	for (i = 0; i < ring->n; i++)
		t += ring->g[i]->size;
	return t;
}

static void pt_ot_ring_put(struct pt_ot_ring *ring, const u8 *d, u32 len)
{
	u64 total = pt_ot_ring_size(ring);

	while (len) {
		u64 p = ring->pos % total;
		unsigned int i = 0;
		u32 n;

		while (p >= ring->g[i]->size)
			p -= ring->g[i++]->size;
		n = min_t(u64, len, ring->g[i]->size - p);
		pt_ot_want(ring->g[i], p, d, n);
		d += n;
		len -= n;
		ring->pos += n;
	}
}

/* ToPA entry of a region: Size 9:6 is log2(size) - 12. */
static u64 pt_ot_entry(u64 base, u32 size)
{
	return base | (u64)(ilog2(size) - 12) << 6;
}

/*
 * OUTPUT_MASK_PTRS for ToPA: OutputOffset in 63:32, bits 27:3 of the
 * table offset (entry index * 8) in MaskOrTableOffset 31:7, LowerMask 6:0
 * reading as ones.
 */
static u64 pt_ot_ptrs(u32 idx, u32 off)
{
	return (u64)off << 32 | ((((u64)idx * 8) >> 3) << 7) | 0x7f;
}

/* Single range: the mask of a 2^n region and an OutputOffset. */
static u64 pt_ot_sr_ptrs(u32 size, u32 off)
{
	return (u64)off << 32 | (size - 1) | 0x7f;
}

static u64 *pt_ot_table(struct kunit *test, u64 *phys)
{
	*phys = pt_ot_alloc(test, 0);
	return phys_to_virt(*phys);
}

static const struct pt_model_profile *pt_ot_profile(struct kunit *test,
						    const char *name)
{
	const struct pt_model_profile *p = pt_model_profile_find(name);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, p->phys_bits, OT_MAXPHYADDR);
	return p;
}

static void pt_ot_regs(struct pt_model_regs *r, bool topa, u64 base,
		       u64 mask)
{
	memset(r, 0, sizeof(*r));
	r->ctl = OT_CTL_TRACEEN | OT_CTL_BRANCHEN | (topa ? OT_CTL_TOPA : 0);
	r->base = base;
	r->mask = mask;
}

/*
 * TraceEn 0->1 as the SDM has it: the output configuration is checked and
 * an operational error is signalled then (36.3.9); otherwise packet
 * generation may start (TriggerEn).
 */
static enum pt_model_operr pt_ot_enable(const struct pt_model_profile *p,
					struct pt_model_regs *r)
{
	enum pt_model_operr e = pt_model_out_check(p, r);

	r->status |= e ? OT_ST_ERROR : OT_ST_TRIGGEREN;
	return e;
}

struct pt_ot_res {
	struct pt_model_out_result out;
	enum pt_model_operr operr;
};

static void pt_ot_write(const struct pt_model_profile *p,
			struct pt_model_regs *r, const u8 *d, u32 len,
			struct pt_ot_res *res)
{
	memset(res, 0, sizeof(*res));
	res->operr = PT_OPERR_NR;	/* must be set by the engine */
	pt_model_out_write(p, r, d, len, &res->out, &res->operr);
}

/* Results and pointers, reported with the caller's line. */
static void pt_ot_expect_res(struct kunit *test, int line,
			     const struct pt_ot_res *res, u32 written,
			     u32 lost, bool pmi, enum pt_model_operr operr)
{
	KUNIT_EXPECT_EQ_MSG(test, res->out.written, written, "line %d", line);
	KUNIT_EXPECT_EQ_MSG(test, res->out.lost, lost, "line %d", line);
	KUNIT_EXPECT_EQ_MSG(test, res->out.pmi, pmi, "line %d", line);
	KUNIT_EXPECT_EQ_MSG(test, res->operr, operr, "line %d", line);
}

static void pt_ot_expect_ptrs(struct kunit *test, int line,
			      const struct pt_model_regs *r, u64 table,
			      u32 idx, u32 off)
{
	KUNIT_EXPECT_EQ_MSG(test, r->base, table, "line %d", line);
	KUNIT_EXPECT_EQ_MSG(test, r->mask, pt_ot_ptrs(idx, off),
			    "line %d: want entry %u offset %u", line, idx,
			    off);
}

#define OT_EXPECT_RES(test, ...) pt_ot_expect_res(test, __LINE__, __VA_ARGS__)
#define OT_EXPECT_PTRS(test, ...) \
	pt_ot_expect_ptrs(test, __LINE__, __VA_ARGS__)

/* Tracing off, stopped or in error: nothing reaches memory. */
static void pt_ot_not_tracing(struct kunit *test)
{
	static const u64 states[][2] = {
		{ 0, OT_ST_TRIGGEREN },			/* TraceEn=0 */
		{ OT_CTL_TRACEEN, OT_ST_STOPPED },
		{ OT_CTL_TRACEEN, OT_ST_ERROR },
	};
	const struct pt_model_profile *p = pt_ot_profile(test, "icl");
	u8 *d = pt_ot_data(test, 64, 1);
	struct pt_model_regs r;
	struct pt_ot_region g;
	struct pt_ot_res res;
	unsigned int i, topa;
	u64 t, *tab = pt_ot_table(test, &t);

	pt_ot_region(test, &g, 4096, 0);
	tab[0] = pt_ot_entry(pt_ot_base(&g), 4096);
	tab[1] = t | OT_END;
	for (topa = 0; topa < 2; topa++) {
		for (i = 0; i < ARRAY_SIZE(states); i++) {
			pt_ot_regs(&r, topa, topa ? t : pt_ot_base(&g),
				   topa ? pt_ot_ptrs(0, 8) :
					  pt_ot_sr_ptrs(4096, 8));
			r.ctl = (r.ctl & ~OT_CTL_TRACEEN) | states[i][0];
			r.status = states[i][1];
			pt_ot_write(p, &r, d, 64, &res);
			OT_EXPECT_RES(test, &res, 0, 64, false, PT_OPERR_NONE);
			KUNIT_EXPECT_EQ(test, r.status, states[i][1]);
			KUNIT_EXPECT_EQ(test, r.mask,
					topa ? pt_ot_ptrs(0, 8) :
					       pt_ot_sr_ptrs(4096, 8));
		}
	}
	pt_ot_check(test, &g, "not tracing");
}

/* Single range: base + OutputOffset, circular inside the mask. */
static void pt_ot_sr_write(struct kunit *test)
{
	const struct pt_model_profile *p = pt_ot_profile(test, "icl");
	u8 *d = pt_ot_data(test, 3 * 4096, 7);
	struct pt_model_regs r;
	struct pt_ot_region g;
	struct pt_ot_res res;

	pt_ot_region(test, &g, 4096, 0);
	pt_ot_regs(&r, false, pt_ot_base(&g), pt_ot_sr_ptrs(4096, 0x100));
	KUNIT_ASSERT_EQ(test, pt_ot_enable(p, &r), PT_OPERR_NONE);

	pt_ot_write(p, &r, d, 0x20, &res);
	OT_EXPECT_RES(test, &res, 0x20, 0, false, PT_OPERR_NONE);
	pt_ot_want(&g, 0x100, d, 0x20);
	KUNIT_EXPECT_EQ(test, r.mask, pt_ot_sr_ptrs(4096, 0x120));
	KUNIT_EXPECT_EQ(test, r.base, pt_ot_base(&g));
	pt_ot_check(test, &g, "single range, no wrap");

	/* To the last byte exactly: OutputOffset wraps to 0. */
	pt_ot_write(p, &r, d + 0x20, 4096 - 0x120, &res);
	OT_EXPECT_RES(test, &res, 4096 - 0x120, 0, false, PT_OPERR_NONE);
	pt_ot_want(&g, 0x120, d + 0x20, 4096 - 0x120);
	KUNIT_EXPECT_EQ(test, r.mask, pt_ot_sr_ptrs(4096, 0));
	pt_ot_check(test, &g, "single range, to the end");

	/* Across the end: split at the mask, the rest at the base. */
	r.mask = pt_ot_sr_ptrs(4096, 0xff0);
	pt_ot_write(p, &r, d + 0x1000, 0x30, &res);
	OT_EXPECT_RES(test, &res, 0x30, 0, false, PT_OPERR_NONE);
	pt_ot_want(&g, 0xff0, d + 0x1000, 0x10);
	pt_ot_want(&g, 0, d + 0x1010, 0x20);
	KUNIT_EXPECT_EQ(test, r.mask, pt_ot_sr_ptrs(4096, 0x20));
	pt_ot_check(test, &g, "single range, wrap");

	/* More than a lap in one write: the last bytes win. */
	pt_ot_write(p, &r, d, 2 * 4096 + 0x40, &res);
	OT_EXPECT_RES(test, &res, 2 * 4096 + 0x40, 0, false, PT_OPERR_NONE);
	/* Byte i lands at (0x20 + i) & 0xfff; the last lap starts at 0x60. */
	pt_ot_want(&g, 0x60, d + 4096 + 0x40, 4096 - 0x60);
	pt_ot_want(&g, 0, d + 2 * 4096 - 0x20, 0x60);
	KUNIT_EXPECT_EQ(test, r.mask, pt_ot_sr_ptrs(4096, 0x60));
	pt_ot_check(test, &g, "single range, two laps");

	/* OutputOffset == mask is legal (Table 36-9: "less than or equal"). */
	r.status = 0;
	r.mask = pt_ot_sr_ptrs(4096, 0xfff);
	KUNIT_ASSERT_EQ(test, pt_ot_enable(p, &r), PT_OPERR_NONE);
	pt_ot_write(p, &r, d + 0x2000, 3, &res);
	OT_EXPECT_RES(test, &res, 3, 0, false, PT_OPERR_NONE);
	pt_ot_want(&g, 0xfff, d + 0x2000, 1);
	pt_ot_want(&g, 0, d + 0x2001, 2);
	KUNIT_EXPECT_EQ(test, r.mask, pt_ot_sr_ptrs(4096, 2));
	pt_ot_check(test, &g, "single range, offset at the mask");
}

/* The smallest region: MaskOrTableOffset 0, LowerMask alone (128 B). */
static void pt_ot_sr_128(struct kunit *test)
{
	const struct pt_model_profile *p = pt_ot_profile(test, "icl");
	u8 *d = pt_ot_data(test, 0x90, 3);
	struct pt_model_regs r;
	struct pt_ot_region g;
	struct pt_ot_res res;

	pt_ot_region(test, &g, 128, 128);
	/* LowerMask reads as ones whatever was written (Table 36-9). */
	pt_ot_regs(&r, false, pt_ot_base(&g), 0x10ULL << 32);
	KUNIT_ASSERT_EQ(test, pt_ot_enable(p, &r), PT_OPERR_NONE);
	pt_ot_write(p, &r, d, 0x90, &res);
	OT_EXPECT_RES(test, &res, 0x90, 0, false, PT_OPERR_NONE);
	pt_ot_want(&g, 0x10, d, 0x70);
	pt_ot_want(&g, 0, d + 0x70, 0x20);
	KUNIT_EXPECT_EQ(test, r.mask, pt_ot_sr_ptrs(128, 0x20));
	pt_ot_check(test, &g, "128-byte region");
}

/*
 * Single-range operational errors (Tables 36-8, 36-9): signalled at
 * TraceEn, STATUS.Error, nothing written.  Each region is placed so that
 * an engine writing anyway would stay inside the guarded allocation.
 */
static void pt_ot_sr_errors(struct kunit *test)
{
	static const struct {
		u32 size, skew;		/* region allocated */
		u32 mask, off;		/* MaskOrTableOffset, OutputOffset */
		enum pt_model_operr want;
		const char *what;
	} c[] = {
		{ 4096, 0, 0x17f, 0, PT_OPERR_SR_MASK, "mask bit 7 clear" },
		{ 4096, 0, 0x2ff, 0, PT_OPERR_SR_MASK, "mask not contiguous" },
		{ 8192, 4096, 0x1fff, 0, PT_OPERR_SR_BASE, "base unaligned" },
		{ 4096, 0, 0xfff, 0x1000, PT_OPERR_SR_OFFSET, "offset > mask" },
		{ 4096, 0, 0x7f, 0x80, PT_OPERR_SR_OFFSET, "offset > 0x7f" },
	};
	const struct pt_model_profile *p = pt_ot_profile(test, "icl");
	u8 *d = pt_ot_data(test, 64, 9);
	struct pt_model_regs r;
	struct pt_ot_region g;
	struct pt_ot_res res;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		u64 mask = (u64)c[i].off << 32 | c[i].mask;

		pt_ot_region(test, &g, c[i].size, c[i].skew);
		pt_ot_regs(&r, false, pt_ot_base(&g), mask);
		KUNIT_EXPECT_EQ_MSG(test, pt_ot_enable(p, &r), c[i].want,
				    "%s", c[i].what);
		KUNIT_EXPECT_EQ(test, r.status, OT_ST_ERROR);
		if (!(r.status & OT_ST_ERROR))
			continue;	/* writing could go anywhere */
		pt_ot_write(p, &r, d, 64, &res);
		OT_EXPECT_RES(test, &res, 0, 64, false, PT_OPERR_NONE);
		KUNIT_EXPECT_EQ(test, r.mask, mask);
		pt_ot_check(test, &g, c[i].what);
	}
}

/*
 * Multi-entry ToPA: A = [R0 4K, R1 8K, END->B], B = [R2 4K, END->A].
 * Bytes split across region ends exactly, END is followed to the next
 * table (and back to the first: a ring), MASK_PTRS names the entry the
 * next byte goes to.  The tables themselves are never written.
 */
static void pt_ot_topa_walk_one(struct kunit *test, const char *name)
{
	const struct pt_model_profile *p = pt_ot_profile(test, name);
	u8 *d = pt_ot_data(test, 20000, 0x31);
	struct pt_ot_region g[3];
	struct pt_ot_ring ring = { .g = { &g[0], &g[1], &g[2] }, .n = 3 };
	struct pt_model_regs r;
	struct pt_ot_res res;
	u64 a, b, *ta = pt_ot_table(test, &a), *tb = pt_ot_table(test, &b);
	u64 saved[2][3];

	pt_ot_region(test, &g[0], 4096, 0);
	pt_ot_region(test, &g[1], 8192, 0);
	pt_ot_region(test, &g[2], 4096, 0);
	ta[0] = pt_ot_entry(pt_ot_base(&g[0]), 4096);
	ta[1] = pt_ot_entry(pt_ot_base(&g[1]), 8192);
	ta[2] = b | OT_END;
	tb[0] = pt_ot_entry(pt_ot_base(&g[2]), 4096);
	tb[1] = a | OT_END;
	memcpy(saved[0], ta, sizeof(saved[0]));
	memcpy(saved[1], tb, sizeof(saved[1]));

	pt_ot_regs(&r, true, a, pt_ot_ptrs(0, 0));
	KUNIT_ASSERT_EQ(test, pt_ot_enable(p, &r), PT_OPERR_NONE);

	pt_ot_write(p, &r, d, 100, &res);
	OT_EXPECT_RES(test, &res, 100, 0, false, PT_OPERR_NONE);
	pt_ot_ring_put(&ring, d, 100);
	OT_EXPECT_PTRS(test, &r, a, 0, 100);

	/* R0 -> R1: 3996 bytes fill R0, 10 go to R1. */
	pt_ot_write(p, &r, d + 100, 4006, &res);
	OT_EXPECT_RES(test, &res, 4006, 0, false, PT_OPERR_NONE);
	pt_ot_ring_put(&ring, d + 100, 4006);
	OT_EXPECT_PTRS(test, &r, a, 1, 10);

	/* R1 filled exactly: the next byte goes to B[0] (END followed). */
	pt_ot_write(p, &r, d + 4106, 8182, &res);
	OT_EXPECT_RES(test, &res, 8182, 0, false, PT_OPERR_NONE);
	pt_ot_ring_put(&ring, d + 4106, 8182);
	OT_EXPECT_PTRS(test, &r, b, 0, 0);

	/* R2 filled, END back to A: the ring wraps into R0. */
	pt_ot_write(p, &r, d + 12288, 4146, &res);
	OT_EXPECT_RES(test, &res, 4146, 0, false, PT_OPERR_NONE);
	pt_ot_ring_put(&ring, d + 12288, 4146);
	OT_EXPECT_PTRS(test, &r, a, 0, 50);
	pt_ot_check(test, &g[0], "R0 after a lap");
	pt_ot_check(test, &g[1], "R1 after a lap");
	pt_ot_check(test, &g[2], "R2 after a lap");

	/* One write of more than the whole ring (16 KiB + 300). */
	pt_ot_write(p, &r, d + 1000, 16684, &res);
	OT_EXPECT_RES(test, &res, 16684, 0, false, PT_OPERR_NONE);
	pt_ot_ring_put(&ring, d + 1000, 16684);
	OT_EXPECT_PTRS(test, &r, a, 0, 350);
	pt_ot_check(test, &g[0], "R0 after a long write");
	pt_ot_check(test, &g[1], "R1 after a long write");
	pt_ot_check(test, &g[2], "R2 after a long write");

	KUNIT_EXPECT_EQ(test, r.status, OT_ST_TRIGGEREN);
	KUNIT_EXPECT_EQ(test, memcmp(saved[0], ta, sizeof(saved[0])), 0);
	KUNIT_EXPECT_EQ(test, memcmp(saved[1], tb, sizeof(saved[1])), 0);
}

static void pt_ot_topa_walk(struct kunit *test)
{
	pt_ot_topa_walk_one(test, "icl");
	pt_ot_topa_walk_one(test, "min");
}

/*
 * ToPA Stop: the STOP region is filled to its last byte and no further;
 * STATUS.Stopped, TriggerEn cleared, OUTPUT_BASE = the table holding the
 * STOP entry, MaskOrTableOffset = that entry, OutputOffset = its size;
 * everything after is lost, not wrapped over the ring's start.
 */
static void pt_ot_topa_stop(struct kunit *test)
{
	const struct pt_model_profile *p = pt_ot_profile(test, "icl");
	u8 *d = pt_ot_data(test, 9000, 0x55);
	struct pt_ot_region g[2];
	struct pt_model_regs r;
	struct pt_ot_res res;
	u64 a, b, *ta = pt_ot_table(test, &a), *tb = pt_ot_table(test, &b);

	pt_ot_region(test, &g[0], 4096, 0);
	pt_ot_region(test, &g[1], 4096, 0);
	ta[0] = pt_ot_entry(pt_ot_base(&g[0]), 4096);
	ta[1] = pt_ot_entry(pt_ot_base(&g[1]), 4096) | OT_STOP;
	ta[2] = a | OT_END;

	/* Byte by byte up to the end of the STOP region. */
	pt_ot_regs(&r, true, a, pt_ot_ptrs(0, 0));
	KUNIT_ASSERT_EQ(test, pt_ot_enable(p, &r), PT_OPERR_NONE);
	pt_ot_write(p, &r, d, 4096 + 4095, &res);
	OT_EXPECT_RES(test, &res, 4096 + 4095, 0, false, PT_OPERR_NONE);
	OT_EXPECT_PTRS(test, &r, a, 1, 4095);
	KUNIT_EXPECT_EQ(test, r.status, OT_ST_TRIGGEREN);
	pt_ot_write(p, &r, d + 8191, 1, &res);
	OT_EXPECT_RES(test, &res, 1, 0, false, PT_OPERR_NONE);
	OT_EXPECT_PTRS(test, &r, a, 1, 4096);
	KUNIT_EXPECT_EQ(test, r.status, OT_ST_STOPPED);
	pt_ot_write(p, &r, d, 500, &res);
	OT_EXPECT_RES(test, &res, 0, 500, false, PT_OPERR_NONE);
	OT_EXPECT_PTRS(test, &r, a, 1, 4096);
	pt_ot_want(&g[0], 0, d, 4096);
	pt_ot_want(&g[1], 0, d + 4096, 4096);
	pt_ot_check(test, &g[0], "STOP: R0");
	pt_ot_check(test, &g[1], "STOP: R1");

	/*
	 * Offset == size is legal only while Stopped=1 ("Illegal ToPA
	 * Output Offset (if IA32_RTIT_STATUS.Stopped=0)").
	 */
	KUNIT_EXPECT_EQ(test, pt_model_out_check(p, &r), PT_OPERR_NONE);
	r.status = 0;
	KUNIT_EXPECT_EQ(test, pt_model_out_check(p, &r), PT_OPERR_OFFSET);

	/* One write past the STOP region: R0 is not overwritten. */
	pt_ot_region_reset(&g[0]);
	pt_ot_region_reset(&g[1]);
	pt_ot_regs(&r, true, a, pt_ot_ptrs(0, 0));
	KUNIT_ASSERT_EQ(test, pt_ot_enable(p, &r), PT_OPERR_NONE);
	pt_ot_write(p, &r, d + 100, 8192 + 300, &res);
	OT_EXPECT_RES(test, &res, 8192, 300, false, PT_OPERR_NONE);
	OT_EXPECT_PTRS(test, &r, a, 1, 4096);
	KUNIT_EXPECT_EQ(test, r.status, OT_ST_STOPPED);
	pt_ot_want(&g[0], 0, d + 100, 4096);
	pt_ot_want(&g[1], 0, d + 4196, 4096);
	pt_ot_check(test, &g[0], "STOP in one write: R0");
	pt_ot_check(test, &g[1], "STOP in one write: R1");

	/* STOP in the second table: OUTPUT_BASE names that table. */
	pt_ot_region_reset(&g[0]);
	pt_ot_region_reset(&g[1]);
	ta[1] = b | OT_END;
	tb[0] = pt_ot_entry(pt_ot_base(&g[1]), 4096) | OT_STOP;
	tb[1] = a | OT_END;
	pt_ot_regs(&r, true, a, pt_ot_ptrs(0, 4000));
	KUNIT_ASSERT_EQ(test, pt_ot_enable(p, &r), PT_OPERR_NONE);
	pt_ot_write(p, &r, d, 96 + 4096 + 7, &res);
	OT_EXPECT_RES(test, &res, 96 + 4096, 7, false, PT_OPERR_NONE);
	OT_EXPECT_PTRS(test, &r, b, 0, 4096);
	KUNIT_EXPECT_EQ(test, r.status, OT_ST_STOPPED);
	pt_ot_want(&g[0], 4000, d, 96);
	pt_ot_want(&g[1], 0, d + 96, 4096);
	pt_ot_check(test, &g[0], "STOP in table B: R0");
	pt_ot_check(test, &g[1], "STOP in table B: R1");
}

/*
 * 36.2.6.2: the hardware "may cache internally any number of" ToPA
 * entries and ignore modifications made while tracing; the model
 * (model_topa_cached) reads its copies at TraceEn 0->1
 * (pt_model_topa_cache_fill(), as model.c calls it) and uses them until
 * the next enable.  An entry edited while TraceEn=1 is not seen; after
 * the next enable it is.
 */
static void pt_ot_topa_cached(struct kunit *test)
{
	const struct pt_model_profile *p = pt_ot_profile(test, "icl");
	u8 *d = pt_ot_data(test, 4196, 0x6b);
	struct pt_ot_region g[3];
	struct pt_model_regs r;
	struct pt_ot_res res;
	u64 a, *ta = pt_ot_table(test, &a);
	int i;

	for (i = 0; i < 3; i++)
		pt_ot_region(test, &g[i], 4096, 0);
	ta[0] = pt_ot_entry(pt_ot_base(&g[0]), 4096);
	ta[1] = pt_ot_entry(pt_ot_base(&g[1]), 4096);
	ta[2] = a | OT_END;

	pt_ot_regs(&r, true, a, pt_ot_ptrs(0, 0));
	KUNIT_ASSERT_EQ(test, pt_ot_enable(p, &r), PT_OPERR_NONE);
	pt_model_topa_cache_fill(&r);
	KUNIT_EXPECT_GE(test, r.topa_ncache, 3U);
	/* While tracing: entry 1 now names R2 in memory, not in the copy. */
	ta[1] = pt_ot_entry(pt_ot_base(&g[2]), 4096);
	pt_ot_write(p, &r, d, 4196, &res);
	OT_EXPECT_RES(test, &res, 4196, 0, false, PT_OPERR_NONE);
	OT_EXPECT_PTRS(test, &r, a, 1, 100);
	pt_ot_want(&g[0], 0, d, 4096);
	pt_ot_want(&g[1], 0, d + 4096, 100);
	pt_ot_check(test, &g[0], "cached: R0");
	pt_ot_check(test, &g[1], "cached: R1 from the entry read at enable");
	pt_ot_check(test, &g[2], "cached: R2 untouched while tracing");

	/* The next enable reads the table again: R2 now. */
	for (i = 0; i < 3; i++)
		pt_ot_region_reset(&g[i]);
	pt_ot_regs(&r, true, a, pt_ot_ptrs(0, 0));
	KUNIT_ASSERT_EQ(test, pt_ot_enable(p, &r), PT_OPERR_NONE);
	pt_model_topa_cache_fill(&r);
	pt_ot_write(p, &r, d, 4196, &res);
	OT_EXPECT_RES(test, &res, 4196, 0, false, PT_OPERR_NONE);
	pt_ot_want(&g[0], 0, d, 4096);
	pt_ot_want(&g[2], 0, d + 4096, 100);
	pt_ot_check(test, &g[0], "re-enabled: R0");
	pt_ot_check(test, &g[1], "re-enabled: R1 no longer in the table");
	pt_ot_check(test, &g[2], "re-enabled: R2 from memory");
}

/* ToPA PMI: an INT region raises it when it fills, and only then. */
static void pt_ot_topa_int(struct kunit *test)
{
	const struct pt_model_profile *p = pt_ot_profile(test, "icl");
	u8 *d = pt_ot_data(test, 9000, 0x77);
	struct pt_ot_region g[2];
	struct pt_ot_ring ring = { .g = { &g[0], &g[1] }, .n = 2 };
	struct pt_model_regs r;
	struct pt_ot_res res;
	u64 a, *ta = pt_ot_table(test, &a);

	pt_ot_region(test, &g[0], 4096, 0);
	pt_ot_region(test, &g[1], 4096, 0);
	ta[0] = pt_ot_entry(pt_ot_base(&g[0]), 4096) | OT_INT;
	ta[1] = pt_ot_entry(pt_ot_base(&g[1]), 4096);
	ta[2] = a | OT_END;
	pt_ot_regs(&r, true, a, pt_ot_ptrs(0, 0));
	KUNIT_ASSERT_EQ(test, pt_ot_enable(p, &r), PT_OPERR_NONE);

	pt_ot_write(p, &r, d, 4095, &res);
	OT_EXPECT_RES(test, &res, 4095, 0, false, PT_OPERR_NONE);
	pt_ot_ring_put(&ring, d, 4095);
	pt_ot_write(p, &r, d + 4095, 1, &res);
	OT_EXPECT_RES(test, &res, 1, 0, true, PT_OPERR_NONE);
	pt_ot_ring_put(&ring, d + 4095, 1);
	OT_EXPECT_PTRS(test, &r, a, 1, 0);
	/* R1 has no INT. */
	pt_ot_write(p, &r, d + 4096, 4096, &res);
	OT_EXPECT_RES(test, &res, 4096, 0, false, PT_OPERR_NONE);
	pt_ot_ring_put(&ring, d + 4096, 4096);
	OT_EXPECT_PTRS(test, &r, a, 0, 0);
	pt_ot_write(p, &r, d, 10, &res);
	OT_EXPECT_RES(test, &res, 10, 0, false, PT_OPERR_NONE);
	pt_ot_ring_put(&ring, d, 10);
	/* Across R0's end, R1 and into R0 again: one PMI, for R0. */
	pt_ot_write(p, &r, d + 10, 4086 + 4096 + 10, &res);
	OT_EXPECT_RES(test, &res, 4086 + 4096 + 10, 0, true, PT_OPERR_NONE);
	pt_ot_ring_put(&ring, d + 10, 4086 + 4096 + 10);
	OT_EXPECT_PTRS(test, &r, a, 0, 10);
	KUNIT_EXPECT_EQ(test, r.status, OT_ST_TRIGGEREN);
	pt_ot_check(test, &g[0], "INT: R0");
	pt_ot_check(test, &g[1], "INT: R1");

	/* INT and STOP on one entry: both (the STOP comes first). */
	pt_ot_region_reset(&g[0]);
	pt_ot_region_reset(&g[1]);
	ta[0] |= OT_STOP;
	pt_ot_regs(&r, true, a, pt_ot_ptrs(0, 0));
	KUNIT_ASSERT_EQ(test, pt_ot_enable(p, &r), PT_OPERR_NONE);
	pt_ot_write(p, &r, d, 5000, &res);
	OT_EXPECT_RES(test, &res, 4096, 904, true, PT_OPERR_NONE);
	OT_EXPECT_PTRS(test, &r, a, 0, 4096);
	KUNIT_EXPECT_EQ(test, r.status, OT_ST_STOPPED);
	pt_ot_want(&g[0], 0, d, 4096);
	pt_ot_check(test, &g[0], "INT+STOP: R0");
	pt_ot_check(test, &g[1], "INT+STOP: R1");
}

/*
 * Single-entry ToPA (bdw: CPUID.14H:ECX.MENTRY = 0): [R0, END->table] is
 * a ring; entry 1 must be END (36.2.6.2, "ToPA Errors", rule 4c: "ToPA
 * entry 1 with END=0", "ToPA entry 1 with base address not matching the
 * table base"), detected when the entry is reached.  The same tables are
 * fine on a multi-entry profile.
 */
static void pt_ot_single_entry(struct kunit *test)
{
	const struct pt_model_profile *bdw = pt_ot_profile(test, "bdw");
	const struct pt_model_profile *icl = pt_ot_profile(test, "icl");
	u8 *d = pt_ot_data(test, 9000, 0x13);
	struct pt_ot_region g[2];
	struct pt_model_regs r;
	struct pt_ot_res res;
	u64 a, b, *ta = pt_ot_table(test, &a), *tb = pt_ot_table(test, &b);

	pt_ot_region(test, &g[0], 8192, 0);
	pt_ot_region(test, &g[1], 4096, 0);
	ta[0] = pt_ot_entry(pt_ot_base(&g[0]), 8192);
	ta[1] = a | OT_END;
	pt_ot_regs(&r, true, a, pt_ot_ptrs(0, 0));
	KUNIT_ASSERT_EQ(test, pt_ot_enable(bdw, &r), PT_OPERR_NONE);
	pt_ot_write(bdw, &r, d, 8000, &res);
	OT_EXPECT_RES(test, &res, 8000, 0, false, PT_OPERR_NONE);
	OT_EXPECT_PTRS(test, &r, a, 0, 8000);
	pt_ot_write(bdw, &r, d + 8000, 300, &res);
	OT_EXPECT_RES(test, &res, 300, 0, false, PT_OPERR_NONE);
	OT_EXPECT_PTRS(test, &r, a, 0, 108);
	pt_ot_want(&g[0], 108, d + 108, 8192 - 108);
	pt_ot_want(&g[0], 0, d + 8192, 108);
	pt_ot_check(test, &g[0], "single entry ring");
	KUNIT_EXPECT_EQ(test, r.status, OT_ST_TRIGGEREN);

	/* Entry 1 is a region, not END: an error once R0 is full. */
	pt_ot_region_reset(&g[0]);
	ta[0] = pt_ot_entry(pt_ot_base(&g[0]), 4096);
	ta[1] = pt_ot_entry(pt_ot_base(&g[1]), 4096);
	ta[2] = a | OT_END;
	pt_ot_regs(&r, true, a, pt_ot_ptrs(0, 0));
	KUNIT_EXPECT_EQ(test, pt_ot_enable(bdw, &r), PT_OPERR_NONE);
	pt_ot_write(bdw, &r, d, 4196, &res);
	OT_EXPECT_RES(test, &res, 4096, 100, false, PT_OPERR_SINGLE_ENTRY);
	KUNIT_EXPECT_EQ(test, r.status, OT_ST_ERROR);
	pt_ot_want(&g[0], 0, d, 4096);
	pt_ot_check(test, &g[0], "single entry, entry 1 not END: R0");
	pt_ot_check(test, &g[1], "single entry, entry 1 not END: R1");
	/* Multi-entry: the same table is two regions. */
	pt_ot_regs(&r, true, a, pt_ot_ptrs(0, 0));
	KUNIT_ASSERT_EQ(test, pt_ot_enable(icl, &r), PT_OPERR_NONE);
	pt_ot_write(icl, &r, d, 4196, &res);
	OT_EXPECT_RES(test, &res, 4196, 0, false, PT_OPERR_NONE);
	OT_EXPECT_PTRS(test, &r, a, 1, 100);

	/* Entry 1 is END to another table: an error once R0 is full. */
	pt_ot_region_reset(&g[0]);
	pt_ot_region_reset(&g[1]);
	ta[1] = b | OT_END;
	tb[0] = pt_ot_entry(pt_ot_base(&g[1]), 4096);
	tb[1] = b | OT_END;
	pt_ot_regs(&r, true, a, pt_ot_ptrs(0, 0));
	KUNIT_EXPECT_EQ(test, pt_ot_enable(bdw, &r), PT_OPERR_NONE);
	pt_ot_write(bdw, &r, d, 4196, &res);
	OT_EXPECT_RES(test, &res, 4096, 100, false, PT_OPERR_SINGLE_ENTRY);
	KUNIT_EXPECT_EQ(test, r.status, OT_ST_ERROR);
	pt_ot_want(&g[0], 0, d, 4096);
	pt_ot_check(test, &g[0], "single entry, END elsewhere: R0");
	pt_ot_check(test, &g[1], "single entry, END elsewhere: R1");
	pt_ot_regs(&r, true, a, pt_ot_ptrs(0, 0));
	KUNIT_ASSERT_EQ(test, pt_ot_enable(icl, &r), PT_OPERR_NONE);
	pt_ot_write(icl, &r, d, 4196, &res);
	OT_EXPECT_RES(test, &res, 4196, 0, false, PT_OPERR_NONE);
	OT_EXPECT_PTRS(test, &r, b, 0, 100);
}

/*
 * Byte by byte through @laps laps of a one-region INT ring: the number of
 * bytes in the region each time the PMI is raised.  Returns the count.
 */
static unsigned int pt_ot_pmi_points(const struct pt_model_profile *p,
				     struct pt_model_regs *r, const u8 *d,
				     u32 size, unsigned int laps, u32 *at,
				     unsigned int max)
{
	struct pt_ot_res res;
	unsigned int n = 0;
	u32 i;

	for (i = 0; i < laps * size; i++) {
		pt_ot_write(p, r, d + i % size, 1, &res);
		if (res.out.pmi && n < max)
			at[n++] = i % size + 1;
	}
	return n;
}

/*
 * The PMI of an INT region: multi-entry ToPA raises it when the region
 * is filled; single-entry ToPA "will attempt to signal a ToPA PMI
 * interrupt before the output wraps and overwrites the top of the
 * buffer" (36.2.6.2): before the region is full, and (for drivers that
 * copy perf) within perf's 512-byte margin of the end.  Once per lap.
 */
static void pt_ot_single_entry_pmi(struct kunit *test)
{
	static const char * const names[] = { "bdw", "icl" };
	const struct pt_model_profile *bdw = pt_ot_profile(test, "bdw");
	u8 *d = pt_ot_data(test, 8192, 0x21);
	struct pt_model_regs r;
	struct pt_ot_region g;
	struct pt_ot_res res;
	u64 a, *ta = pt_ot_table(test, &a);
	unsigned int i, n;
	u32 at[4];

	pt_ot_region(test, &g, 8192, 0);
	ta[0] = pt_ot_entry(pt_ot_base(&g), 8192) | OT_INT;
	ta[1] = a | OT_END;
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		const struct pt_model_profile *p = pt_ot_profile(test,
								 names[i]);
		bool single = !(p->leaf14[0].ecx & BIT(1));

		pt_ot_regs(&r, true, a, pt_ot_ptrs(0, 0));
		KUNIT_ASSERT_EQ(test, pt_ot_enable(p, &r), PT_OPERR_NONE);
		n = pt_ot_pmi_points(p, &r, d, 8192, 2, at, ARRAY_SIZE(at));
		KUNIT_ASSERT_EQ_MSG(test, n, 2U, "%s: PMIs in two laps",
				    names[i]);
		kunit_info(test, "%s: PMI at %u and %u bytes of 8192\n",
			   names[i], at[0], at[1]);
		KUNIT_EXPECT_EQ(test, at[0], at[1]);
		if (single) {
			KUNIT_EXPECT_LT(test, at[0], 8192U);
			KUNIT_EXPECT_GE(test, at[0],
					8192U - OT_PERF_PMI_MARGIN);
		} else {
			KUNIT_EXPECT_EQ(test, at[0], 8192U);
		}
		OT_EXPECT_PTRS(test, &r, a, 0, 0);
		KUNIT_EXPECT_EQ(test, r.status, OT_ST_TRIGGEREN);
	}

	/* INT+STOP, the SDM's advice for single entry: PMI, then stop. */
	ta[0] |= OT_STOP;
	pt_ot_regs(&r, true, a, pt_ot_ptrs(0, 0));
	KUNIT_ASSERT_EQ(test, pt_ot_enable(bdw, &r), PT_OPERR_NONE);
	pt_ot_write(bdw, &r, d, 8192, &res);
	OT_EXPECT_RES(test, &res, 8192, 0, true, PT_OPERR_NONE);
	OT_EXPECT_PTRS(test, &r, a, 0, 8192);
	KUNIT_EXPECT_EQ(test, r.status, OT_ST_STOPPED);
}

/*
 * An INT region that fills must signal its PMI (Table 36-3, INT: "When
 * the output region indicated by this entry is filled, signal Perfmon
 * LVT interrupt"), also when tracing (re)started with OutputOffset
 * already inside the single-entry early-PMI window.  Otherwise the
 * region wraps over unread data with no PMI at all.
 */
static void pt_ot_single_entry_pmi_late(struct kunit *test)
{
	const struct pt_model_profile *p = pt_ot_profile(test, "bdw");
	u8 *d = pt_ot_data(test, 8192, 0x41);
	struct pt_model_regs r;
	struct pt_ot_region g;
	struct pt_ot_res res;
	u64 a, *ta = pt_ot_table(test, &a);
	unsigned int n;
	u32 at[4];

	pt_ot_region(test, &g, 8192, 0);
	ta[0] = pt_ot_entry(pt_ot_base(&g), 8192) | OT_INT;
	ta[1] = a | OT_END;

	pt_ot_regs(&r, true, a, pt_ot_ptrs(0, 8192 - 100));
	KUNIT_ASSERT_EQ(test, pt_ot_enable(p, &r), PT_OPERR_NONE);
	pt_ot_write(p, &r, d, 100, &res);
	OT_EXPECT_RES(test, &res, 100, 0, true, PT_OPERR_NONE);
	OT_EXPECT_PTRS(test, &r, a, 0, 0);

	/* The same, byte by byte: one PMI by the time the region is full. */
	pt_ot_regs(&r, true, a, pt_ot_ptrs(0, 8192 - 100));
	KUNIT_ASSERT_EQ(test, pt_ot_enable(p, &r), PT_OPERR_NONE);
	n = pt_ot_pmi_points(p, &r, d, 100, 1, at, ARRAY_SIZE(at));
	KUNIT_EXPECT_EQ(test, n, 1U);
	OT_EXPECT_PTRS(test, &r, a, 0, 0);
}

/*
 * "ToPA Errors" found at TraceEn (the current entry is malformed) or by
 * the engine on its first byte: STATUS.Error, TriggerEn cleared, nothing
 * written anywhere.
 */
static void pt_ot_topa_errors_entry0(struct kunit *test)
{
	enum { E_RSVD, E_END0, E_ALIGN, E_TABLE, E_OFF, E_LOOP };
	static const struct {
		int kind;
		u64 bits;		/* E_RSVD: bits set in entry 0 */
		u32 off;		/* E_OFF: OutputOffset */
		enum pt_model_operr want;
		const char *what;
	} c[] = {
		{ E_RSVD, BIT_ULL(1), 0, PT_OPERR_ENTRY_RSVD, "bit 1" },
		{ E_RSVD, BIT_ULL(3), 0, PT_OPERR_ENTRY_RSVD, "bit 3" },
		{ E_RSVD, BIT_ULL(5), 0, PT_OPERR_ENTRY_RSVD, "bit 5" },
		{ E_RSVD, BIT_ULL(10), 0, PT_OPERR_ENTRY_RSVD, "bit 10" },
		{ E_RSVD, BIT_ULL(11), 0, PT_OPERR_ENTRY_RSVD, "bit 11" },
		{ E_RSVD, BIT_ULL(OT_MAXPHYADDR), 0, PT_OPERR_ENTRY_PHYS,
		  "base bit MAXPHYADDR" },
		{ E_RSVD, BIT_ULL(51), 0, PT_OPERR_ENTRY_PHYS, "base bit 51" },
		{ E_RSVD, BIT_ULL(63), 0, PT_OPERR_ENTRY_PHYS, "bit 63" },
		{ E_END0, 0, 0, PT_OPERR_END_FIRST, "END in entry 0" },
		{ E_ALIGN, 0, 0, PT_OPERR_ENTRY_ALIGN, "8K region at 4K" },
		{ E_TABLE, 0, 0, PT_OPERR_TABLE_ALIGN, "table at +0x80" },
		{ E_OFF, 0, 8192, PT_OPERR_OFFSET, "offset == size" },
		{ E_OFF, 0, 9000, PT_OPERR_OFFSET, "offset > size" },
		{ E_LOOP, 0, 0, PT_OPERR_END_FIRST, "END to END" },
	};
	const struct pt_model_profile *p = pt_ot_profile(test, "icl");
	u8 *d = pt_ot_data(test, 64, 0x66);
	struct pt_model_regs r, r0;
	struct pt_ot_region g;
	struct pt_ot_res res;
	u64 a, b, *ta = pt_ot_table(test, &a), *tb = pt_ot_table(test, &b);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		u64 base = a;
		u32 idx = 0;

		memset(ta, 0, PAGE_SIZE);
		memset(tb, 0, PAGE_SIZE);
		/* 8K region at alloc + 4K: misaligned for E_ALIGN only. */
		pt_ot_region(test, &g, 8192, c[i].kind == E_ALIGN ? 4096 : 0);
		ta[0] = pt_ot_entry(pt_ot_base(&g), 8192);
		ta[1] = a | OT_END;
		switch (c[i].kind) {
		case E_RSVD:
			ta[0] |= c[i].bits;
			break;
		case E_END0:
			tb[0] = pt_ot_entry(pt_ot_base(&g), 8192);
			tb[1] = b | OT_END;
			ta[0] = b | OT_END;
			break;
		case E_TABLE:
			/* A valid entry where a misaligned base would read. */
			ta[16] = ta[0];
			ta[17] = ta[1];
			base = a + 0x80;
			break;
		case E_LOOP:
			/* Start on A[1] = END->B, B[0] = END->A. */
			ta[1] = b | OT_END;
			tb[0] = a | OT_END;
			idx = 1;
			break;
		}
		pt_ot_regs(&r, true, base, pt_ot_ptrs(idx, c[i].off));
		r0 = r;
		if (c[i].kind != E_LOOP) {
			KUNIT_EXPECT_EQ_MSG(test, pt_ot_enable(p, &r), c[i].want,
					    "%s at TraceEn", c[i].what);
			KUNIT_EXPECT_EQ_MSG(test, r.status, OT_ST_ERROR,
					    "%s at TraceEn", c[i].what);
			pt_ot_write(p, &r, d, 64, &res);
			OT_EXPECT_RES(test, &res, 0, 64, false, PT_OPERR_NONE);
		}
		/* The engine alone, as if TraceEn had not checked. */
		r = r0;
		r.status = OT_ST_TRIGGEREN;
		pt_ot_write(p, &r, d, 64, &res);
		KUNIT_EXPECT_EQ_MSG(test, res.operr, c[i].want, "%s",
				    c[i].what);
		OT_EXPECT_RES(test, &res, 0, 64, false, c[i].want);
		KUNIT_EXPECT_EQ_MSG(test, r.status, OT_ST_ERROR, "%s",
				    c[i].what);
		pt_ot_check(test, &g, c[i].what);
	}
}

/*
 * A malformed entry after a good one is reached when the good region is
 * full ("disabling tracing when the problematic ToPA entry is reached"):
 * R0 gets exactly its bytes, then STATUS.Error and the rest is lost.
 */
static void pt_ot_topa_errors_later(struct kunit *test)
{
	enum { L_RSVD, L_END_STOP, L_END_INT, L_END_PHYS, L_ALIGN, L_LOOP };
	static const struct {
		int kind;
		enum pt_model_operr want;
		const char *what;
	} c[] = {
		{ L_RSVD, PT_OPERR_ENTRY_RSVD, "entry 1 bit 3" },
		{ L_END_STOP, PT_OPERR_END_FLAGS, "END with STOP" },
		{ L_END_INT, PT_OPERR_END_FLAGS, "END with INT" },
		{ L_END_PHYS, PT_OPERR_ENTRY_PHYS, "END above MAXPHYADDR" },
		{ L_ALIGN, PT_OPERR_ENTRY_ALIGN, "entry 1 8K at 4K" },
		{ L_LOOP, PT_OPERR_END_FIRST, "END to a table of END" },
	};
	const struct pt_model_profile *p = pt_ot_profile(test, "icl");
	u8 *d = pt_ot_data(test, 4196, 0x19);
	struct pt_ot_region g[2];
	struct pt_model_regs r;
	struct pt_ot_res res;
	u64 a, b, *ta = pt_ot_table(test, &a), *tb = pt_ot_table(test, &b);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		memset(ta, 0, PAGE_SIZE);
		memset(tb, 0, PAGE_SIZE);
		pt_ot_region(test, &g[0], 4096, 0);
		pt_ot_region(test, &g[1], 8192,
			     c[i].kind == L_ALIGN ? 4096 : 0);
		ta[0] = pt_ot_entry(pt_ot_base(&g[0]), 4096);
		ta[1] = pt_ot_entry(pt_ot_base(&g[1]), 8192);
		ta[2] = a | OT_END;
		switch (c[i].kind) {
		case L_RSVD:
			ta[1] |= BIT_ULL(3);
			break;
		case L_END_STOP:
			ta[1] = a | OT_END | OT_STOP;
			break;
		case L_END_INT:
			ta[1] = a | OT_END | OT_INT;
			break;
		case L_END_PHYS:
			ta[1] = b | BIT_ULL(OT_MAXPHYADDR) | OT_END;
			break;
		case L_LOOP:
			ta[1] = b | OT_END;
			tb[0] = b | OT_END;
			break;
		}
		pt_ot_regs(&r, true, a, pt_ot_ptrs(0, 0));
		KUNIT_EXPECT_EQ_MSG(test, pt_ot_enable(p, &r), PT_OPERR_NONE,
				    "%s: entry 0 is fine", c[i].what);
		pt_ot_write(p, &r, d, 4196, &res);
		KUNIT_EXPECT_EQ_MSG(test, res.operr, c[i].want, "%s",
				    c[i].what);
		OT_EXPECT_RES(test, &res, 4096, 100, false, c[i].want);
		KUNIT_EXPECT_EQ_MSG(test, r.status, OT_ST_ERROR, "%s",
				    c[i].what);
		pt_ot_want(&g[0], 0, d, 4096);
		pt_ot_check(test, &g[0], c[i].what);
		pt_ot_check(test, &g[1], c[i].what);
	}
}

/*
 * The model's own limit (Documentation/model.rst): a region that is not
 * RAM of this kernel is an operational error, never a stray write.
 */
static void pt_ot_unbacked(struct kunit *test)
{
	const struct pt_model_profile *p = pt_ot_profile(test, "icl");
	u64 hole = BIT_ULL(OT_MAXPHYADDR - 1);
	u8 *d = pt_ot_data(test, 64, 0x5a);
	struct pt_model_regs r;
	struct pt_ot_res res;
	u64 a, *ta = pt_ot_table(test, &a);

	if (pfn_valid(PHYS_PFN(hole)))
		kunit_skip(test, "%#llx is RAM here", hole);
	ta[0] = pt_ot_entry(hole, 4096);
	ta[1] = a | OT_END;
	pt_ot_regs(&r, true, a, pt_ot_ptrs(0, 0));
	KUNIT_EXPECT_EQ(test, pt_ot_enable(p, &r), PT_OPERR_UNBACKED);
	r.status = OT_ST_TRIGGEREN;
	pt_ot_write(p, &r, d, 64, &res);
	OT_EXPECT_RES(test, &res, 0, 64, false, PT_OPERR_UNBACKED);
	KUNIT_EXPECT_EQ(test, r.status, OT_ST_ERROR);
	/* The table itself not RAM either. */
	pt_ot_regs(&r, true, hole, pt_ot_ptrs(0, 0));
	KUNIT_EXPECT_EQ(test, pt_ot_enable(p, &r), PT_OPERR_UNBACKED);
}

/*
 * The tick's path places bytes first and stores them after its state is
 * published (pt_model_out_place/out_copy): it must end with the same
 * memory, registers and result as pt_model_out_write.
 */
static void pt_ot_place_copy(struct kunit *test)
{
	const struct pt_model_profile *p = pt_ot_profile(test, "icl");
	static const u32 lens[] = { 100, 4006, 8182, 4146, 16684 };
	struct pt_model_pending *pend = kunit_kzalloc(test, sizeof(*pend),
						      GFP_KERNEL);
	u8 *d = pt_ot_data(test, 20000, 0x44);
	struct pt_ot_region g[3];
	struct pt_model_regs rw, rp;
	struct pt_ot_res res;
	struct pt_model_out_result out;
	enum pt_model_operr operr;
	u64 a, b, *ta = pt_ot_table(test, &a), *tb = pt_ot_table(test, &b);
	unsigned int i, k;
	u32 from = 0;

	KUNIT_ASSERT_NOT_NULL(test, pend);
	pt_ot_region(test, &g[0], 4096, 0);
	pt_ot_region(test, &g[1], 8192, 0);
	pt_ot_region(test, &g[2], 4096, 0);
	ta[0] = pt_ot_entry(pt_ot_base(&g[0]), 4096);
	ta[1] = pt_ot_entry(pt_ot_base(&g[1]), 8192) | OT_INT;
	ta[2] = b | OT_END;
	tb[0] = pt_ot_entry(pt_ot_base(&g[2]), 4096) | OT_INT;
	tb[1] = a | OT_END;
	pt_ot_regs(&rw, true, a, pt_ot_ptrs(0, 0));
	KUNIT_ASSERT_EQ(test, pt_ot_enable(p, &rw), PT_OPERR_NONE);
	rp = rw;
	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		/* Reference: write, keep the memory as the expectation. */
		pt_ot_write(p, &rw, d + from, lens[i], &res);
		for (k = 0; k < 3; k++) {
			memcpy(g[k].want, pt_ot_virt(g[k].alloc_phys),
			       g[k].alloc);
			memset(pt_ot_virt(g[k].alloc_phys), OT_CANARY,
			       g[k].alloc);
		}
		/* The same write placed: nothing stored until the copy. */
		memset(pend, 0, sizeof(*pend));
		memset(&out, 0, sizeof(out));
		pend->data = d + from;
		pt_model_out_place(p, &rp, lens[i], &out, &operr, pend);
		for (k = 0; k < 3; k++) {
			const u8 *m = pt_ot_virt(g[k].alloc_phys);

			KUNIT_EXPECT_PTR_EQ_MSG(test,
						memchr_inv(m, OT_CANARY,
							   g[k].alloc),
						NULL, "region %u: place stored",
						k);
		}
		pt_model_out_copy(pend);
		KUNIT_EXPECT_EQ(test, out.written, res.out.written);
		KUNIT_EXPECT_EQ(test, out.lost, res.out.lost);
		KUNIT_EXPECT_EQ(test, out.pmi, res.out.pmi);
		KUNIT_EXPECT_EQ(test, operr, res.operr);
		KUNIT_EXPECT_EQ(test, memcmp(&rp, &rw, sizeof(rp)), 0);
		for (k = 0; k < 3; k++)
			pt_ot_check(test, &g[k], "place + copy");
		/* Next round starts from canaries again. */
		for (k = 0; k < 3; k++)
			pt_ot_region_reset(&g[k]);
		from += 100;
	}
}

static struct kunit_case pt_model_output_cases[] = {
	KUNIT_CASE(pt_ot_not_tracing),
	KUNIT_CASE(pt_ot_sr_write),
	KUNIT_CASE(pt_ot_sr_128),
	KUNIT_CASE(pt_ot_sr_errors),
	KUNIT_CASE(pt_ot_topa_walk),
	KUNIT_CASE(pt_ot_topa_stop),
	KUNIT_CASE(pt_ot_topa_cached),
	KUNIT_CASE(pt_ot_topa_int),
	KUNIT_CASE(pt_ot_single_entry),
	KUNIT_CASE(pt_ot_single_entry_pmi),
	KUNIT_CASE(pt_ot_single_entry_pmi_late),
	KUNIT_CASE(pt_ot_topa_errors_entry0),
	KUNIT_CASE(pt_ot_topa_errors_later),
	KUNIT_CASE(pt_ot_unbacked),
	KUNIT_CASE(pt_ot_place_copy),
	{}
};

static struct kunit_suite pt_model_output_suite = {
	.name = "pt_model_output",
	.test_cases = pt_model_output_cases,
};

kunit_test_suite(pt_model_output_suite);
