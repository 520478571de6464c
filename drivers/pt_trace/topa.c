// SPDX-License-Identifier: GPL-2.0
/*
 * ToPA table layout and output-pointer arithmetic (see topa.h).
 *
 * Layout: chunk i lives in table i / PT_TOPA_DATA_ENTRIES, entry
 * i % PT_TOPA_DATA_ENTRIES; entry PT_TOPA_DATA_ENTRIES of every table (or
 * the entry right after the last chunk in the last table) is END pointing
 * to the next table, and the last table's END points to the first.  With
 * the buddy allocator's 4 MiB chunks one table covers ~2 GiB, so the
 * tables cost 4 KiB per 2 GiB; only a fully fragmented buffer of 4 KiB
 * chunks costs ~2 MiB per GiB.
 *
 * On CPUs without multi-entry ToPA (CPUID.14.0:ECX[1] = 0) a table may hold
 * only one region followed by END to itself: the buffer is one chunk.
 */
#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "regs.h"
#include "topa.h"

unsigned int pt_topa_nr_tables(unsigned int nr_chunks, bool single_entry)
{
	if (single_entry)
		return nr_chunks == 1 ? 1 : 0;
	return DIV_ROUND_UP(nr_chunks, PT_TOPA_DATA_ENTRIES);
}

static u64 pt_topa_region(const struct pt_topa_chunk *c)
{
	return (c->phys & PT_TOPA_BASE_MASK) |
	       ((u64)(c->shift - 12) << PT_TOPA_SIZE_SHIFT);
}

int pt_topa_build(const struct pt_topa *t)
{
	unsigned int i, tbl, idx;

	if (!t->nr_chunks || !t->nr_tables ||
	    t->nr_tables != pt_topa_nr_tables(t->nr_chunks, t->single_entry))
		return -EINVAL;
	for (i = 0; i < t->nr_chunks; i++) {
		const struct pt_topa_chunk *c = &t->chunks[i];

		if (c->shift < 12 || c->shift > PT_TOPA_MAX_REGION_SHIFT ||
		    (c->phys & (BIT_ULL(c->shift) - 1)) ||
		    (c->phys & ~PT_TOPA_BASE_MASK))
			return -EINVAL;
		if (t->chunk_off[i + 1] - t->chunk_off[i] != BIT_ULL(c->shift))
			return -EINVAL;
	}
	for (tbl = 0; tbl < t->nr_tables; tbl++) {
		if (t->table_phys[tbl] & (PT_TOPA_TABLE_BYTES - 1))
			return -EINVAL;
		memset(t->tables[tbl], 0, PT_TOPA_TABLE_BYTES);
	}

	for (i = 0; i < t->nr_chunks; i++) {
		tbl = i / PT_TOPA_DATA_ENTRIES;
		idx = i % PT_TOPA_DATA_ENTRIES;
		t->tables[tbl][idx] = pt_topa_region(&t->chunks[i]);
	}
	/* END after the last region of each table: a ring of tables. */
	for (tbl = 0; tbl < t->nr_tables; tbl++) {
		unsigned int next = (tbl + 1) % t->nr_tables;

		idx = tbl == t->nr_tables - 1 ?
		      (t->nr_chunks - 1) % PT_TOPA_DATA_ENTRIES + 1 :
		      PT_TOPA_DATA_ENTRIES;
		t->tables[tbl][idx] = (t->table_phys[next] & PT_TOPA_BASE_MASK) |
				      PT_TOPA_END;
	}
	return 0;
}

static u64 pt_topa_size(const struct pt_topa *t)
{
	return t->chunk_off[t->nr_chunks];
}

u64 pt_topa_ptrs_to_offset(const struct pt_topa *t, u64 output_base,
			   u64 mask_ptrs)
{
	u64 idx = (mask_ptrs & PT_MASK_TABLE_OFFSET_MASK) >>
		  PT_MASK_TABLE_OFFSET_SHIFT;
	u64 off = mask_ptrs >> PT_MASK_OUTPUT_OFFSET_SHIFT;
	unsigned int tbl, chunk;

	for (tbl = 0; tbl < t->nr_tables; tbl++)
		if (t->table_phys[tbl] == (output_base & PT_TOPA_BASE_MASK))
			break;
	if (tbl == t->nr_tables)
		return 0;	/* not ours: treat as the start */

	/* Pointing at END: the hardware continues in the next table. */
	if (idx >= PT_TOPA_DATA_ENTRIES ||
	    (u64)tbl * PT_TOPA_DATA_ENTRIES + idx >= t->nr_chunks) {
		tbl = (tbl + 1) % t->nr_tables;
		idx = 0;
		off = 0;
	}
	chunk = tbl * PT_TOPA_DATA_ENTRIES + idx;
	/* An offset at (or past) the region's end is the next region. */
	if (off >= BIT_ULL(t->chunks[chunk].shift))
		return t->chunk_off[chunk + 1] % pt_topa_size(t);
	return t->chunk_off[chunk] + off;
}

int pt_topa_offset_to_ptrs(const struct pt_topa *t, u64 offset,
			   u64 *output_base, u64 *mask_ptrs)
{
	unsigned int lo = 0, hi = t->nr_chunks;

	if (offset >= pt_topa_size(t))
		return -EINVAL;
	/* Binary search for the chunk holding @offset. */
	while (hi - lo > 1) {
		unsigned int mid = (lo + hi) / 2;

		if (t->chunk_off[mid] <= offset)
			lo = mid;
		else
			hi = mid;
	}
	*output_base = t->table_phys[lo / PT_TOPA_DATA_ENTRIES];
	*mask_ptrs = PT_MASK_LOWER |
		     ((u64)(lo % PT_TOPA_DATA_ENTRIES) <<
		      PT_MASK_TABLE_OFFSET_SHIFT) |
		     ((offset - t->chunk_off[lo]) <<
		      PT_MASK_OUTPUT_OFFSET_SHIFT);
	return 0;
}

/*
 * Single range: bits 31:7 of MASK_PTRS are the mask (size - 1), bits
 * 63:32 the offset; bits 6:0 read as ones.
 */
u64 pt_single_mask_ptrs(u64 size, u64 offset)
{
	return ((size - 1) & PT_MASK_TABLE_OFFSET_MASK) | PT_MASK_LOWER |
	       (offset << PT_MASK_OUTPUT_OFFSET_SHIFT);
}

u64 pt_single_ptrs_to_offset(u64 size, u64 mask_ptrs)
{
	return (mask_ptrs >> PT_MASK_OUTPUT_OFFSET_SHIFT) & (size - 1);
}
