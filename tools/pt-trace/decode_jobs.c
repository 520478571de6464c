// SPDX-License-Identifier: GPL-2.0
/*
 * decode --jobs: the instruction decoder's side of decode_par.c.  Each
 * segment is decoded by a worker from the state one decoder is expected
 * to have at its start, checked against the state the segment before
 * left (decoded again where they differ), and its output, counts and
 * marks (call tree, timeline) taken in the trace's order.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call_tree.h"
#include "decode_calls.h"
#include "decode_follow.h"
#include "decode_image.h"
#include "decode_jobs.h"
#include "decode_jobs_count.h"
#include "decode_jobs_state.h"
#include "decode_out.h"
#include "decode_par.h"
#include "decode_tcal.h"
#include "decode_timeline.h"
#include "decode_vmx.h"
#include "decode_walk.h"
#include "timeline_marks.h"
#include "tool.h"

/*
 * decode --jobs over one stretch: the state the segments written so far
 * left (@truth, the context's CR3s, the trace's statistics), under @lock.
 */
struct decode_par {
	struct decode_ctx *c;
	struct decode_trace *t;
	struct decode_worker *w;
	struct decode_seginfo *si;
	unsigned long nsegs;
	pthread_mutex_t lock;
	struct decode_carry truth;
	int vmx;		/* guest code in the stretch, or VMX filters */
	unsigned long accepted;	/* segments written */
	int rest;		/* the rest decoded in one piece */
	unsigned long again;	/* decoded again (dpar_ops.stands) */
	int tcal;		/* decode_ctx.tcal */
	/*
	 * decode_ctx.tcal: the calibration one decoder has at each
	 * segment's start when none of them resynchronises: the expected
	 * state of a segment that starts before the one ahead is written
	 */
	struct dtcal *pred;
};

static int decode_seg_prepare(void *arg, const struct dpar_seg *segs,
			      unsigned long n)
{
	struct decode_par *par = arg;
	unsigned long i;

	/*
	 * Without a TSC in each PSB+ nothing says where a segment lies
	 * among the switch records: whose code it is follows only from
	 * decoding all before it, so the stretch is decoded in one piece.
	 */
	for (i = 1; par->t->nsw && i < n; i++)
		if (!segs[i].psb.has_tsc)
			return 1;
	/*
	 * A segment's decoder starts with the VMX context unknown
	 * (dvmx_sync()): its PSB+ must say it as one decoder reading on
	 * hears it there, with a PIP (and a VMCS in a guest), or the
	 * context of its first instructions is not that decoder's.
	 */
	for (i = 1; par->vmx && i < n; i++)
		if (!segs[i].psb.has_pip || !segs[i].psb.has_ip ||
		    (segs[i].psb.pip_nr && !segs[i].psb.has_vmcs))
			return 1;
	/*
	 * --summary counts each instruction's time in its context: a
	 * segment's decoder has the time one decoder has at its first
	 * instruction only from a TSC in its PSB+ (libipt's time before
	 * the first TSC is none, or MTCs counted from another start).
	 */
	for (i = 1; par->c->vmx.summary && i < n; i++)
		if (!segs[i].psb.has_tsc)
			return 1;
	/*
	 * CYC calibration: one pass over the packets (no instructions)
	 * gives the state each segment starts in; one where no packets
	 * give a decoder that state (dtcal_prefix()) is decoded in one
	 * piece with the rest.
	 */
	if (par->tcal) {
		const struct decode_trace *t = par->t;

		par->pred = calloc(n, sizeof(*par->pred));
		if (!par->pred)
			return PTT_EXIT_INTERNAL;
		dtcal_init(&par->pred[0]);
		for (i = 1; i < n; i++) {
			uint8_t pre[DTCAL_PREFIX_MAX];

			par->pred[i] = par->pred[i - 1];
			dtcal_scan(&par->pred[i], &par->c->config, t->buf,
				   segs[i - 1].start, segs[i].start, i == 1);
			if (dtcal_prefix(&par->pred[i], &par->c->config,
					 t->buf + segs[i].start,
					 segs[i].end - segs[i].start, pre,
					 sizeof(pre)) < 0)
				return 1;
		}
	}
	par->si = calloc(n, sizeof(*par->si));
	if (!par->si)
		return PTT_EXIT_INTERNAL;
	par->nsegs = n;
	return 0;
}

