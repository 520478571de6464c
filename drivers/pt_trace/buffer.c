// SPDX-License-Identifier: GPL-2.0
/*
 * Trace buffer allocation (see buffer.h).
 *
 * Data pages come in chunks of the highest order the page allocator will
 * give on the CPU's node: the largest order that fits the remaining size
 * is tried first without retrying hard, then smaller orders, down to
 * single pages, so a large buffer never fails just because memory is
 * fragmented.  Each chunk is split into order-0 pages so every page can
 * be mapped to user space with its own reference count, while the chunk
 * stays one physically contiguous ToPA region.  Pages are zeroed: they
 * are mapped to user space.
 */
#include <linux/bitops.h>
#include <linux/err.h>
#include <linux/gfp.h>
#include <linux/io.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/ratelimit.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/pt_trace.h>

#include "account.h"
#include "buffer.h"
#include "caps.h"

/*
 * The largest order alloc_pages() accepts: MAX_PAGE_ORDER (inclusive)
 * since 6.8, MAX_ORDER - 1 on 6.1 (on 6.4..6.7 this is one order short,
 * which only makes chunks smaller).
 */
#ifdef MAX_PAGE_ORDER
#define PT_MAX_ORDER	MAX_PAGE_ORDER
#else
#define PT_MAX_ORDER	(MAX_ORDER - 1)
#endif

/* Never hand out more than this per CPU, whatever the memory. */
#define PT_BUF_HARD_MAX		(64ULL << 30)

u64 pt_buffer_max_contig(void)
{
	return PAGE_SIZE << min(PT_MAX_ORDER, PT_TOPA_MAX_REGION_SHIFT - PAGE_SHIFT);
}

u64 pt_buffer_max_size(void)
{
	u64 half = ((u64)totalram_pages() << PAGE_SHIFT) / 2;

	return round_down(min(half, PT_BUF_HARD_MAX), PAGE_SIZE);
}

/* Does this request need the buffer in one contiguous chunk? */
static bool pt_needs_contig(unsigned int output, const struct pt_caps *caps)
{
	if (output == PT_OUTPUT_SINGLE)
		return true;
	return !pt_cap(caps, PT_CAP_TOPA_MULTI);
}

static bool pt_single_ok(u64 size, const struct pt_caps *caps)
{
	if (!pt_cap(caps, PT_CAP_SINGLE_RANGE))
		return false;
	if ((caps->quirks & PT_QUIRK_SINGLE_RANGE_4K) && size > 4096)
		return false;
	return is_power_of_2(size) && size <= pt_buffer_max_contig();
}

int pt_buffer_check_size(u64 size, unsigned int output,
			 const struct pt_caps *caps)
{
	if (size < PT_BUF_MIN_SIZE || !PAGE_ALIGNED(size) ||
	    size > pt_buffer_max_size())
		return -EINVAL;
	if (output == PT_OUTPUT_SINGLE)
		return pt_single_ok(size, caps) ? 0 : -EINVAL;
	if (!pt_needs_contig(output, caps))
		return 0;
	/* Single-entry ToPA (or single range under AUTO): one 2^n chunk. */
	if (!is_power_of_2(size) || size > pt_buffer_max_contig())
		return -EINVAL;
	if (output == PT_OUTPUT_AUTO && !pt_cap(caps, PT_CAP_TOPA))
		return pt_single_ok(size, caps) ? 0 : -EINVAL;
	return 0;
}

static void pt_buffer_free_pages(struct pt_buffer *buf, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		__free_page(buf->pages[i]);
		if (!(i & 1023))
			cond_resched();
	}
}

/*
 * After a contiguous allocation of @order failed: the largest order the
 * allocator gives right now on @node (probed and freed again), so the
 * error can say what would work.  -1 when not even a page is free.
 */
static int pt_buffer_largest_order(int node, unsigned int order)
{
	while (order--) {
		struct page *page = alloc_pages_node(node, GFP_KERNEL |
						     __GFP_NOWARN |
						     __GFP_NORETRY, order);

		if (page) {
			__free_pages(page, order);
			return order;
		}
	}
	return -1;
}

/*
 * Rate limited, probe included: any user allowed to open /dev/ptN can ask
 * for a contiguous buffer that does not exist, as often as they like.
 */
