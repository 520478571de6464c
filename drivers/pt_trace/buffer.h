/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A trace buffer: data pages (in physically contiguous chunks, as large
 * as the allocator gives), the ToPA tables describing them, and the mmap
 * control page.  Reference counted: the device holds one reference and
 * every mapping one more, so pages are freed only when nobody can see
 * them any more (close, rmmod and CPU offline included).
 */
#ifndef _PT_TRACE_BUFFER_H
#define _PT_TRACE_BUFFER_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/kref.h>
#include <linux/types.h>
#include <linux/pt_trace.h>
#include <asm/barrier.h>

#include "account.h"
#include "topa.h"

struct page;
struct pt_caps;
struct pt_trace_mmap_page;

struct pt_buffer {
	struct kref ref;
	u64 size;			/* data bytes */
	unsigned int output;		/* PT_OUTPUT_TOPA or _SINGLE */
	unsigned int nr_pages;		/* size / PAGE_SIZE */
	struct page **pages;		/* every data page, in order */
	unsigned int nr_chunks;
	struct pt_topa_chunk *chunks;
	u64 *chunk_off;			/* nr_chunks + 1 */
	/* ToPA regions: the chunks, or (streaming) pieces of them. */
	unsigned int nr_regions_max;
	struct pt_topa_chunk *regions;
	u64 *region_off;		/* nr_regions_max + 1 */
	bool stream_layout;
	unsigned int nr_tables;		/* ToPA only: allocated */
	u64 **tables;
	u64 *table_phys;
	struct pt_topa topa;
	struct page *ctrl_page;		/* struct pt_trace_mmap_page */
	struct pt_trace_mmap_page *ctrl;
	/*
	 * data_head as published (pt_buffer_publish_head()): what read(2)
	 * and poll() go by.  The control page's copy may be mapped writable
	 * and scribbled by its user.
	 */
	u64 data_head;
	atomic_t maps;			/* live user mappings */
	struct pt_account acct;		/* pinned pages charged (account.c) */
};

/* Publish @head: the data below it is visible. */
static inline void pt_buffer_publish_head(struct pt_buffer *buf, u64 head)
{
	/* Pairs with read(2)'s acquire load (stream_read.c, pt_stream_unread()). */
	smp_store_release(&buf->data_head, head);
	/* Pairs with a mapping reader's acquire load (abi.rst). */
	smp_store_release(&buf->ctrl->data_head, head);
}

/* Limits for a per-CPU buffer request. */
#define PT_BUF_MIN_SIZE		4096ULL
/* Streaming regions are at least this where the ring holds four (buffer.c). */
#define PT_STREAM_MIN_REGION_SHIFT	16
#define PT_STREAM_MIN_REGION		BIT_ULL(PT_STREAM_MIN_REGION_SHIFT)
u64 pt_buffer_max_size(void);
/* The largest physically contiguous allocation this kernel makes. */
u64 pt_buffer_max_contig(void);

/*
 * Allocate @size bytes on @node for @output (PT_OUTPUT_*).  AUTO picks
 * ToPA when the CPU has it, else single range.  A layout that needs one
 * contiguous chunk (single range, single-entry ToPA) fails with -EINVAL
 * when @size is not a power of two within the limits and -ENOMEM (after
 * reclaim and compaction, with a log line naming the largest chunk that
 * is free) when the memory is not there; a multi-entry ToPA buffer falls
 * back to smaller chunks.
 */
struct pt_buffer *pt_buffer_alloc(u64 size, unsigned int output, int node,
				  const struct pt_caps *caps);
void pt_buffer_get(struct pt_buffer *buf);
void pt_buffer_put(struct pt_buffer *buf);

/* Check a size request against the layout rules, without allocating. */
int pt_buffer_check_size(u64 size, unsigned int output,
			 const struct pt_caps *caps);

/* The data page at @pgoff (0-based into the data), or NULL. */
struct page *pt_buffer_data_page(struct pt_buffer *buf, unsigned long pgoff);

/* The buffer's byte at @off (for the wrap check). */
const u8 *pt_buffer_ptr(struct pt_buffer *buf, u64 off);

/* Register values to start writing at @offset. */
int pt_buffer_ptrs(struct pt_buffer *buf, u64 offset, u64 *base, u64 *mask);
u64 pt_buffer_offset(struct pt_buffer *buf, u64 base, u64 mask);

/*
 * Lay the ToPA out for flight recording (one region per chunk, a ring
 * without INT or STOP) or streaming (regions of at most
 * 1/16 of the buffer, so INT and STOP can be placed; single-entry ToPA
 * re-points its one entry).  Only while the hardware is stopped.
 * -EINVAL when the buffer cannot stream (single range, or fewer than
 * two regions).
 */
int pt_buffer_layout(struct pt_buffer *buf, bool stream);

/* Bytes of ToPA tables and bookkeeping for this buffer. */
u64 pt_buffer_overhead(const struct pt_buffer *buf);

#endif /* _PT_TRACE_BUFFER_H */
