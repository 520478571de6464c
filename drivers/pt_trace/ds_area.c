// SPDX-License-Identifier: GPL-2.0
/*
 * The DS save area and its BTS buffer (SDM Vol. 3B 18.4.4.1, 18.7.8.3).
 *
 * The processor writes both through linear addresses, as the traced code
 * runs, whatever CR3 is loaded: so they live in the kernel's direct map
 * (the page allocator), never in memory that could be paged out or
 * remapped.  The area is a zeroed allocation of its own
 * (BTS_DS_AREA_BYTES, page-aligned, well beyond the SDM's alignment
 * needs, and never sharing a cache line with anything the kernel
 * writes).  The buffer is one physically contiguous
 * allocation of whole 24-byte records: base, index, absolute maximum and
 * threshold are all a whole number of records from the base, which the
 * SDM asks for ("the BTS absolute maximum ... should be a multiple of
 * the record size plus the base").
 *
 * PEBS.  IA32_DS_AREA serves perf's PEBS too (SDM Vol. 3B 18.4.4.1):
 * while it points here, a PEBS record another agent's counter produces
 * (perf schedules a per-task PEBS event on this CPU after START) is
 * stored through this area's PEBS fields, and its threshold PMI is
 * raised from them.  They describe a scratch buffer after the area, not
 * zeros: a record then lands in our memory
 * whatever the CPU makes of an empty buffer (the SDM says it writes none
 * when the index equals the maximum, but that is one reading of one
 * sentence), and the moved index is evidence the BTS source checks
 * (source_bts.c: BTS then gives IA32_DS_AREA back).  The threshold lies
 * inside the first record of any format (the smallest, adaptive PEBS's
 * basic record, is 32 bytes), so the first record reaches it and raises
 * the PMI at once where the CPU compares the index with >= as the SDM
 * words it ("if the PEBS Index reaches the threshold"); the SDM asks for
 * a threshold a whole number of records from the base, which a driver
 * not choosing the record format cannot know, and where no PMI comes
 * the moved index is found at the next check instead.  For the same
 * reason the absolute maximum cannot be a whole number of records from
 * the base, as the SDM asks: where the CPU checks only that the index
 * is below it, a record may start just below it and run past it.  So
 * the maximum lies BTS_DS_PEBS_GUARD (more than the largest record)
 * before the allocation's end, and several records stored before the
 * first PMI is served, however large (adaptive PEBS with LBRs: 1248
 * bytes; two used to run past a one-page area), stay in our memory.
 * The counter reset
 * fields (0x40 on) stay zero: a counter that stored a record here
 * restarts from 0 until perf programs it again.
 */
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/string.h>

#include "buffer.h"
#include "ds_area.h"

int bts_ds_alloc(struct bts_ds *ds, u64 bytes, int node)
{
	u64 nr = div_u64(bytes, BTS_RECORD_SIZE);

	memset(ds, 0, sizeof(*ds));
	if (nr < 2)
		return -EINVAL;
	if (nr * BTS_RECORD_SIZE > pt_buffer_max_contig())
		return -EINVAL;
	ds->order = get_order(nr * BTS_RECORD_SIZE);
	ds->area_page = alloc_pages_node(node, GFP_KERNEL | __GFP_ZERO,
					 BTS_DS_AREA_ORDER);
	if (!ds->area_page)
		return -ENOMEM;
	ds->buf_pages = alloc_pages_node(node, GFP_KERNEL | __GFP_ZERO |
					 __GFP_NOWARN, ds->order);
	if (!ds->buf_pages) {
		__free_pages(ds->area_page, BTS_DS_AREA_ORDER);
		ds->area_page = NULL;
		return -ENOMEM;
	}
	ds->area = page_address(ds->area_page);
	ds->buf = page_address(ds->buf_pages);
	ds->nr_records = nr;
	return 0;
}

void bts_ds_free(struct bts_ds *ds)
{
	if (ds->buf_pages)
		__free_pages(ds->buf_pages, ds->order);
	if (ds->area_page)
		__free_pages(ds->area_page, BTS_DS_AREA_ORDER);
	memset(ds, 0, sizeof(*ds));
}

void bts_ds_arm(struct bts_ds *ds, u64 thresh_records)
{
	u64 base = (u64)(unsigned long)ds->buf;

	memset(ds->buf, 0, ds->nr_records * BTS_RECORD_SIZE);
	memset(ds->area, 0, sizeof(*ds->area));
	ds->area->bts_base = base;
	ds->area->bts_index = base;
	ds->area->bts_max = base + ds->nr_records * BTS_RECORD_SIZE;
	ds->area->bts_thresh = base + min(thresh_records, ds->nr_records) *
				      BTS_RECORD_SIZE;
	base = (u64)(unsigned long)ds->area + BTS_DS_PEBS_SCRATCH;
	ds->area->pebs_base = base;
	ds->area->pebs_index = base;
	ds->area->pebs_max = (u64)(unsigned long)ds->area + BTS_DS_AREA_BYTES -
			     BTS_DS_PEBS_GUARD;
	ds->area->pebs_thresh = base + sizeof(u64);
}

bool bts_ds_pebs_stored(const struct bts_ds *ds)
{
	return READ_ONCE(ds->area->pebs_index) != ds->area->pebs_base;
}

u64 bts_ds_count(const struct bts_ds *ds)
{
	u64 idx = READ_ONCE(ds->area->bts_index);
	u64 base = ds->area->bts_base;

	/* The hardware keeps it within [base, max]: never trust more. */
	if (idx < base || idx > ds->area->bts_max)
		return 0;
	return div_u64(idx - base, BTS_RECORD_SIZE);
}

bool bts_ds_due(const struct bts_ds *ds)
{
	return READ_ONCE(ds->area->bts_index) >= ds->area->bts_thresh;
}

void bts_ds_rewind(struct bts_ds *ds)
{
	WRITE_ONCE(ds->area->bts_index, ds->area->bts_base);
}

bool bts_ds_put(struct bts_ds *ds, const struct bts_record *rec,
		bool circular)
{
	struct bts_ds_area *a = ds->area;
	u64 idx = READ_ONCE(a->bts_index);

	if (idx < a->bts_base || idx > a->bts_max)
		return false;
	if (idx == a->bts_max) {
		if (!circular)
			return false;
		idx = a->bts_base;
	}
	memcpy((void *)(unsigned long)idx, rec, sizeof(*rec));
	idx += BTS_RECORD_SIZE;
	/* As the CPU does with BTINT=0: the index wraps at the maximum. */
	if (circular && idx == a->bts_max)
		idx = a->bts_base;
	WRITE_ONCE(a->bts_index, idx);
	return true;
}
