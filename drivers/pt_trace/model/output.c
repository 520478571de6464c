// SPDX-License-Identifier: GPL-2.0
/*
 * Trace output, byte for byte where the hardware would put it
 * (SDM Vol. 3C 36.2.6): single-range output wrapping inside
 * OUTPUT_BASE with the MaskOrTableOffset mask, or a ToPA walk that follows
 * END entries to the next table, stops when a STOP region fills and
 * signals a PMI when an INT region fills.  OUTPUT_BASE/MASK_PTRS are kept
 * current after every write.  Malformed configurations are operational
 * errors (36.2.6.2 "ToPA Errors", 36.3.9): STATUS.Error, TriggerEn
 * cleared, output ceases.
 *
 * Memory is reached through the kernel's direct map, so the model only
 * writes to RAM the kernel manages (pfn_valid, not reserved); anything
 * else is reported as the model's own "unbacked" operational error
 * instead of scribbling over arbitrary physical memory.
 */
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/minmax.h>
#include <linux/pt_trace.h>
#include <linux/string.h>

#include "../regs.h"
#include "model.h"

/*
 * Single-entry ToPA delivers its PMI before the region is full (SDM
 * 36.2.6.2) at a distance the SDM does not give; perf allows a 512-byte
 * margin.  The model fires model_early_pmi bytes early (default 256,
 * any value from 0 to 4095; never more than the region minus one byte).
 */
unsigned int pt_model_early_pmi = 256;
/* Entries read at enable are used until the next one (model_topa_cached). */
bool pt_model_topa_cached = true;
/* END entries followed without reaching an output region. */
#define PT_MODEL_MAX_END_HOPS		64

static const char * const pt_operr_names[PT_OPERR_NR] = {
	[PT_OPERR_NONE]		= "none",
	[PT_OPERR_SR_MASK]	= "single_range_size_not_pow2",
	[PT_OPERR_SR_BASE]	= "single_range_base_unaligned",
	[PT_OPERR_SR_OFFSET]	= "single_range_offset_beyond_mask",
	[PT_OPERR_TABLE_ALIGN]	= "topa_table_unaligned",
	[PT_OPERR_ENTRY_RSVD]	= "topa_entry_reserved_bit",
	[PT_OPERR_ENTRY_ALIGN]	= "topa_region_unaligned",
	[PT_OPERR_ENTRY_PHYS]	= "topa_base_above_maxphyaddr",
	[PT_OPERR_END_FLAGS]	= "topa_end_with_stop_or_int",
	[PT_OPERR_END_FIRST]	= "topa_end_in_entry0",
	[PT_OPERR_SINGLE_ENTRY]	= "topa_single_entry_rule",
	[PT_OPERR_OFFSET]	= "topa_offset_beyond_region",
	[PT_OPERR_END_LOOP]	= "topa_end_loop",
	[PT_OPERR_UNBACKED]	= "unbacked_memory",
};

const char *pt_model_operr_str(enum pt_model_operr e)
{
	return e < PT_OPERR_NR ? pt_operr_names[e] : "?";
}

/* Is [phys, phys + len) RAM this kernel maps? */
static bool pt_phys_ok(u64 phys, u64 len)
{
	unsigned long pfn = PHYS_PFN(phys);
	unsigned long last = PHYS_PFN(phys + len - 1);

	for (; pfn <= last; pfn++) {
		if (!pfn_valid(pfn) || PageReserved(pfn_to_page(pfn)))
			return false;
		/* Huge regions: checking every page would be slow. */
		if (last - pfn > 64)
			pfn = last - 1;
	}
	return true;
}

static u64 pt_sr_mask(const struct pt_model_regs *r)
{
	return (r->mask & 0xffffffffULL) | PT_MASK_LOWER;
}

static u32 pt_out_offset(const struct pt_model_regs *r)
{
	return r->mask >> PT_MASK_OUTPUT_OFFSET_SHIFT;
}

static u32 pt_table_index(const struct pt_model_regs *r)
{
	return (r->mask & PT_MASK_TABLE_OFFSET_MASK) >> PT_MASK_TABLE_OFFSET_SHIFT;
}

