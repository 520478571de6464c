/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every PSB+ of a trace with the TSC it holds (decode_psb.c), for the
 * one question decode asks ahead of its decoder: what time does the
 * PSB+ after this one give?  A CPU without configurable PSB (Broadwell)
 * sends a PSB+ at every TraceEn 0->1, which looks like a periodic one;
 * the next PSB+'s time tells which it was (decode_follow.c,
 * decode_follow_psb()).
 */
#ifndef PT_TRACE_DECODE_PSB_H
#define PT_TRACE_DECODE_PSB_H

#include <stddef.h>
#include <stdint.h>

struct dpsb {
	uint64_t off;		/* the PSB's file offset */
	uint64_t tsc;		/* its PSB+'s TSC packet */
	uint8_t has_tsc;
	uint8_t barrier;	/* an OVF or a resync: packets lost before */
};

struct dpsb_list {
	struct dpsb *p;
	size_t n;
};

/* One pass over @buf (a ptt_map_file() mapping); 0, or -ENOMEM. */
int dpsb_scan(const uint8_t *buf, size_t len, struct dpsb_list *out);
void dpsb_free(struct dpsb_list *l);

/*
 * The TSC of the PSB+ after the one at or before offset @off whose TSC
 * is @tsc, if it lies before offset @end with no barrier between them.
 * Returns 0 (its TSC in @next, its offset in @next_off), 1 when no PSB+
 * follows before @end, -1 when it cannot be told (that PSB+ is not
 * found, a barrier, no TSC).
 */
int dpsb_next_tsc(const struct dpsb_list *l, uint64_t off, uint64_t tsc,
		  uint64_t end, uint64_t *next, uint64_t *next_off);

#endif /* PT_TRACE_DECODE_PSB_H */