/*
 * decode --jobs: a worker's own copy of the CR3s known now, to which it
 * adds those it learns (lock held).  Returns their count, or -1.
 */
static long decode_worker_cr3s(struct decode_worker *w,
			       const struct decode_ctx *c)
{
	struct decode_cr3 *l;

	l = realloc(w->c.cr3s, (c->ncr3 + 1) * sizeof(*l));
	if (!l)
		return -1;
	if (c->ncr3)	/* none yet: c->cr3s may be NULL */
		memcpy(l, c->cr3s, c->ncr3 * sizeof(*l));
	w->c.cr3s = l;
	w->c.ncr3 = c->ncr3;
	return (long)c->ncr3;
}

/*
 * decode --jobs: a worker starts a piece from @from, reading on into it
 * (@cont: decode_walk()), with its counts and its checks for a loop
 * anew.  Not the offset of this worker's last spin check: that was in
 * another piece, whose decoder's offsets count from its own start (the
 * same place in a piece of the same shape looks unmoved).  One
 * decoder's last check lies before this piece, in trace read since.
 */
static void decode_worker_start(struct decode_worker *w,
				const struct decode_carry *from, int cont)
{
	memset(&w->t.stats, 0, sizeof(w->t.stats));
	decode_state_set(&w->c, &w->t, from);
	w->t.seg_cont = cont;
	w->t.tcal_sync = UINT64_MAX;
	w->c.vmx.nsw = 0;
	w->c.vmx.sw_ip_due = 0;
	w->t.spin_off = ~0ull;
	w->t.spin_n = 0;
	decode_loop_reset(&w->t);
	w->t.loop_hit = 0;
}

/*
 * decode_ctx.tcal: the calibration one decoder has at the end of
 * segment @s, which was decoded from state @from: from its last resync
 * on, else from where it started (decode_state.tcal).
 */
static void decode_tcal_end(const struct decode_ctx *c,
			    struct decode_trace *t,
			    const struct decode_carry *from,
			    const struct dpar_seg *s)
{
	struct dtcal *tc = &t->st.tcal;

	if (t->tcal_sync != UINT64_MAX) {
		dtcal_init(tc);
		dtcal_scan(tc, &c->config, t->buf, t->tcal_sync, s->end, 1);
	} else {
		*tc = from->st.tcal;
		dtcal_scan(tc, &c->config, t->buf, s->start, s->end,
			   s->idx == 0);
	}
}