static void pt_set_ptrs(struct pt_model_regs *r, u32 idx, u32 off)
{
	r->mask = (u64)off << PT_MASK_OUTPUT_OFFSET_SHIFT |
		  (u64)idx << PT_MASK_TABLE_OFFSET_SHIFT | PT_MASK_LOWER;
}

static u64 pt_region_size(u64 e)
{
	return 4096ULL << ((e & PT_TOPA_SIZE_MASK) >> PT_TOPA_SIZE_SHIFT);
}

/* Bits 1, 3, 5 and 11:10 of an entry are reserved (Table 36-3). */
#define PT_TOPA_RSVD	(BIT_ULL(1) | BIT_ULL(3) | BIT_ULL(5) | GENMASK_ULL(11, 10))

static enum pt_model_operr pt_entry_check(const struct pt_model_profile *p,
					  u64 table, u32 idx, u64 e)
{
	u64 base = e & ~GENMASK_ULL(11, 0);

	if (e & PT_TOPA_RSVD)
		return PT_OPERR_ENTRY_RSVD;
	if (base >> p->phys_bits)
		return PT_OPERR_ENTRY_PHYS;
	if (e & PT_TOPA_END) {
		if (e & (PT_TOPA_INT | PT_TOPA_STOP))
			return PT_OPERR_END_FLAGS;
		if (idx == 0)
			return PT_OPERR_END_FIRST;
		if (!pt_mp_ecx(p, PT_MP_MENTRY) && base != table)
			return PT_OPERR_SINGLE_ENTRY;
		return PT_OPERR_NONE;
	}
	/* Single-entry ToPA: entry 1 must be the END back to the table. */
	if (!pt_mp_ecx(p, PT_MP_MENTRY) && idx != 0)
		return PT_OPERR_SINGLE_ENTRY;
	if (base & (pt_region_size(e) - 1))
		return PT_OPERR_ENTRY_ALIGN;
	if (!pt_phys_ok(base, pt_region_size(e)))
		return PT_OPERR_UNBACKED;
	return PT_OPERR_NONE;
}

/*
 * Entry idx of the table at phys: the copy cached at enable if there is
 * one, else from memory (fail if it is not RAM).
 */
static bool pt_read_entry(const struct pt_model_regs *r, u64 table, u32 idx,
			  u64 *e)
{
	u64 phys = table + (u64)idx * 8;
	unsigned int i;

	for (i = 0; i < r->topa_ncache; i++)
		if (r->topa_cache[i].table == table &&
		    r->topa_cache[i].idx == idx) {
			*e = r->topa_cache[i].e;
			return true;
		}
	if (!pt_phys_ok(phys, 8))
		return false;
	*e = READ_ONCE(*(u64 *)phys_to_virt(phys));
	return true;
}

void pt_model_topa_cache_fill(struct pt_model_regs *r)
{
	u64 table = r->base, e;
	u32 idx = pt_table_index(r);

	r->topa_ncache = 0;
	if (!(r->ctl & PT_CTL_TOPA) || !READ_ONCE(pt_model_topa_cached))
		return;
	while (r->topa_ncache < PT_MODEL_TOPA_CACHE && idx < 512 &&
	       !(table & GENMASK_ULL(11, 7)) && pt_read_entry(r, table, idx, &e)) {
		r->topa_cache[r->topa_ncache].table = table;
		r->topa_cache[r->topa_ncache].idx = idx;
		r->topa_cache[r->topa_ncache].e = e;
		r->topa_ncache++;
		if (e & PT_TOPA_END) {
			table = e & ~GENMASK_ULL(11, 0);
			idx = 0;
		} else {
			idx++;
		}
	}
}

