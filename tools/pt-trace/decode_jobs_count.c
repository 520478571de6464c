// SPDX-License-Identifier: GPL-2.0
/*
 * decode --jobs: what a segment adds to the main context (the VMX code's
 * counts, --summary's contexts and inferred switches, the time across a
 * segment's start), taken from a worker and added in the trace's order
 * (decode_jobs_count.h).
 */
#include <stdlib.h>
#include <string.h>

#include "decode_jobs_count.h"
#include "tool.h"

void decode_vmx_counts(const struct decode_vmx *v,
		       struct decode_vmx_counts *n)
{
	n->unknown = v->unknown;
	n->shown = v->shown;
	n->nr_no_vmcs = v->nr_no_vmcs;
	n->no_image = v->no_image;
	n->nr_no_pip = v->nr_no_pip;
	n->nr_no_exit_pip = v->nr_no_exit_pip;
	n->unknown_ticks = v->unknown_ticks;
}

/* @n's counts (a piece's part) added to @c's. */
void decode_vmx_add(struct decode_ctx *c,
		    const struct decode_vmx_counts *n)
{
	c->vmx.unknown += n->unknown;
	c->vmx.shown += n->shown;
	c->vmx.nr_no_vmcs += n->nr_no_vmcs;
	c->vmx.no_image += n->no_image;
	c->vmx.nr_no_pip += n->nr_no_pip;
	c->vmx.nr_no_exit_pip += n->nr_no_exit_pip;
	c->vmx.unknown_ticks += n->unknown_ticks;
}

/* @b's counts minus @a's: what a piece added. */
void decode_vmx_sub(struct decode_vmx_counts *b,
		    const struct decode_vmx_counts *a)
{
	b->unknown -= a->unknown;
	b->shown -= a->shown;
	b->nr_no_vmcs -= a->nr_no_vmcs;
	b->no_image -= a->no_image;
	b->nr_no_pip -= a->nr_no_pip;
	b->nr_no_exit_pip -= a->nr_no_exit_pip;
	b->unknown_ticks -= a->unknown_ticks;
}

/*
 * decode --jobs: the VMX context table a piece starts with is the one
 * the pieces written so far made (lock held): its order is one
 * decoder's, and which CR3 a guest had last (a VM entry without PIP is
 * taken as that guest's: dvmx_guest_cr3()) is what that decoder knows.
 * Returns its size.
 */
unsigned int decode_ctx_take(struct decode_worker *w,
			     const struct decode_ctx *c)
{
	const struct vmx_ctx_state *m = c->vmx.ctx;
	unsigned int i;

	if (!m)
		return 0;
	memcpy(w->vctx.ctx, m->ctx, m->n * sizeof(m->ctx[0]));
	w->vctx.n = m->n;
	/* --summary: the piece counts its own part (decode_ctx_learn()) */
	for (i = 0; i < m->n; i++) {
		w->vctx.ctx[i].insns = 0;
		w->vctx.ctx[i].ticks = 0;
	}
	return m->n;
}

/* The contexts a piece made past @from, kept for decode_ctx_learn(). */
int decode_ctx_made(const struct decode_worker *w,
		    struct decode_seginfo *si, unsigned int from)
{
	free(si->ctxs);
	si->ctxs = NULL;
	si->nctxs = w->c.vmx.ctx ? w->vctx.n - from : 0;
	if (!si->nctxs)
		return 0;
	si->ctxs = malloc(si->nctxs * sizeof(*si->ctxs));
	if (!si->ctxs)
		return PTT_EXIT_INTERNAL;
	memcpy(si->ctxs, w->vctx.ctx + from, si->nctxs * sizeof(*si->ctxs));
	return 0;
}

/*
 * They join the main table, in the order the piece made them, with the
 * piece's counts (lock held).
 */
void decode_ctx_learn(struct decode_ctx *c, const struct vmx_ctx *x,
		      unsigned int n)
{
	unsigned int i;
	int k;

	for (i = 0; c->vmx.ctx && i < n; i++) {
		k = vmx_ctx_get(c->vmx.ctx, x[i].vmcs, x[i].nr, x[i].cr3);
		if (k < 0)
			continue;
		c->vmx.ctx->ctx[k].insns += x[i].insns;
		c->vmx.ctx->ctx[k].ticks += x[i].ticks;
	}
}

/* A piece's counts in the first @n contexts, which it started with. */
int decode_ctx_counted(const struct decode_worker *w,
		       struct decode_seginfo *si, unsigned int n)
{
	unsigned int i;

	free(si->cnt);
	si->cnt = NULL;
	if (!w->c.vmx.summary || !n)
		return 0;
	si->cnt = malloc(n * sizeof(*si->cnt));
	if (!si->cnt)
		return PTT_EXIT_INTERNAL;
	for (i = 0; i < n; i++) {
		si->cnt[i].insns = w->vctx.ctx[i].insns;
		si->cnt[i].ticks = w->vctx.ctx[i].ticks;
	}
	return 0;
}

/* --summary: the switches a piece inferred, after those before (lock held). */
void decode_sw_add(struct decode_ctx *c, const struct dvmx_switch *sw,
		   size_t n, int ip_due)
{
	struct decode_vmx *v = &c->vmx;

	if (v->nsw + n > v->sw_cap) {
		size_t cap = v->sw_cap ? v->sw_cap : 64;
		struct dvmx_switch *p;

		while (cap < v->nsw + n)
			cap *= 2;
		p = realloc(v->sw, cap * sizeof(*p));
		if (!p)
			return;	/* as dvmx_note_switch(): the packets by PIP */
		v->sw = p;
		v->sw_cap = cap;
	}
	if (n)
		memcpy(v->sw + v->nsw, sw, n * sizeof(*sw));
	v->nsw += n;
	v->sw_ip_due = ip_due;
}

/*
 * --summary: one decoder reading on into a piece counts the time from
 * the last instruction before it (@before's) to the piece's first, in
 * that one's context (dvmx_count()); the piece's decoder, synchronised
 * at its PSB, did not (lock held).
 */
void decode_first_span(struct decode_ctx *c,
		       const struct decode_carry *before, int set,
		       int have, uint64_t tsc, int cur)
{
	uint64_t d;

	if (!c->vmx.summary || !set || !before->st.have_prev || !have ||
	    tsc < before->st.prev_tsc)
		return;
	d = tsc - before->st.prev_tsc;
	if (cur < 0)
		c->vmx.unknown_ticks += d;
	else
		c->vmx.ctx->ctx[cur].ticks += d;
}