static int decode_segment(void *arg, unsigned int wi, const struct dpar_seg *s,
			  int again)
{
	struct decode_par *par = arg;
	struct decode_worker *w = &par->w[wi];
	struct decode_seginfo *si = &par->si[s->idx];
	struct decode_ctx *c = par->c;
	struct decode_carry from;
	struct decode_vmx_counts vc;
	long ncr3;
	int ret;

	/* The state the segment before left when known, else expected. */
	pthread_mutex_lock(&par->lock);
	from = par->truth;
	if (!again && par->accepted != s->idx) {
		decode_predict(&w->c, par->t, &from.st, &s->psb);
		if (par->pred)
			from.st.tcal = par->pred[s->idx];
	}
	ncr3 = decode_worker_cr3s(w, c);
	si->ncr3 = c->ncr3;
	si->nctx = decode_ctx_take(w, c);
	pthread_mutex_unlock(&par->lock);
	if (ncr3 < 0)
		return PTT_EXIT_INTERNAL;
	if (again)
		par->again++;	/* by the thread holding the turn only */
	si->start = from;
	/*
	 * As if one decoder read on into it: where it did not (an error
	 * before), decode_seg_accept() counts the sync and no time across.
	 */
	decode_worker_start(w, &from, 1);
	decode_vmx_counts(&w->c.vmx, &vc);
	w->t.seg_last = s->last;
	w->t.seg_eos = 0;
	w->t.seg_rest = 0;
	w->t.seg_next = s->next;
	w->t.seg_end = s->end;
	ct_restart(&w->t.ct);
	w->t.ctm_due = 1;	/* the tree there: decode_marks_emit()'s */
	tlm_start(&w->t.tlm);
	ret = decode_stretch_one(&w->c, &w->t, s->start, s->end);
	tlm_flush(&w->t.tlm, &w->c.ob);
	if (w->c.tcal)
		decode_tcal_end(&w->c, &w->t, &from, s);
	decode_state_get(&w->c, &w->t, &si->end);
	si->stats = w->t.stats;
	si->rest = w->t.seg_rest;
	decode_vmx_counts(&w->c.vmx, &si->vmx);
	decode_vmx_sub(&si->vmx, &vc);
	si->first_set = w->t.first_set;
	si->first_have = w->t.first_have;
	si->first_tsc = w->t.first_tsc;
	si->first_cur = w->t.first_cur;
	si->first_sync = w->t.first_sync;
	/*
	 * --summary: an inferred switch whose IP is the next instruction's,
	 * which the next piece decodes: one decoder from here on.
	 */
	si->ip_due = w->c.vmx.sw_ip_due;
	if (si->ip_due && !s->last)
		si->rest = 1;
	free(si->sw);
	si->sw = NULL;
	si->nsw = w->c.vmx.nsw;
	if (si->nsw) {
		si->sw = malloc(si->nsw * sizeof(*si->sw));
		if (!si->sw)
			return PTT_EXIT_INTERNAL;
		memcpy(si->sw, w->c.vmx.sw, si->nsw * sizeof(*si->sw));
	}
	if (decode_ctx_made(w, si, si->nctx) ||
	    decode_ctx_counted(w, si, si->nctx))
		return PTT_EXIT_INTERNAL;
	free(si->learned);
	si->learned = NULL;
	si->nlearned = w->c.ncr3 - si->ncr3;
	if (si->nlearned) {
		si->learned = malloc(si->nlearned * sizeof(*si->learned));
		if (!si->learned)
			return PTT_EXIT_INTERNAL;
		memcpy(si->learned, w->c.cr3s + si->ncr3,
		       si->nlearned * sizeof(*si->learned));
	}
	return ret;
}

/* Whether the segment started in the state the one before left. */
static int decode_seg_stands(void *arg, const struct dpar_seg *s)
{
	struct decode_par *par = arg;
	const struct decode_seginfo *si = &par->si[s->idx];
	int ok;

	/*
	 * A walk of 64 Ki instructions reading no trace: whether and where
	 * decode_spinning() calls it a loop (an error, and a resync that
	 * skips the next PSB) depends on the count of all instructions
	 * before, every 64 Ki of them, which a segment's decoder does not
	 * know, and on that decoder reading on past the segment's end.  Or
	 * a tail that one decoder would go on from into the next segment's
	 * packets (decode_tail_error()).  The rest of the stretch is
	 * decoded in one piece from here.
	 */
	if (si->rest)
		return DPAR_REST;
	pthread_mutex_lock(&par->lock);
	/*
	 * --calls: a piece that starts shown after one that ended hidden
	 * (filtered) restarts the tree at its first instruction, which
	 * its decoder marks only when it started hidden too.
	 */
	ok = si->ncr3 == par->c->ncr3 &&
	     si->nctx == (par->c->vmx.ctx ? par->c->vmx.ctx->n : 0) &&
	     decode_state_eq(&si->start, &par->truth,
			     s->psb.has_pip && s->psb.has_ip && !s->psb.pip_nr) &&
	     (!par->c->o.calls ||
	      si->start.st.hidden == par->truth.st.hidden);
	pthread_mutex_unlock(&par->lock);
	return ok;
}

/*
 * The rest of the stretch, [@start, @end) from a segment's PSB on, in
 * one piece: from the state the segments written left, with the count
 * of instructions so far (decode_spinning() looks every 64 Ki of them).
 */