static void pt_buffer_report_contig(int node, unsigned int order)
{
	static DEFINE_RATELIMIT_STATE(rs, DEFAULT_RATELIMIT_INTERVAL,
				      DEFAULT_RATELIMIT_BURST);
	int got;

	if (!__ratelimit(&rs))
		return;
	got = pt_buffer_largest_order(node, order);
	pr_warn("node %d has no free contiguous %lu KiB (single-range or single-entry ToPA output needs one chunk); the largest available now is %lu KiB: ask for buffer_size <= that, or compact memory (echo 1 > /proc/sys/vm/compact_memory) and retry\n",
		node, (PAGE_SIZE << order) >> 10,
		got < 0 ? 0 : (PAGE_SIZE << got) >> 10);
}

/* Fill buf->pages in chunks; temporary chunk array of worst-case size. */
static int pt_buffer_alloc_data(struct pt_buffer *buf, int node, bool contig,
				struct pt_topa_chunk *chunks)
{
	unsigned int done = 0, order, i;

	order = min_t(unsigned int, PT_MAX_ORDER, ilog2(buf->nr_pages));
	while (done < buf->nr_pages) {
		gfp_t gfp = GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN;
		struct page *page;

		order = min_t(unsigned int, order, ilog2(buf->nr_pages - done));
		/*
		 * A chunk that must be the whole buffer, and order 0: try
		 * hard (reclaim and compaction) but never OOM-kill.  Other
		 * high orders: ask once, smaller chunks do as well.
		 */
		gfp |= order && !contig ? __GFP_NORETRY : __GFP_RETRY_MAYFAIL;
		page = alloc_pages_node(node, gfp, order);
		if (!page) {
			if (contig && order)
				pt_buffer_report_contig(node, order);
			if (contig || !order)
				goto fail;
			order--;
			continue;
		}
		split_page(page, order);
		chunks[buf->nr_chunks].phys = page_to_phys(page);
		chunks[buf->nr_chunks].shift = order + PAGE_SHIFT;
		buf->nr_chunks++;
		for (i = 0; i < (1U << order); i++)
			buf->pages[done + i] = page + i;
		done += 1U << order;
		cond_resched();
	}
	return 0;
fail:
	pt_buffer_free_pages(buf, done);
	return -ENOMEM;
}

/*
 * The largest streaming region: 1/16 of the buffer, so the STOP and INT
 * markers have room to move, but at least PT_STREAM_MIN_REGION where
 * the ring still holds four such regions (smaller rings: a quarter of
 * the ring, at least a page).  With a small watermark every region ends
 * in a PMI, so the region size bounds the PMI rate: 64 KiB at 1 GB/s is
 * about 16,000 a second, where 1/16 of a 256 KiB ring (16 KiB) was four
 * times that; the rate limit in stream_pmi.c bounds the rest.  Chunks that
 * came smaller (a fragmented node) stay regions of their own size.
 */
static unsigned int pt_stream_region_shift(const struct pt_buffer *buf)
{
	unsigned int shift = ilog2(buf->size / 16);

	shift = max(shift, min_t(unsigned int, PT_STREAM_MIN_REGION_SHIFT,
				 ilog2(buf->size / 4)));
	return max_t(unsigned int, PAGE_SHIFT, shift);
}

static unsigned int pt_stream_nr_regions(const struct pt_buffer *buf)
{
	unsigned int shift = pt_stream_region_shift(buf), i, n = 0;

	for (i = 0; i < buf->nr_chunks; i++)
		n += buf->chunks[i].shift > shift ?
		     1U << (buf->chunks[i].shift - shift) : 1;
	return n;
}