enum pt_model_operr pt_model_out_check(const struct pt_model_profile *p,
				       const struct pt_model_regs *r)
{
	u64 e;

	if (r->ctl & PT_CTL_FABRICEN)
		return PT_OPERR_NONE;
	if (!(r->ctl & PT_CTL_TOPA)) {
		u64 m = pt_sr_mask(r);

		if (m & (m + 1))
			return PT_OPERR_SR_MASK;
		if (r->base & m)
			return PT_OPERR_SR_BASE;
		if (pt_out_offset(r) > m)
			return PT_OPERR_SR_OFFSET;
		if (!pt_phys_ok(r->base, m + 1))
			return PT_OPERR_UNBACKED;
		return PT_OPERR_NONE;
	}
	if (r->base & GENMASK_ULL(11, 7))
		return PT_OPERR_TABLE_ALIGN;
	if (!pt_read_entry(r, r->base, pt_table_index(r), &e))
		return PT_OPERR_UNBACKED;
	if (pt_entry_check(p, r->base, pt_table_index(r), e))
		return pt_entry_check(p, r->base, pt_table_index(r), e);
	if (!(e & PT_TOPA_END) && pt_out_offset(r) >= pt_region_size(e) &&
	    !(r->status & PT_STATUS_STOPPED))
		return PT_OPERR_OFFSET;
	return PT_OPERR_NONE;
}

/*
 * One run of bytes to physical memory: stored at once (o->data) or
 * recorded for later (o->pend), or both.  A run never crosses an
 * output region, so it is contiguous in the direct map.
 */
struct pt_out_ctx {
	const u8 *data;
	struct pt_model_pending *pend;
	u32 from;		/* offset in the tick's bytes */
};

static bool pt_out_run(struct pt_out_ctx *o, u64 phys, u32 n)
{
	struct pt_model_pending *p = o->pend;

	if (p) {
		if (p->nseg >= PT_MODEL_MAX_SEGS)
			return false;
		p->seg[p->nseg].phys = phys;
		p->seg[p->nseg].from = o->from;
		p->seg[p->nseg].len = n;
		p->nseg++;
	}
	if (o->data)
		memcpy(phys_to_virt(phys), o->data + o->from, n);
	o->from += n;
	return true;
}

static void pt_single_write(struct pt_model_regs *r, struct pt_out_ctx *o,
			    u32 len, struct pt_model_out_result *res)
{
	u64 m = pt_sr_mask(r);
	u64 off = pt_out_offset(r);

	/*
	 * More than the region in one go: the first bytes are overwritten
	 * by the last ones before anyone can see them, so only the last
	 * mask + 1 bytes are stored (two runs at most).
	 */
	if (len > m + 1) {
		u32 skip = len - (m + 1);

		off = (off + skip) & m;
		o->from += skip;
		res->written += skip;
		len -= skip;
	}
	while (len) {
		u32 n = min_t(u64, len, m + 1 - off);

		pt_out_run(o, r->base + off, n);
		len -= n;
		res->written += n;
		off += n;
		if (off > m)
			off = 0;	/* wrap inside the region */
	}
	r->mask = (off << PT_MASK_OUTPUT_OFFSET_SHIFT) | (r->mask & 0xffffffffULL) |
		  PT_MASK_LOWER;
}

/* Follow END entries from (table, idx) to an output entry. */
static enum pt_model_operr pt_topa_resolve(const struct pt_model_profile *p,
					   struct pt_model_regs *r, u64 *entry)
{
	unsigned int hops;
	u64 e;

	for (hops = 0; hops < PT_MODEL_MAX_END_HOPS; hops++) {
		u32 idx = pt_table_index(r);
		enum pt_model_operr err;

		if (r->base & GENMASK_ULL(11, 7))
			return PT_OPERR_TABLE_ALIGN;
		if (!pt_read_entry(r, r->base, idx, &e))
			return PT_OPERR_UNBACKED;
		err = pt_entry_check(p, r->base, idx, e);
		if (err)
			return err;
		if (!(e & PT_TOPA_END)) {
			*entry = e;
			return PT_OPERR_NONE;
		}
		r->base = e & ~GENMASK_ULL(11, 0);
		pt_set_ptrs(r, 0, 0);
	}
	return PT_OPERR_END_LOOP;
}

/*
 * Does writing @n bytes at @off of an INT region of @size signal its PMI?
 * Multi-entry ToPA: when the region fills.  Single-entry ToPA: @early
 * bytes before the end (36.2.6.2: "before the output wraps"), once per
 * lap; and if that point was never crossed in this lap, because tracing
 * (re)started past it, when the region fills, so that a lap never wraps
 * over the start of the region without a PMI.
 */