static int decode_seg_rest(void *arg, unsigned int wi, uint64_t start,
			   uint64_t end)
{
	struct decode_par *par = arg;
	struct decode_worker *w = &par->w[wi];
	struct decode_ctx *c = par->c;
	struct decode_vmx_counts vc, vn;
	struct decode_carry before;
	unsigned int nctx;
	long n;
	size_t i;
	int ret;

	pthread_mutex_lock(&par->lock);
	nctx = decode_ctx_take(w, c);
	n = decode_worker_cr3s(w, c);
	before = par->truth;
	decode_worker_start(w, &before, before.st.in_sync);
	w->t.stats.insns = par->t->stats.insns;
	pthread_mutex_unlock(&par->lock);
	if (n < 0)
		return PTT_EXIT_INTERNAL;
	w->t.in_seg = 0;
	par->rest = 1;
	/*
	 * --calls: one decoder from here on, on the trace's own tree and
	 * threads (no one else uses them meanwhile: the turn is this one's).
	 */
	w->c.ct_marks = 0;
	w->t.ct = par->t->ct;
	w->c.threads = c->threads;
	w->c.nthreads = c->nthreads;
	/* --timeline: so are the trace's tracks */
	w->c.tl_marks = 0;
	w->t.track = par->t->track;
	w->t.tlg = par->t->tlg;
	w->t.tl_cbr = par->t->tl_cbr;
	decode_vmx_counts(&w->c.vmx, &vc);
	ret = decode_stretch_one(&w->c, &w->t, start, end);
	decode_vmx_counts(&w->c.vmx, &vn);
	pthread_mutex_lock(&par->lock);
	par->t->ct = w->t.ct;
	par->t->track = w->t.track;
	par->t->tlg = w->t.tlg;
	par->t->tl_cbr = w->t.tl_cbr;
	w->c.tl_marks = !!c->tl.f;
	c->threads = w->c.threads;
	c->nthreads = w->c.nthreads;
	w->c.threads = NULL;
	w->c.nthreads = 0;
	w->c.ct_marks = c->o.calls;
	decode_state_get(&w->c, &w->t, &par->truth);
	for (i = (size_t)n; i < w->c.ncr3; i++)
		decode_learn_cr3(c, w->c.cr3s[i].cr3, &w->c.cr3s[i].who);
	if (c->vmx.ctx) {
		decode_ctx_learn(c, w->vctx.ctx + nctx, w->vctx.n - nctx);
		for (i = 0; i < nctx; i++) {
			c->vmx.ctx->ctx[i].insns += w->vctx.ctx[i].insns;
			c->vmx.ctx->ctx[i].ticks += w->vctx.ctx[i].ticks;
		}
	}
	decode_first_span(c, &before, w->t.first_set, w->t.first_have,
			  w->t.first_tsc, w->t.first_cur);
	decode_sw_add(c, w->c.vmx.sw, w->c.vmx.nsw, w->c.vmx.sw_ip_due);
	w->t.stats.insns -= par->t->stats.insns;
	decode_sum(&par->t->stats, &w->t.stats);
	decode_vmx_sub(&vn, &vc);
	decode_vmx_add(c, &vn);
	pthread_mutex_unlock(&par->lock);
	return ret;
}