int pt_buffer_layout(struct pt_buffer *buf, bool stream)
{
	unsigned int shift = pt_stream_region_shift(buf), i, j, n = 0;

	if (buf->output != PT_OUTPUT_TOPA)
		return stream ? -EINVAL : 0;
	for (i = 0; i < buf->nr_chunks; i++) {
		const struct pt_topa_chunk *c = &buf->chunks[i];
		unsigned int s = stream ? min(c->shift, shift) : c->shift;

		for (j = 0; j < 1U << (c->shift - s); j++) {
			buf->regions[n].phys = c->phys + ((u64)j << s);
			buf->regions[n].shift = s;
			buf->region_off[n + 1] = buf->region_off[n] + BIT_ULL(s);
			n++;
		}
	}
	if (stream && n < 2)
		return -EINVAL;
	buf->topa.nr_chunks = n;
	buf->topa.nr_tables = pt_topa_nr_tables(n, buf->topa.single_entry);
	buf->stream_layout = stream;
	/* Flight: the lap INT, if any, is pt_flight_prepare()'s. */
	return pt_topa_build(&buf->topa);
}

static int pt_buffer_alloc_topa(struct pt_buffer *buf, int node,
				bool single_entry)
{
	unsigned int i;

	buf->nr_regions_max = max(buf->nr_chunks, pt_stream_nr_regions(buf));
	buf->regions = kvmalloc_array(buf->nr_regions_max,
				      sizeof(*buf->regions), GFP_KERNEL);
	buf->region_off = kvcalloc(buf->nr_regions_max + 1,
				   sizeof(*buf->region_off), GFP_KERNEL);
	if (!buf->regions || !buf->region_off)
		return -ENOMEM;
	buf->nr_tables = pt_topa_nr_tables(buf->nr_regions_max, single_entry);
	if (!buf->nr_tables || (single_entry && buf->nr_chunks != 1))
		return -EINVAL;
	buf->tables = kcalloc(buf->nr_tables, sizeof(*buf->tables), GFP_KERNEL);
	buf->table_phys = kcalloc(buf->nr_tables, sizeof(*buf->table_phys),
				  GFP_KERNEL);
	if (!buf->tables || !buf->table_phys)
		return -ENOMEM;
	for (i = 0; i < buf->nr_tables; i++) {
		struct page *p = alloc_pages_node(node, GFP_KERNEL | __GFP_ZERO,
						  0);

		if (!p)
			return -ENOMEM;
		buf->tables[i] = page_address(p);
		buf->table_phys[i] = page_to_phys(p);
	}
	buf->topa.single_entry = single_entry;
	buf->topa.nr_tables = buf->nr_tables;
	buf->topa.tables = buf->tables;
	buf->topa.table_phys = buf->table_phys;
	buf->topa.chunks = buf->regions;
	buf->topa.chunk_off = buf->region_off;
	return pt_buffer_layout(buf, false);
}

static void pt_buffer_free(struct pt_buffer *buf)
{
	unsigned int i;

	if (buf->tables)
		for (i = 0; i < buf->nr_tables; i++)
			if (buf->tables[i])
				free_page((unsigned long)buf->tables[i]);
	kfree(buf->tables);
	kfree(buf->table_phys);
	if (buf->nr_chunks)
		pt_buffer_free_pages(buf, buf->nr_pages);
	kvfree(buf->pages);
	kvfree(buf->chunks);
	kvfree(buf->chunk_off);
	kvfree(buf->regions);
	kvfree(buf->region_off);
	if (buf->ctrl_page)
		__free_page(buf->ctrl_page);
	kfree(buf);
}

static void pt_buffer_release(struct kref *ref)
{
	struct pt_buffer *buf = container_of(ref, struct pt_buffer, ref);

	pt_account_uncharge(&buf->acct);
	pt_buffer_free(buf);
}

void pt_buffer_get(struct pt_buffer *buf)
{
	kref_get(&buf->ref);
}

void pt_buffer_put(struct pt_buffer *buf)
{
	if (buf)
		kref_put(&buf->ref, pt_buffer_release);
}

/* Copy the worst-case chunk list into arrays of the real length. */
static int pt_buffer_set_chunks(struct pt_buffer *buf,
				const struct pt_topa_chunk *tmp)
{
	unsigned int i;

	buf->chunks = kvmalloc_array(buf->nr_chunks, sizeof(*buf->chunks),
				     GFP_KERNEL);
	buf->chunk_off = kvmalloc_array(buf->nr_chunks + 1,
					sizeof(*buf->chunk_off), GFP_KERNEL);
	if (!buf->chunks || !buf->chunk_off)
		return -ENOMEM;
	buf->chunk_off[0] = 0;
	for (i = 0; i < buf->nr_chunks; i++) {
		buf->chunks[i] = tmp[i];
		buf->chunk_off[i + 1] = buf->chunk_off[i] + BIT_ULL(tmp[i].shift);
	}
	return 0;
}

