/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Table of Physical Addresses (SDM Vol. 3C, 36.2.6.2): the layout of the
 * tables for a list of physically contiguous chunks, and the arithmetic
 * between the output pointers the hardware keeps (OUTPUT_BASE = current
 * table, OUTPUT_MASK_PTRS = entry index and offset in the region) and a
 * linear offset in the buffer.  Pure: the caller provides the memory of
 * the tables and their physical addresses, so KUnit can check layouts
 * with made-up addresses.
 */
#ifndef _PT_TRACE_TOPA_H
#define _PT_TRACE_TOPA_H

#include <linux/types.h>

/* One table is one 4 KiB page of 8-byte entries, the last one END. */
#define PT_TOPA_TABLE_BYTES	4096
#define PT_TOPA_ENTRIES		(PT_TOPA_TABLE_BYTES / 8)
#define PT_TOPA_DATA_ENTRIES	(PT_TOPA_ENTRIES - 1)

/* The largest region one entry can describe: 4 KiB << 15 = 128 MiB. */
#define PT_TOPA_MAX_REGION_SHIFT	(12 + 15)

/* A physically contiguous, naturally aligned piece of the buffer. */
struct pt_topa_chunk {
	u64 phys;
	unsigned int shift;	/* size = 1 << shift, 12..27 */
};

struct pt_topa {
	/*
	 * One region + END: CPUs without multi-entry ToPA.  The buffer is one
	 * chunk; in streaming it is split into several regions and the one
	 * entry points at the region being written.
	 */
	bool single_entry;
	unsigned int nr_tables;
	u64 **tables;		/* PT_TOPA_ENTRIES entries each */
	const u64 *table_phys;
	unsigned int nr_chunks;
	const struct pt_topa_chunk *chunks;	/* the ToPA regions */
	const u64 *chunk_off;	/* linear offset of each region, nr_chunks+1 */
};

/* How many tables @nr_chunks regions need. */
unsigned int pt_topa_nr_tables(unsigned int nr_chunks, bool single_entry);

/*
 * Write the entries: one per chunk, in order, each full table ending
 * with END to the next, the last END back to the first (a ring without
 * INT or STOP, which the flight recorder and streaming then mark).
 * Checks every chunk is aligned to its size and describable; -EINVAL
 * otherwise.
 */
int pt_topa_build(const struct pt_topa *t);

/* Linear offset of the next byte the hardware writes. */
u64 pt_topa_ptrs_to_offset(const struct pt_topa *t, u64 output_base,
			   u64 mask_ptrs);

/* Is @output_base one of this layout's tables (is the hardware ours)? */
bool pt_topa_owns_base(const struct pt_topa *t, u64 output_base);

/* The register values that make the hardware write next at @offset. */
int pt_topa_offset_to_ptrs(const struct pt_topa *t, u64 offset,
			   u64 *output_base, u64 *mask_ptrs);

/*
 * Streaming (a ring the hardware must never overrun).  Markers for one
 * run of the hardware from @head, with the reader at @tail (absolute
 * stream positions, tail <= head <= tail + size):
 *  - STOP (+INT) on the region before the region holding the oldest
 *    unread byte (with nothing unread: before the head's region), so the
 *    hardware stops instead of overwriting anything unread;
 *  - INT on the region that completes the watermark (tail + @wm bytes,
 *    at least one byte past head), never past the region before the
 *    STOP region (so a PMI can move the STOP on before the hardware
 *    gets there), unless the head is in the STOP region.
 * The hardware may only be started when the free space reaches at least
 * to the end of the head's region: it cannot stop in the middle of one.
 * Single-entry ToPA has one entry: it is re-pointed to the head's region,
 * with INT and STOP, and its PMI may come early (pt_topa_pmi_window()).
 */

/*
 * Single-entry ToPA signals its PMI "before the region fills" (SDM
 * 36.2.6.2) at a distance the SDM does not give; perf pads the last 512
 * bytes, an observation.  The driver treats a PMI anywhere in the last
 * quarter of the region as early: twice perf's margin on the smallest
 * (4 KiB) region, far more on larger ones, so a part that signals a few
 * hundred bytes earlier than perf saw is still handled (the model tests
 * 0 to 600 bytes, model_early_pmi).
 */
#define PT_TOPA_PMI_MARGIN	512
static inline u64 pt_topa_pmi_window(u64 region_size)
{
	return region_size / 4;
}

struct pt_topa_marks {
	unsigned int stop;	/* region index with STOP (and INT) */
	unsigned int intr;	/* region index with INT */
	u64 stop_end;		/* absolute position where the hardware stops */
	u64 int_end;		/* absolute position at which INT is due */
};

/* -ENOSPC when the hardware cannot run (free space ends inside the head's region). */
int pt_topa_stream_marks(const struct pt_topa *t, u64 head, u64 tail, u64 wm,
			 struct pt_topa_marks *m);
/* Move the INT/STOP bits from @old (NULL: none set) to @new. */
void pt_topa_apply_marks(const struct pt_topa *t,
			 const struct pt_topa_marks *old,
			 const struct pt_topa_marks *new);
/* The size of the region holding @offset. */
u64 pt_topa_region_size(const struct pt_topa *t, u64 offset);
/* Bytes from @offset to the end of its region. */
u64 pt_topa_region_left(const struct pt_topa *t, u64 offset);

/*
 * Flight recorder (the ring of pt_topa_build(), no STOP): INT on the
 * last region, so that each lap of the buffer raises one PMI and the
 * driver can count laps exactly.
 */
void pt_topa_flight_marks(const struct pt_topa *t);
/*
 * A lap PMI found the next write at @offset: has the output wrapped yet?
 * Multi-entry ToPA signals when the last region fills, at the wrap;
 * single-entry ToPA may signal up to pt_topa_pmi_window() bytes before it.
 */
bool pt_topa_lap_done(const struct pt_topa *t, u64 offset);
/*
 * Could a lap PMI of ours have left the next write at @offset?  Only
 * where a lap's PMI lands: multi-entry ToPA signals at the wrap, so the
 * output is in the first region and its window (pt_topa_pmi_window(),
 * far more than the NMI's latency at any trace rate); single-entry
 * within its window before the wrap or as far after it.  A bit 55
 * found with the output elsewhere is someone else's (a KVM guest's).
 */
bool pt_topa_lap_plausible(const struct pt_topa *t, u64 offset);

/* Single-range output: OUTPUT_MASK_PTRS for a 2^n-byte buffer. */
u64 pt_single_mask_ptrs(u64 size, u64 offset);
u64 pt_single_ptrs_to_offset(u64 size, u64 mask_ptrs);

#endif /* _PT_TRACE_TOPA_H */