/* The segment is written: its end is the next one's start. */
static void decode_seg_accept(void *arg, const struct dpar_seg *s)
{
	struct decode_par *par = arg;
	struct decode_seginfo *si = &par->si[s->idx];
	struct decode_ctx *c = par->c;
	struct decode_carry before;
	size_t i;

	pthread_mutex_lock(&par->lock);
	before = par->truth;
	par->truth = si->end;
	/*
	 * One decoder that searches for the next PSB (after an error)
	 * starts its CYC calibration there.
	 */
	if (!si->end.st.in_sync)
		dtcal_init(&par->truth.st.tcal);
	/*
	 * --summary: no instruction since its first sync, at which one
	 * decoder reads on: the last one before it is still the last.  One
	 * that searched for this PSB (after an error) keeps no time across
	 * it (dvmx_sync()).
	 */
	if (si->end.st.prev_keep) {
		par->truth.st.have_prev = before.st.in_sync &&
					  before.st.have_prev;
		par->truth.st.prev_tsc = before.st.prev_tsc;
	}
	/*
	 * The piece was decoded as if one decoder read on into it; one
	 * that searched for its PSB counts the sync, and no time from the
	 * instruction before.
	 */
	if (!before.st.in_sync && si->first_sync)
		si->stats.syncs++;
	for (i = 0; i < si->nlearned; i++)
		decode_learn_cr3(c, si->learned[i].cr3, &si->learned[i].who);
	decode_ctx_learn(c, si->ctxs, si->nctxs);
	for (i = 0; si->cnt && i < si->nctx; i++) {
		c->vmx.ctx->ctx[i].insns += si->cnt[i].insns;
		c->vmx.ctx->ctx[i].ticks += si->cnt[i].ticks;
	}
	if (before.st.in_sync)
		decode_first_span(c, &before, si->first_set, si->first_have,
				  si->first_tsc, si->first_cur);
	decode_sw_add(c, si->sw, si->nsw, si->ip_due);
	decode_sum(&par->t->stats, &si->stats);
	decode_vmx_add(c, &si->vmx);
	par->accepted = s->idx + 1;
	/*
	 * Nothing reads the trace before the next segment again: memory
	 * stays bounded as with one decoder (decode_drop_behind()).
	 */
	ptt_file_drop_behind(par->t->buf, &par->t->dropped_to,
			     (size_t)s->end);
	pthread_mutex_unlock(&par->lock);
}

/*
 * Whether a stretch can be cut into segments decoded in threads, with
 * the same lines as one decoder.  Not with what carries state across
 * the trace that a segment's start does not show (CYC's calibration in
 * libipt, decode_opts.cyc, where an output, filter or sideband.perf's
 * switch and exec records use the time: without, CYCs change nothing
 * decode prints; the call tree and the timeline are run in order on the
 * workers' marks, decode_marks_emit()), nor with
 * --summary when the stretch starts with an inferred switch whose IP is
 * its first instruction's (dvmx_after_insn()).  -q's statistics are the
 * segments' added up in order (decode_seg_accept()), the PSBs one
 * decoder synchronised at too: a segment's first sync counts only where
 * that decoder would have searched for it (decode_state.in_sync, which
 * decode_seg_accept() applies: a segment is decoded as if in sync).
 * --summary's per-context instructions and time are added up the same
 * way, the span from a segment's last instruction to the next one's
 * first added when that one is written (decode_first_span()); its CBR
 * frequency and packet counts come from a pass over the whole trace
 * after decoding.  It needs a PIP and TSC in each segment's PSB+ to
 * count as one decoder does, else the stretch is one piece
 * (decode_seg_prepare()).
 * Switch records and PIPs are fine: each segment starts in the state the
 * one before left (decode_seg_stands()); so are guests and the VMX
 * filters where each segment's PSB+ gives the context
 * (decode_seg_prepare()).  --events is fine: what a segment's PSB+ holds
 * libipt reports as status updates, which are not printed, whether the
 * decoder synchronised there (-j N) or read on through it (-j 1); every
 * other event comes from the packets of one segment, which its own
 * decoder reads (host check decode-jobs-events).
 */
/*
 * A CYCEn recording where libipt's time is used: --tsc, perf's columns,
 * --time, the timeline, --summary, --event:time, or sideband.perf's
 * switch and exec records, which go by the time.
 */
static int decode_tcal_wanted(const struct decode_ctx *c)
{
	return c->o.cyc && (decode_need_time(c) || c->o.event_time ||
			    c->as.have_perf);
}

int decode_par_ok(const struct decode_ctx *c, uint64_t start,
		  uint64_t end)
{
	const struct decode_opts *o = &c->o;
	const struct decode_vmx *v = &c->vmx;

	return o->jobs > 1 && !o->ticks &&
	       (!decode_tcal_wanted(c) || dtcal_supported()) &&
	       !(v->summary && v->sw_ip_due) &&
	       end - start > (64u << 10);
}