struct pt_buffer *pt_buffer_alloc(u64 size, unsigned int output, int node,
				  const struct pt_caps *caps)
{
	struct pt_topa_chunk *tmp = NULL;
	struct pt_buffer *buf;
	bool single_entry;
	int ret;

	/*
	 * AUTO means ToPA wherever the CPU has it: perf refuses single range
	 * above a page on every CPU since the TGL052/ADL037/RPL017 errata,
	 * and nobody has shown the older cores unaffected.
	 */
	if (output == PT_OUTPUT_AUTO)
		output = pt_cap(caps, PT_CAP_TOPA) ? PT_OUTPUT_TOPA :
						     PT_OUTPUT_SINGLE;
	ret = pt_buffer_check_size(size, output, caps);
	if (ret)
		return ERR_PTR(ret);

	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return ERR_PTR(-ENOMEM);
	kref_init(&buf->ref);
	buf->size = size;
	buf->nr_pages = size >> PAGE_SHIFT;
	ret = -ENOMEM;
	buf->ctrl_page = alloc_pages_node(node, GFP_KERNEL | __GFP_ZERO, 0);
	if (!buf->ctrl_page)
		goto err;
	buf->ctrl = page_address(buf->ctrl_page);
	buf->pages = kvcalloc(buf->nr_pages, sizeof(*buf->pages), GFP_KERNEL);
	tmp = kvcalloc(buf->nr_pages, sizeof(*tmp), GFP_KERNEL);
	if (!buf->pages || !tmp)
		goto err;

	ret = pt_buffer_alloc_data(buf, node, pt_needs_contig(output, caps),
				   tmp);
	if (ret) {
		buf->nr_chunks = 0;
		goto err;
	}
	ret = pt_buffer_set_chunks(buf, tmp);
	if (ret)
		goto err;
	kvfree(tmp);
	tmp = NULL;

	buf->output = output;
	if (output == PT_OUTPUT_TOPA) {
		single_entry = !pt_cap(caps, PT_CAP_TOPA_MULTI);
		ret = pt_buffer_alloc_topa(buf, node, single_entry);
		if (ret)
			goto err;
	}
	return buf;
err:
	kvfree(tmp);
	pt_buffer_free(buf);
	return ERR_PTR(ret);
}

struct page *pt_buffer_data_page(struct pt_buffer *buf, unsigned long pgoff)
{
	if (pgoff >= buf->nr_pages)
		return NULL;
	return buf->pages[pgoff];
}

const u8 *pt_buffer_ptr(struct pt_buffer *buf, u64 off)
{
	return (const u8 *)page_address(buf->pages[off >> PAGE_SHIFT]) +
	       offset_in_page(off);
}

int pt_buffer_ptrs(struct pt_buffer *buf, u64 offset, u64 *base, u64 *mask)
{
	if (offset >= buf->size)
		return -EINVAL;
	if (buf->output == PT_OUTPUT_SINGLE) {
		*base = buf->chunks[0].phys;
		*mask = pt_single_mask_ptrs(buf->size, offset);
		return 0;
	}
	return pt_topa_offset_to_ptrs(&buf->topa, offset, base, mask);
}

u64 pt_buffer_offset(struct pt_buffer *buf, u64 base, u64 mask)
{
	if (buf->output == PT_OUTPUT_SINGLE)
		return pt_single_ptrs_to_offset(buf->size, mask);
	return pt_topa_ptrs_to_offset(&buf->topa, base, mask);
}

u64 pt_buffer_overhead(const struct pt_buffer *buf)
{
	return (u64)buf->nr_tables * PAGE_SIZE +
	       (u64)buf->nr_chunks * (sizeof(*buf->chunks) +
				      sizeof(*buf->chunk_off)) +
	       (u64)buf->nr_regions_max * (sizeof(*buf->regions) +
					   sizeof(*buf->region_off)) +
	       (u64)buf->nr_pages * sizeof(*buf->pages);
}
