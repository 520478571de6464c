/* SPDX-License-Identifier: GPL-2.0 */
/*
 * decode --jobs: a worker thread (struct decode_worker), what each segment
 * it decoded started from and added up (struct decode_seginfo), and how
 * those counts, VMX contexts and inferred switches join the main context's
 * in the trace's order.
 */
#ifndef PT_TRACE_DECODE_JOBS_COUNT_H
#define PT_TRACE_DECODE_JOBS_COUNT_H

#include <stddef.h>
#include <stdint.h>

#include "decode_ctx.h"
#include "decode_jobs_state.h"
#include "decode_vmx.h"
#include "vmx_context.h"

/*
 * decode --jobs: a worker's own context and trace state, and VMX
 * contexts (the host's, one per CR3 the PIPs give: vmx_ctx_get()).
 */
struct decode_worker {
	struct decode_ctx c;
	struct decode_trace t;
	struct vmx_ctx_state vctx;
};

/* decode --jobs: the VMX code's counts that a segment adds to. */
struct decode_vmx_counts {
	uint64_t unknown, shown, nr_no_vmcs, no_image, nr_no_pip;
	uint64_t nr_no_exit_pip, unknown_ticks;
};

/* --summary: a context's instructions and time, a piece's part. */
struct decode_ctx_cnt {
	uint64_t insns, ticks;
};

/* decode --jobs: one segment's start, end and what it added up. */
struct decode_seginfo {
	struct decode_carry start, end;
	size_t ncr3;		/* the CR3s known when it started */
	struct decode_cr3 *learned;	/* and those it learned */
	size_t nlearned;
	struct decode_stats stats;
	struct decode_vmx_counts vmx;	/* at its start, then its part */
	int rest;		/* decode the rest from it in one piece */
	unsigned int nctx;	/* the VMX contexts known when it started */
	struct vmx_ctx *ctxs;	/* and those it made, with its counts */
	unsigned int nctxs;
	struct decode_ctx_cnt *cnt;	/* its counts in the @nctx known */
	struct dvmx_switch *sw;	/* --summary: the switches it inferred */
	size_t nsw;
	int ip_due;		/* the last one's IP is the next instruction's */
	/*
	 * its first instruction after its first sync (decode_walk()), and
	 * whether that sync found its PSB (counted where one decoder was
	 * not in sync: decode_seg_accept())
	 */
	int first_set, first_have, first_cur, first_sync;
	uint64_t first_tsc;
};

/* The VMX code's counts of @v, into @n. */
void decode_vmx_counts(const struct decode_vmx *v,
		       struct decode_vmx_counts *n);

/* @n's counts (a piece's part) added to @c's. */
void decode_vmx_add(struct decode_ctx *c,
		    const struct decode_vmx_counts *n);

/* @b's counts minus @a's: what a piece added. */
void decode_vmx_sub(struct decode_vmx_counts *b,
		    const struct decode_vmx_counts *a);

/* The main VMX context table into worker @w (lock held): its size. */
unsigned int decode_ctx_take(struct decode_worker *w,
			     const struct decode_ctx *c);

/* The contexts a piece made past @from, kept in @si: 0 or an exit status. */
int decode_ctx_made(const struct decode_worker *w,
		    struct decode_seginfo *si, unsigned int from);

/* Contexts @x join the main table, with their counts (lock held). */
void decode_ctx_learn(struct decode_ctx *c, const struct vmx_ctx *x,
		      unsigned int n);

/* A piece's counts in the first @n contexts, kept in @si: 0 or an exit status. */
int decode_ctx_counted(const struct decode_worker *w,
		       struct decode_seginfo *si, unsigned int n);

/* --summary: the switches a piece inferred, after those before (lock held). */
void decode_sw_add(struct decode_ctx *c, const struct dvmx_switch *sw,
		   size_t n, int ip_due);

/*
 * --summary: the time from the last instruction before a piece (@before's)
 * to its first, which one decoder counts (lock held).
 */
void decode_first_span(struct decode_ctx *c,
		       const struct decode_carry *before, int set,
		       int have, uint64_t tsc, int cur);

#endif /* PT_TRACE_DECODE_JOBS_COUNT_H */