/*
 * decode --calls/--timeline --jobs: a segment's output in its turn, its
 * marks (decode_ctm_put(), timeline_marks.h) run on the tree and the
 * timeline of the trace as one decoder has them, the listing written
 * through the main context's buffer.
 */
static int decode_marks_emit(void *arg, const struct dpar_seg *s, int fd,
			     const char *buf, size_t len)
{
	struct decode_par *par = arg;
	struct decode_ctx *c = par->c;
	struct call_tree *ct = &par->t->ct;
	const char *p = buf, *e = buf + len, *z;
	struct tl_mark k;
	struct ct_mark m;

	(void)s;
	(void)fd;	/* c->ob's */
	while (p < e) {
		z = memchr(p, '\0', (size_t)(e - p));
		ob_write(&c->ob, p, (size_t)((z ? z : e) - p));
		if (!z || e - z < 2)
			break;
		if (tlm_size(z + 1)) {
			if ((size_t)(e - z) < 1 + sizeof(k))
				break;
			memcpy(&k, z + 1, sizeof(k));
			p = z + 1 + sizeof(k);
			decode_tl_mark(c, par->t, &k);
			continue;
		}
		if ((size_t)(e - z) < 1 + sizeof(m))
			break;
		memcpy(&m, z + 1, sizeof(m));
		p = z + 1 + sizeof(m);
		switch (m.op) {
		case CTM_INSN:
			ct_insn(ct, &c->ob, m.st, m.ip);
			break;
		case CTM_AFTER:
			ct_after(ct, (enum ct_branch)m.kind, m.ip);
			break;
		case CTM_RESTART:
			ct_restart(ct);
			break;
		case CTM_LOST:
			ct_lost(ct);
			break;
		case CTM_SWITCH:
			decode_calls_threads(c, ct, m.from, m.to);
			break;
		}
	}
	ob_flush(&c->ob);
	return c->ob.error;
}

