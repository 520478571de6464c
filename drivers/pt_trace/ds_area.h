/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The DS save area and the BTS buffer it describes (ds_area.c): the
 * output layer of the BTS source, as buffer.c/topa.c are PT's.
 */
#ifndef _PT_TRACE_DS_AREA_H
#define _PT_TRACE_DS_AREA_H

#include <asm/page.h>
#include <linux/types.h>

#include "bts_regs.h"

struct page;

/*
 * The area's allocation: the DS save area at its start, then a scratch
 * PEBS buffer (ds_area.c): a PEBS record stored while BTS owns
 * IA32_DS_AREA lands in our memory.  The buffer's absolute maximum lies
 * BTS_DS_PEBS_GUARD before the allocation's end: more than any PEBS
 * record (adaptive PEBS with every group and 32 LBR entries: 1248
 * bytes), so a record the CPU starts below the maximum, whatever its
 * size, ends inside the allocation.
 */
#define BTS_DS_AREA_ORDER	2
#define BTS_DS_AREA_BYTES	(PAGE_SIZE << BTS_DS_AREA_ORDER)
#define BTS_DS_PEBS_SCRATCH	2048
#define BTS_DS_PEBS_GUARD	4096

struct bts_ds {
	struct bts_ds_area *area;	/* BTS_DS_AREA_BYTES, zeroed */
	struct page *area_page;
	u8 *buf;			/* the records, contiguous */
	struct page *buf_pages;
	unsigned int order;
	u64 nr_records;			/* capacity */
};

/*
 * Allocate an area and a buffer of at most @bytes (whole records, at
 * least two) on @node; -ENOMEM, or -EINVAL when @bytes holds fewer than
 * two records or more than one contiguous allocation
 * (pt_buffer_max_contig()).
 */
int bts_ds_alloc(struct bts_ds *ds, u64 bytes, int node);
void bts_ds_free(struct bts_ds *ds);

/*
 * Point the area at the buffer, index at the base, and zero the buffer
 * (the wrap check reads it).  @thresh_records: the interrupt threshold
 * as records from the base (BTINT=1); the capacity for none.
 */
void bts_ds_arm(struct bts_ds *ds, u64 thresh_records);

/* Records stored since the base, from the live index (NMI-safe). */
u64 bts_ds_count(const struct bts_ds *ds);
/* Has the index reached the threshold (BTINT=1's PMI condition)? */
bool bts_ds_due(const struct bts_ds *ds);
/*
 * Has a PEBS record been stored in the area's scratch PEBS buffer
 * (another agent's PEBS sampling while BTS owns IA32_DS_AREA)?
 */
bool bts_ds_pebs_stored(const struct bts_ds *ds);
/* Back to the base: the records before it were taken. */
void bts_ds_rewind(struct bts_ds *ds);
/*
 * Store @rec at the index as the CPU would (BTS off: nothing else writes
 * it): with @circular the index wraps at the maximum, else a full
 * buffer refuses it (false).
 */
bool bts_ds_put(struct bts_ds *ds, const struct bts_record *rec,
		bool circular);
/* The record at @i (< nr_records). */
static inline const struct bts_record *bts_ds_rec(const struct bts_ds *ds,
						  u64 i)
{
	return (const struct bts_record *)(ds->buf + i * BTS_RECORD_SIZE);
}

/* IA32_DS_AREA's value for this area. */
static inline u64 bts_ds_msr(const struct bts_ds *ds)
{
	return (u64)(unsigned long)ds->area;
}

#endif /* _PT_TRACE_DS_AREA_H */