static bool pt_int_fires(struct pt_model_regs *r, u64 off, u64 n, u64 size,
			 u64 early)
{
	if (off < size - early && off + n >= size - early) {
		r->int_early = early != 0;
		return true;
	}
	return early && off + n >= size && !r->int_early;
}

static void pt_topa_write(const struct pt_model_profile *p,
			  struct pt_model_regs *r, struct pt_out_ctx *o, u32 len,
			  struct pt_model_out_result *res,
			  enum pt_model_operr *operr)
{
	u64 early = pt_mp_ecx(p, PT_MP_MENTRY) ? 0 :
		    min(READ_ONCE(pt_model_early_pmi), 4095U);

	while (len) {
		u64 e, size, base, off, n;
		u32 idx;

		*operr = pt_topa_resolve(p, r, &e);
		if (*operr)
			break;
		idx = pt_table_index(r);
		off = pt_out_offset(r);
		size = pt_region_size(e);
		base = e & ~GENMASK_ULL(11, 0);
		if (off >= size) {
			*operr = PT_OPERR_OFFSET;
			break;
		}
		n = min_t(u64, len, size - off);
		/* Cannot happen: regions are 4 KiB at least (see model.h). */
		if (!pt_out_run(o, base + off, n))
			break;
		len -= n;
		res->written += n;
		if ((e & PT_TOPA_INT) && pt_int_fires(r, off, n, size, early))
			res->pmi = true;
		off += n;
		if (off < size) {
			pt_set_ptrs(r, idx, off);
			continue;
		}
		r->int_early = false;	/* the next lap may signal again */
		if (e & PT_TOPA_STOP) {
			/* ToPA Stop: pointers stay at the end of the region. */
			pt_set_ptrs(r, idx, off);
			r->status |= PT_STATUS_STOPPED;
			r->status &= ~PT_STATUS_TRIGGEREN;
			break;
		}
		pt_set_ptrs(r, idx + 1, 0);
		/* Keep the pointers on an output entry: follow END now. */
		*operr = pt_topa_resolve(p, r, &e);
		if (*operr)
			break;
	}
	res->lost += len;
}

static void pt_out_do(const struct pt_model_profile *p,
		      struct pt_model_regs *r, struct pt_out_ctx *o, u32 len,
		      struct pt_model_out_result *res,
		      enum pt_model_operr *operr)
{
	*operr = PT_OPERR_NONE;
	if (!(r->ctl & PT_CTL_TRACEEN) ||
	    (r->status & (PT_STATUS_ERROR | PT_STATUS_STOPPED)) ||
	    (r->ctl & PT_CTL_FABRICEN)) {
		res->lost += len;	/* no memory output to write to */
		return;
	}
	if (r->ctl & PT_CTL_TOPA)
		pt_topa_write(p, r, o, len, res, operr);
	else
		pt_single_write(r, o, len, res);
	if (*operr) {
		r->status |= PT_STATUS_ERROR;
		r->status &= ~PT_STATUS_TRIGGEREN;
	}
}

void pt_model_out_write(const struct pt_model_profile *p,
			struct pt_model_regs *r, const u8 *data, u32 len,
			struct pt_model_out_result *res,
			enum pt_model_operr *operr)
{
	struct pt_out_ctx o = { .data = data };

	pt_out_do(p, r, &o, len, res, operr);
}

void pt_model_out_place(const struct pt_model_profile *p,
			struct pt_model_regs *r, u32 len,
			struct pt_model_out_result *res,
			enum pt_model_operr *operr,
			struct pt_model_pending *pend)
{
	struct pt_out_ctx o = { .pend = pend };

	pt_out_do(p, r, &o, len, res, operr);
}

void pt_model_out_copy(const struct pt_model_pending *pend)
{
	unsigned int i;

	for (i = 0; i < pend->nseg; i++)
		memcpy(phys_to_virt(pend->seg[i].phys),
		       pend->data + pend->seg[i].from, pend->seg[i].len);
}