/* The stretch [start, end) in o.jobs threads, listed in order. */
int decode_stretch_par(struct decode_ctx *c, struct decode_trace *t,
		       uint64_t start, uint64_t end)
{
	struct outbuf *obs[DPAR_MAX_JOBS];
	struct decode_worker *w;
	struct decode_par par;
	struct dpar_ops ops = {
		.prepare = decode_seg_prepare, .seg = decode_segment,
		.stands = decode_seg_stands, .accept = decode_seg_accept,
		.rest = decode_seg_rest,
		.emit = c->o.calls || c->tl.f ? decode_marks_emit : NULL,
		.arg = &par,
	};
	unsigned int i, n = c->o.jobs > DPAR_MAX_JOBS ? DPAR_MAX_JOBS : c->o.jobs;
	unsigned long k;
	unsigned int g;
	int ret = PTT_EXIT_OK, err = 0;

	w = calloc(n, sizeof(*w));
	if (!w)
		return decode_stretch_one(c, t, start, end);
	memset(&par, 0, sizeof(par));
	par.c = c;
	par.t = t;
	par.w = w;
	pthread_mutex_init(&par.lock, NULL);
	decode_state_get(c, t, &par.truth);
	/* the stretch starts a decoder: it synchronises at its first PSB */
	par.truth.st.in_sync = 0;
	dtcal_init(&par.truth.st.tcal);
	/*
	 * --summary too: a context's counts are those of the context the
	 * decoder was in, which after a segment's PSB+ is one decoder's
	 * only when it gives the context (with no PIP the segment's
	 * instructions up to one would count as "unknown context").
	 */
	par.vmx = dvmx_filters(&c->vmx) || c->vmx.summary ||
		  dpar_has_vmx(t->buf, start, end);
	/*
	 * CYC times: with the calibration given to each piece's decoder,
	 * by packets before its PSB (decode_stretch_one()), whose offsets
	 * the VMX code would take for the piece before's: not there.
	 */
	par.tcal = decode_tcal_wanted(c);
	if (par.tcal && par.vmx) {
		free(w);
		pthread_mutex_destroy(&par.lock);
		return decode_stretch_one(c, t, start, end);
	}
	ob_flush(&c->ob);	/* what came before the stretch goes first */
	for (i = 0; i < n; i++) {
		w[i].c = *c;
		w[i].c.worker = 1;
		w[i].c.tcal = par.tcal;
		w[i].c.ct_marks = c->o.calls;
		w[i].c.tl_marks = !!c->tl.f;
		/* its own caches, disassembler, images and CR3s */
		w[i].c.o.fmt.lc = NULL;
		w[i].c.o.fmt.ci = NULL;
		w[i].c.imgs = NULL;
		w[i].c.nimgs = 0;
		w[i].c.cr3s = NULL;
		w[i].c.ncr3 = 0;
		if (c->vmx.ctx) {
			w[i].vctx = *c->vmx.ctx;
			w[i].c.vmx.ctx = &w[i].vctx;
		}
		/* its own list of inferred switches (--summary) */
		w[i].c.vmx.sw = NULL;
		w[i].c.vmx.nsw = 0;
		w[i].c.vmx.sw_cap = 0;
		/* and its own copies of the guests' images */
		w[i].c.vmx.empty = pt_image_alloc(NULL);
		for (g = 0; g < c->vmx.nguest; g++) {
			w[i].c.vmx.guest[g].image = pt_image_alloc(NULL);
			if (!w[i].c.vmx.guest[g].image ||
			    pt_image_copy(w[i].c.vmx.guest[g].image,
					  c->vmx.guest[g].image) < 0)
				ret = PTT_EXIT_INTERNAL;
		}
		if (!w[i].c.vmx.empty)
			ret = PTT_EXIT_INTERNAL;
		if (ret)
			ptt_err("out of memory for --jobs %u", n);
		w[i].t = *t;
		memset(&w[i].t.stats, 0, sizeof(w[i].t.stats));
		w[i].t.in_seg = 1;
		if (ob_init(&w[i].c.ob, c->ob.fd, 1 << 20) ||
		    decode_fmt_init(&w[i].c.o.fmt)) {
			ptt_err("out of memory for --jobs %u", n);
			ret = PTT_EXIT_INTERNAL;
		}
		obs[i] = &w[i].c.ob;
	}
	if (!ret)
		err = dpar_run(t->buf, start, end, n, obs, &ops);
	if (!ret && err && err != DPAR_SERIAL) {
		ptt_err("decode --jobs: the threads could not run");
		ret = PTT_EXIT_INTERNAL;
	}
	for (i = 0; i < n; i++) {
		if (w[i].c.ob.buf)
			ob_free(&w[i].c.ob);	/* its last write may fail */
		if (w[i].c.ob.error && !c->ob.error)
			c->ob.error = w[i].c.ob.error;
		decode_fmt_free(&w[i].c.o.fmt);
		decode_images_free(&w[i].c);
		free(w[i].c.cr3s);
		free(w[i].c.vmx.sw);
		pt_image_free(w[i].c.vmx.empty);
		for (g = 0; g < c->vmx.nguest; g++)
			pt_image_free(w[i].c.vmx.guest[g].image);
	}
	for (k = 0; par.si && k < par.nsegs; k++) {
		free(par.si[k].learned);
		free(par.si[k].ctxs);
		free(par.si[k].cnt);
		free(par.si[k].sw);
	}
	free(par.si);
	free(par.pred);
	free(w);
	pthread_mutex_destroy(&par.lock);
	if (!ret && err == DPAR_SERIAL)
		return decode_stretch_one(c, t, start, end);
	/* the last segment's end is where the trace goes on */
	decode_state_set(c, t, &par.truth);
	if (getenv("PT_TRACE_DEBUG_JOBS"))
		fprintf(stderr, "decode --jobs: %lu segments, %lu decoded again%s\n",
			par.nsegs, par.again,
			par.rest ? ", the rest in one piece" : "");
	return ret;
}
