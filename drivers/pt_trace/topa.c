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
	if (single_entry)	/* one entry, re-pointed in streaming */
		return nr_chunks ? 1 : 0;
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

	if (t->single_entry) {
		t->tables[0][0] = pt_topa_region(&t->chunks[0]);
		t->tables[0][1] = (t->table_phys[0] & PT_TOPA_BASE_MASK) |
				  PT_TOPA_END;
		return 0;
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

bool pt_topa_owns_base(const struct pt_topa *t, u64 output_base)
{
	unsigned int tbl;

	for (tbl = 0; tbl < t->nr_tables; tbl++)
		if (t->table_phys[tbl] == (output_base & PT_TOPA_BASE_MASK))
			return true;
	return false;
}

u64 pt_topa_ptrs_to_offset(const struct pt_topa *t, u64 output_base,
			   u64 mask_ptrs)
{
	u64 idx = (mask_ptrs & PT_MASK_TABLE_OFFSET_MASK) >>
		  PT_MASK_TABLE_OFFSET_SHIFT;
	u64 off = mask_ptrs >> PT_MASK_OUTPUT_OFFSET_SHIFT;
	unsigned int tbl, chunk;

	if (t->single_entry) {
		/* The one entry names the region: find it by address. */
		u64 e = t->tables[0][0] & PT_TOPA_BASE_MASK;

		for (chunk = 0; chunk < t->nr_chunks; chunk++)
			if (t->chunks[chunk].phys == e)
				break;
		if (chunk == t->nr_chunks)
			return 0;
		if (off >= BIT_ULL(t->chunks[chunk].shift))
			return t->chunk_off[chunk + 1] % pt_topa_size(t);
		return t->chunk_off[chunk] + off;
	}
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

/* The region holding @offset (< size). */
static unsigned int pt_topa_region_of(const struct pt_topa *t, u64 offset)
{
	unsigned int lo = 0, hi = t->nr_chunks;

	while (hi - lo > 1) {
		unsigned int mid = (lo + hi) / 2;

		if (t->chunk_off[mid] <= offset)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Single-entry ToPA: the pointers always name entry 0, which the caller
 * (pt_topa_apply_marks) has pointed at the region holding @offset.
 */
int pt_topa_offset_to_ptrs(const struct pt_topa *t, u64 offset,
			   u64 *output_base, u64 *mask_ptrs)
{
	unsigned int lo, idx;

	if (offset >= pt_topa_size(t))
		return -EINVAL;
	lo = pt_topa_region_of(t, offset);
	idx = t->single_entry ? 0 : lo % PT_TOPA_DATA_ENTRIES;
	*output_base = t->table_phys[t->single_entry ? 0 :
				     lo / PT_TOPA_DATA_ENTRIES];
	*mask_ptrs = PT_MASK_LOWER |
		     ((u64)idx << PT_MASK_TABLE_OFFSET_SHIFT) |
		     ((offset - t->chunk_off[lo]) <<
		      PT_MASK_OUTPUT_OFFSET_SHIFT);
	return 0;
}

u64 pt_topa_region_size(const struct pt_topa *t, u64 offset)
{
	return BIT_ULL(t->chunks[pt_topa_region_of(t, offset % pt_topa_size(t))].shift);
}

u64 pt_topa_region_left(const struct pt_topa *t, u64 offset)
{
	offset %= pt_topa_size(t);
	return t->chunk_off[pt_topa_region_of(t, offset) + 1] - offset;
}

/* Bytes from @off forward to the end of region @r, in (0, size]. */
static u64 pt_topa_dist_to_end(const struct pt_topa *t, u64 off,
			       unsigned int r)
{
	u64 size = pt_topa_size(t);

	return (t->chunk_off[r + 1] + size - off - 1) % size + 1;
}

int pt_topa_stream_marks(const struct pt_topa *t, u64 head, u64 tail, u64 wm,
			 struct pt_topa_marks *m)
{
	u64 size = pt_topa_size(t), off = head % size;
	u64 unread = head - tail, free, dist, want, win;
	unsigned int n = t->nr_chunks, rh, rt;

	if (tail > head || unread > size || !n)
		return -EINVAL;
	free = size - unread;
	rh = pt_topa_region_of(t, off);
	/* It cannot stop in the middle of a region. */
	if (free < t->chunk_off[rh + 1] - off)
		return -ENOSPC;
	if (t->single_entry) {
		m->stop = rh;
		m->intr = rh;
		m->stop_end = head + t->chunk_off[rh + 1] - off;
		/* Its PMI may come early: due once inside the margin. */
		win = pt_topa_pmi_window(BIT_ULL(t->chunks[rh].shift));
		m->int_end = max(head + 1, m->stop_end -
				 min_t(u64, win, m->stop_end - head));
		return 0;
	}
	if (n < 2)
		return -EINVAL;
	rt = unread ? pt_topa_region_of(t, tail % size) : rh;
	m->stop = (rt + n - 1) % n;
	dist = pt_topa_dist_to_end(t, off, m->stop);
	if (dist > free)
		return -ENOSPC;	/* cannot happen; never overrun */
	m->stop_end = head + dist;
	want = max(tail + wm, head + 1) - head;
	/*
	 * Never later than the end of the region before the STOP's (perf:
	 * "wake up the consumer one page before hard stop"): that PMI reads
	 * data_tail again and moves the STOP on by what the reader released
	 * meanwhile.  An INT on the STOP itself comes when the hardware has
	 * stopped, however soon the reader caught up.  Only with the head
	 * in the STOP's region is the STOP the next INT.
	 */
	if (m->stop != rh)
		want = min(want, dist - (t->chunk_off[m->stop + 1] -
					 t->chunk_off[m->stop]));
	if (want >= dist) {
		m->intr = m->stop;
		m->int_end = m->stop_end;
		return 0;
	}
	m->intr = pt_topa_region_of(t, (head + want - 1) % size);
	m->int_end = head + pt_topa_dist_to_end(t, off, m->intr);
	return 0;
}

static u64 *pt_topa_entry(const struct pt_topa *t, unsigned int r)
{
	return &t->tables[r / PT_TOPA_DATA_ENTRIES][r % PT_TOPA_DATA_ENTRIES];
}

void pt_topa_apply_marks(const struct pt_topa *t,
			 const struct pt_topa_marks *old,
			 const struct pt_topa_marks *new)
{
	if (t->single_entry) {
		t->tables[0][0] = pt_topa_region(&t->chunks[new->stop]) |
				  PT_TOPA_INT | PT_TOPA_STOP;
		return;
	}
	if (old) {
		*pt_topa_entry(t, old->stop) &= ~(PT_TOPA_INT | PT_TOPA_STOP);
		*pt_topa_entry(t, old->intr) &= ~PT_TOPA_INT;
	}
	*pt_topa_entry(t, new->intr) |= PT_TOPA_INT;
	*pt_topa_entry(t, new->stop) |= PT_TOPA_INT | PT_TOPA_STOP;
}

void pt_topa_flight_marks(const struct pt_topa *t)
{
	if (t->single_entry)
		t->tables[0][0] |= PT_TOPA_INT;
	else
		*pt_topa_entry(t, t->nr_chunks - 1) |= PT_TOPA_INT;
}

bool pt_topa_lap_done(const struct pt_topa *t, u64 offset)
{
	return !t->single_entry ||
	       offset < pt_topa_size(t) - pt_topa_pmi_window(pt_topa_size(t));
}

bool pt_topa_lap_plausible(const struct pt_topa *t, u64 offset)
{
	u64 size = pt_topa_size(t), win = pt_topa_pmi_window(size);

	if (t->single_entry)
		return offset >= size - win || offset < win;
	return offset < min(t->chunk_off[1], win);
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
