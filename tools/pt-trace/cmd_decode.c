// SPDX-License-Identifier: GPL-2.0
/*
 * pt-trace decode: the instruction flow of a trace, by libipt's
 * instruction decoder over ELF images (from --elf or the recorder's
 * sideband memory map).  Prints instructions with symbols, or a call
 * tree (--calls), and can write a Chrome/Perfetto timeline.
 *
 * With the recorder's loss records (cpuN.loss) each stretch between two
 * gaps is decoded on its own, from its first PSB: the data just before a
 * gap may end inside a packet and the data after it starts with a new
 * PSB+, so decoding across the gap would read the PSB as the rest of the
 * cut packet and report errors that are only the gap's.  Each gap is a
 * line in the listing and a "trace lost" span in the timeline.
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/pt_trace.h>

#include "bts_dump.h"
#include "call_tree.h"
#include "decode_aspace.h"
#include "decode_block.h"
#include "decode_bts.h"
#include "decode_calls.h"
#include "decode_cbr.h"
#include "decode_ctx.h"
#include "decode_filter.h"
#include "decode_follow.h"
#include "decode_image.h"
#include "decode_jobs_count.h"
#include "decode_jobs_state.h"
#include "decode_loss.h"
#include "decode_out.h"
#include "decode_par.h"
#include "decode_psb.h"
#include "decode_stats.h"
#include "decode_tcal.h"
#include "decode_timeline.h"
#include "decode_usage.h"
#include "decode_vmx.h"
#include "decode_walk.h"
#include "dump_format.h"
#include "elf_image.h"
#include "lossfile.h"
#include "outbuf.h"
#include "proc_maps.h"
#include "sideband.h"
#include "timeline_marks.h"
#include "tool.h"
#include "trace_config.h"
#include "vdso_image.h"

#define DECODE_MAX_TRACES	256

/*
 * The recorded process's executable mappings from sideband.txt (map=
 * lines): the default address space, where a task without mmap records
 * in sideband.perf (or every task, without sideband.perf) is decoded.
 * With the build-ids of their map.build_id= lines: a file that is not
 * the recorded one is named (das_same_build()) and not used.
 */
static void decode_add_maps(struct das_proc *p, const struct ptsb *sb)
{
	struct ptt_map_rec m;
	size_t i;

	for (i = 0; i < sb->n; i++)
		if (ptt_map_parse(sb, i, &m) &&
		    das_add_map(p, m.path, m.start, m.end, m.pgoff,
				m.build_id, m.build_id_size))
			break;
}

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

static int decode_par_ok(const struct decode_ctx *c, uint64_t start,
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
static int decode_stretch_par(struct decode_ctx *c, struct decode_trace *t,
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

static int decode_stretch(struct decode_ctx *c, struct decode_trace *t,
			  uint64_t start, uint64_t end)
{
	t->stretch_end = end;
	if (decode_par_ok(c, start, end))
		return decode_stretch_par(c, t, start, end);
	return decode_stretch_one(c, t, start, end);
}

static int decode_trace(struct decode_ctx *c, struct decode_trace *t)
{
	uint64_t start = 0, end;
	size_t i = 0, next = 0;
	int ret = PTT_EXIT_OK;

	int notes = !c->o.quiet && !c->o.fmt.ip_only;

	if (c->ntraces > 1 && notes && t->cpu >= 0)
		ob_printf(&c->ob, "[trace %s, cpu %d]\n", t->path, t->cpu);
	else if (c->ntraces > 1 && notes)
		ob_printf(&c->ob, "[trace %s]\n", t->path);
	if (t->lf.lapped && notes)
		ob_printf(&c->ob,
			  "[loss: %llu more records were overwritten before the recorder read them: where they lie is unknown]\n",
			  (unsigned long long)t->lf.lapped);
	ct_restart(&t->ct);
	c->vmx.trace = t->buf;
	dvmx_scan_tsc(&c->vmx, t->buf, t->len, &t->marks);
	/* Without the list decode_follow_psb() leaves the time rule alone. */
	if (c->psb_enables && t->nsw)
		dpsb_scan(t->buf, t->len, &t->psbs);
	for (;;) {
		end = decode_stretch_end(t, start, &i);
		/* The records at or before this stretch's start. */
		t->dropped = 0;
		while (next < t->lf.n && t->lf.rec[next].offset <= start)
			decode_loss(c, t, &t->lf.rec[next++]);
		ret = decode_stretch(c, t, start, end);
		if (ret || end == t->len)
			break;
		start = end;
	}
	/* Gaps at the end of the file, after the last byte. */
	while (!ret && next < t->lf.n)
		decode_loss(c, t, &t->lf.rec[next++]);
	if (c->tl.f)
		tl_track_end(&t->track);
	tl_guests_end(&t->tlg);
	tl_guests_free(&t->tlg);
	dvmx_marks_free(&t->marks);
	dpsb_free(&t->psbs);
	return ret;
}

/* The CPU a trace is of: cpuN.pt, else the loss file's "cpu N". */
static int decode_trace_cpu(const char *path, const struct ptl_file *lf)
{
	int cpu = ptt_file_cpu(path, ".pt");

	return cpu >= 0 ? cpu : lf->cpu;
}

/* "2.1G", "2100000000", "2100M": the TSC rate in Hz. */
static int decode_parse_hz(const char *s, double *hz)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v <= 0)
		return -EINVAL;
	if (*end == 'k' || *end == 'K')
		v *= 1e3;
	else if (*end == 'M')
		v *= 1e6;
	else if (*end == 'G')
		v *= 1e9;
	if (*end && end[1])
		return -EINVAL;
	if ((*end && !strchr("kKMG", *end)) || v < 1e6 || v > 1e11)
		return -EINVAL;
	*hz = v;
	return 0;
}

static int decode_load_traces(struct decode_ctx *c, struct decode_trace *tr,
			      char **paths, const struct ptsb *sb)
{
	int i, ret, err;

	for (i = 0; i < c->ntraces; i++) {
		struct decode_trace *t = &tr[i];

		t->path = paths[i];
		err = ptt_map_file(t->path, &t->buf, &t->len);
		if (err) {
			ptt_err("cannot read %s: %s", t->path, strerror(-err));
			return PTT_EXIT_INPUT;
		}
		if (!c->o.no_loss) {
			ret = ptt_load_loss(t->path, c->o.loss_path, &t->lf,
					    &t->have_loss);
			if (ret)
				return ret;
		}
		t->stats.have_loss = t->have_loss;
		t->stats.bytes = t->len;
		t->stats.lapped = t->lf.lapped;
		t->cpu = decode_trace_cpu(t->path, &t->lf);
		ptt_tsc_offset(sb, t->cpu, &t->tsc_offset);
		/*
		 * Before its first switch record the CPU runs the recorded
		 * command, as far as anyone knows.
		 */
		t->st.cur = das_use(&c->as,
				    das_find_at(&c->as, c->as.main_pid, 0));
		t->st.cur_fresh = 1;
		if (!t->st.cur) {
			ptt_err("out of memory");
			return PTT_EXIT_INTERNAL;
		}
		t->st.pid = -1;
		t->st.tid = -1;
		t->sw = das_switches(&c->as, t->cpu, &t->nsw);
		t->have_stop = !ptt_tsc_end(sb, t->cpu, &t->stop_tsc);
		decode_stop_early(t);
		t->st.cur_sw = -1;
		t->st.sw_until = t->nsw ? 0 : UINT64_MAX;
	}
	return PTT_EXIT_OK;
}

/* The cpuN of cpuN.bts, or -1. */

/*
 * --timeline of BTS files: no time in the records.  With the sideband's
 * switch records (sideband.perf) each run's branches are spread over its
 * time (decode_bts.c, dbts_when()), time 0 the first switch-in; without
 * them the clock counts the records (two ticks a record: its source and
 * its target).  One track per file (CPU), and per thread.
 */
static int decode_bts_timeline(struct decode_ctx *c, const struct ptsb *sb)
{
	uint64_t origin = 0;
	int have_origin = 0, err;
	const struct das_switch *sw;
	const char *source;
	size_t i, n;
	double hz;

	err = decode_tl_create(c, sb, "BTS");
	if (err)
		return err;
	for (i = 0; i < c->as.ncpu; i++) {
		sw = das_switches(&c->as, c->as.cpu[i].cpu, &n);
		if (n && (!have_origin || sw[0].tsc < origin)) {
			origin = sw[0].tsc;
			have_origin = 1;
		}
	}
	if (!have_origin) {
		tl_set_clock(&c->tl, 0, "none: BTS records carry no time", 0, 0);
		ptt_warn("BTS records carry no time and the recording has no switch records: the timeline counts 1 ns per branch source and per branch target");
		return PTT_EXIT_OK;
	}
	if (c->o.tsc_hz > 0) {
		hz = c->o.tsc_hz;
		source = "--tsc-hz";
	} else {
		ptt_tsc_hz(sb, &c->config, &hz, &source);
	}
	tl_set_clock(&c->tl, hz, source, origin, 1);
	ptt_warn("BTS records carry no time: the timeline spreads each run's branches evenly over its time in the sideband's switch records");
	return PTT_EXIT_OK;
}

/* FILE.bts...: the branches (decode_bts.c), then the counts. */
static int decode_bts_files(struct decode_ctx *c, char **paths,
			    const struct ptsb *sb)
{
	struct decode_bts_stats st, sum = { 0 };
	struct tl_track *track = NULL;
	int i, ret = PTT_EXIT_OK;

	if (c->o.events) {
		ptt_err("--events: a BTS file (.bts) holds only branch records (from, to) and the driver's thread switches, no events: BTS stores no time, mode, paging, power, VMX or interrupt packets.  Its gaps are the [lost N branches] lines of the listing (-q counts them) and its switches the [thread ...] lines; for events decode --events the recording's cpuN.pt (record --bts writes PT beside BTS)");
		return PTT_EXIT_USAGE;
	}
	if (c->o.fmt_given || c->o.filter.have_time ||
	    c->vmx.summary || c->vmx.nsel || c->vmx.host_only ||
	    c->vmx.guest_only) {
		ptt_err("a BTS file (.bts) is decoded as a list of branches, a call tree (--calls) or a timeline: --format, --time and the VMX options need the times and packets of PT traces (.pt)");
		return PTT_EXIT_USAGE;
	}
	for (i = 0; i < c->ntraces; i++)
		if (!bts_dump_is_bts(paths[i])) {
			ptt_err("%s: give either BTS files (.bts) or PT traces, not both",
				paths[i]);
			return PTT_EXIT_USAGE;
		}
	if (c->o.timeline) {
		track = calloc(1, sizeof(*track));
		if (!track) {
			ptt_err("out of memory");
			return PTT_EXIT_INTERNAL;
		}
		ret = decode_bts_timeline(c, sb);
		if (ret) {
			free(track);
			return ret;
		}
	}
	if (ob_init(&c->ob, STDOUT_FILENO, 1 << 20)) {
		ptt_err("out of memory");
		free(track);
		return PTT_EXIT_INTERNAL;
	}
	for (i = 0; i < c->ntraces && !ret; i++) {
		int cpu = ptt_file_cpu(paths[i], ".bts"), have = 0;
		struct ptl_file lf = { 0 };
		uint8_t *buf = NULL;
		size_t len = 0;
		int err;

		if (!dflt_cpu(&c->o.filter, cpu))
			continue;
		err = ptt_map_file(paths[i], &buf, &len);
		if (err) {
			ptt_err("cannot read %s: %s", paths[i], strerror(-err));
			ret = PTT_EXIT_INPUT;
			break;
		}
		if (!c->o.no_loss)
			ret = ptt_load_loss(paths[i], c->o.loss_path, &lf, &have);
		if (!ret) {
			if (c->o.calls && !c->o.quiet && c->ntraces > 1)
				ob_printf(&c->ob, "[trace %s, cpu %d]\n",
					  paths[i], cpu);
			if (track) {
				char name[64];

				snprintf(name, sizeof(name), cpu >= 0 ?
					 "cpu %d" : "file %d", cpu >= 0 ? cpu : i);
				memset(track, 0, sizeof(*track));
				tl_track_init(&c->tl, track,
					      cpu >= 0 ? cpu : 100000 + i, name,
					      0);
			}
			decode_bts(&c->as, buf, len, cpu, have ? &lf : NULL,
				   c->o.quiet, c->o.calls, &c->o.filter, track,
				   &c->ob, &st);
			if (st.partial)
				ptt_warn("%s: %llu bytes after the last whole 24-byte record",
					 paths[i], (unsigned long long)st.partial);
			sum.records += st.records;
			sum.gaps += st.gaps;
			sum.lost += st.lost;
			sum.unknown += st.unknown;
			sum.unread += st.unread;
			sum.switches += st.switches;
			sum.hidden += st.hidden;
		}
		ptl_free(&lf);
		if (buf)
			ptt_unmap_file(buf, len);
	}
	if (!ret && c->o.quiet) {
		ob_printf(&c->ob, "%llu branches", (unsigned long long)sum.records);
		if (sum.gaps)
			ob_printf(&c->ob, ", %llu gaps: %llu branches lost%s",
				  (unsigned long long)sum.gaps,
				  (unsigned long long)sum.lost,
				  sum.unknown ? " and some of unknown number" : "");
		ob_puts(&c->ob, "\n");
	}
	ob_free(&c->ob);
	ret = decode_write_error(&c->ob, ret);
	free(track);
	if (c->tl.f && tl_close(&c->tl) && !ret) {
		ptt_err("writing %s failed", c->o.timeline);
		ret = PTT_EXIT_INPUT;
	}
	if (!ret && sum.unread)
		ptt_warn("the instructions of %llu of %llu branches are in no file given (the recording's sideband maps, kernel.text, --elf): they are neither calls nor returns in the tree or timeline",
			 (unsigned long long)sum.unread,
			 (unsigned long long)sum.records);
	if (!ret && (c->o.filter.npid || c->o.filter.ntid) && !sum.switches)
		ptt_warn("--pid/--tid: these BTS files have no switch records (a recording of an older pt-trace): no branch is any thread's");
	if (!ret && !sum.records) {
		ptt_err("no BTS record in the file(s) given");
		ret = PTT_EXIT_INPUT;
	}
	return ret;
}

/*
 * What --block-decoder does not go with, refused with what to use: 0 or
 * 1 (said).  The block decoder prints ptxed's listing of one address
 * space; the rest needs the instruction decoder's walk (cmd_decode.c).
 */
static int decode_block_refused(const struct decode_ctx *c)
{
	const struct decode_opts *o = &c->o;
	const char *what = NULL;

	if (!o->block) {
		if (o->show_blocks || o->end_on_call || o->end_on_jump)
			ptt_err("--block:show-blocks, --block:end-on-call and --block:end-on-jump are the block decoder's: give --block-decoder too");
		else if (o->stat & DECODE_STAT_BLOCKS)
			ptt_err("--stat:blocks counts the block decoder's blocks: give --block-decoder too (--stat:insn counts instructions)");
		else
			return 0;
		return 1;
	}
	if (o->jobs > 1)
		what = "--jobs (the instruction decoder's pieces)";
	else if (o->calls)
		what = "--calls";
	else if (o->timeline)
		what = "--timeline";
	else if (o->fmt_given && (o->fmt.perf || o->fmt.ip_only))
		what = o->fmt.perf ? "--format=perf" : "--format=ip";
	else if (o->fmt.show_time)
		what = "--tsc";
	else if (o->filter.npid || o->filter.ntid || dflt_per_insn(&o->filter))
		what = "--pid, --tid or --time";
	else if (c->vmx.host_only || c->vmx.guest_only || c->vmx.nsel ||
		 c->vmx.summary || c->vmx.nguest || c->vmx.ntsc)
		what = "--host-only, --guest-only, --vmcs, --summary, --guest-image or --guest-tsc";
	if (!what)
		return 0;
	ptt_err("--block-decoder prints ptxed's listing of the instructions and events only: %s needs libipt's instruction decoder, leave out --block-decoder",
		what);
	return 1;
}

/*
 * --block-decoder: each trace whole with libipt's block decoder, in the
 * default address space (decode_block.c); its counts into @total.
 */
static int decode_blocks(struct decode_ctx *c, struct decode_trace *tr,
			 const struct das_file *files, int nfile,
			 struct decode_stats *total)
{
	struct dblk_ctx b;
	int i, err, ret = PTT_EXIT_OK;

	memset(&b, 0, sizeof(b));
	b.o.show_blocks = c->o.show_blocks;
	b.o.numbered = !!c->o.stat;
	b.o.events = c->o.events;
	b.o.event_time = c->o.event_time;
	b.o.quiet = c->o.quiet;
	b.ob = &c->ob;
	b.fmt = &c->o.fmt;
	b.as = &c->as;
	b.p = &c->as.dflt;
	err = dblk_init(&b, files, (size_t)nfile);
	if (err) {
		ptt_err("--block-decoder: cannot read the --raw files: %s",
			strerror(-err));
		dblk_free(&b);
		return PTT_EXIT_INPUT;
	}
	for (i = 0; i < c->ntraces && !ret; i++) {
		struct pt_config config = c->config;

		if (!dflt_cpu(&c->o.filter, tr[i].cpu))
			continue;
		if (tr[i].lf.n) {
			ptt_err("--block-decoder reads each trace whole: %s has loss records (gaps); give --no-loss to decode it anyway, or leave out --block-decoder",
				tr[i].path);
			ret = PTT_EXIT_USAGE;
			break;
		}
		/* decode_trace()'s line */
		if (c->ntraces > 1 && !c->o.quiet && tr[i].cpu >= 0)
			ob_printf(&c->ob, "[trace %s, cpu %d]\n", tr[i].path,
				  tr[i].cpu);
		else if (c->ntraces > 1 && !c->o.quiet)
			ob_printf(&c->ob, "[trace %s]\n", tr[i].path);
		config.begin = tr[i].buf;
		config.end = tr[i].buf + tr[i].len;
		if (dblk_decode(&b, &config, decode_image(c, &c->as.dflt)) < 0) {
			ptt_err("libipt could not set up the block decoder");
			ret = PTT_EXIT_INTERNAL;
		}
	}
	total->insns = b.s.insns;
	total->shown = b.s.insns;
	total->blocks = b.s.blocks;
	total->errors = b.s.errors;
	total->nomap = b.s.nomap;
	dblk_free(&b);
	return ret;
}

int cmd_decode(int argc, char **argv)
{
	enum { O_ELF = 256, O_SB, O_CPU, O_MTC, O_NOM, O_EAX, O_EBX, O_CALLS,
	       O_TL, O_EVENTS, O_TIME, O_LOSS, O_NO_LOSS, O_HZ, O_FORMAT,
	       O_TL_MIN, O_TL_MAX,
	       O_INSN, O_LINES, O_DEBUGINFOD, O_TSC, O_PID, O_TID,
	       O_HOST_ONLY, O_GUEST_ONLY, O_VMCS, O_GUEST_IMAGE, O_GUEST_TSC,
	       O_SUMMARY, O_SYMFS, O_OPEN, O_FILTER_RANGE, O_STOP_RANGE, O_RAW,
	       O_EVENT_TIME, O_EVENT_TICK, O_STAT, O_STAT_INSN, O_STAT_BLOCKS,
	       O_BLOCK, O_BLOCK_SHOW, O_BLOCK_CALL, O_BLOCK_JUMP };
	static const struct option opts[] = {
		{ "elf", required_argument, NULL, O_ELF },
		{ "raw", required_argument, NULL, O_RAW },
		{ "sideband", required_argument, NULL, O_SB },
		{ "loss", required_argument, NULL, O_LOSS },
		{ "no-loss", no_argument, NULL, O_NO_LOSS },
		{ "cpu", required_argument, NULL, O_CPU },
		{ "mtc-freq", required_argument, NULL, O_MTC },
		{ "nom-freq", required_argument, NULL, O_NOM },
		{ "cpuid-0x15-eax", required_argument, NULL, O_EAX },
		{ "cpuid-0x15-ebx", required_argument, NULL, O_EBX },
		{ "filter-range", required_argument, NULL, O_FILTER_RANGE },
		{ "stop-range", required_argument, NULL, O_STOP_RANGE },
		{ "tsc-hz", required_argument, NULL, O_HZ },
		{ "calls", no_argument, NULL, O_CALLS },
		{ "format", required_argument, NULL, O_FORMAT },
		{ "insn", no_argument, NULL, O_INSN },
		{ "lines", no_argument, NULL, O_LINES },
		{ "debuginfod", no_argument, NULL, O_DEBUGINFOD },
		{ "symfs", required_argument, NULL, O_SYMFS },
		{ "timeline", required_argument, NULL, O_TL },
		{ "open", no_argument, NULL, O_OPEN },
		{ "min-duration", required_argument, NULL, O_TL_MIN },
		{ "max-events", required_argument, NULL, O_TL_MAX },
		{ "events", no_argument, NULL, O_EVENTS },
		{ "event:time", no_argument, NULL, O_EVENT_TIME },
		{ "event:tick", no_argument, NULL, O_EVENT_TICK },
		{ "stat", no_argument, NULL, O_STAT },
		{ "stat:insn", no_argument, NULL, O_STAT_INSN },
		{ "stat:blocks", no_argument, NULL, O_STAT_BLOCKS },
		{ "block-decoder", no_argument, NULL, O_BLOCK },
		{ "block:show-blocks", no_argument, NULL, O_BLOCK_SHOW },
		{ "block:end-on-call", no_argument, NULL, O_BLOCK_CALL },
		{ "block:end-on-jump", no_argument, NULL, O_BLOCK_JUMP },
		{ "time", required_argument, NULL, O_TIME },
		{ "tsc", no_argument, NULL, O_TSC },
		{ "pid", required_argument, NULL, O_PID },
		{ "tid", required_argument, NULL, O_TID },
		{ "cpus", required_argument, NULL, 'C' },
		{ "host-only", no_argument, NULL, O_HOST_ONLY },
		{ "guest-only", no_argument, NULL, O_GUEST_ONLY },
		{ "vmcs", required_argument, NULL, O_VMCS },
		{ "guest-image", required_argument, NULL, O_GUEST_IMAGE },
		{ "guest-tsc", required_argument, NULL, O_GUEST_TSC },
		{ "summary", no_argument, NULL, O_SUMMARY },
		{ "jobs", required_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct decode_ctx c;
	struct decode_stats total = { 0 };
	struct decode_trace *tr = NULL;
	struct das_file files[64];
	const char *sb_path = NULL, *cpu_arg = NULL;
	const char *num_arg[4] = { NULL, NULL, NULL, NULL };
	const char *range_arg[4];
	uint32_t range_cfg[4];
	int nrange = 0;
	struct ptsb sb = { 0 };
	const char *source;
	char dir[4096];
	double hz;
	int shown_traces = 0;
	int nfile = 0, opt, err, ret = PTT_EXIT_OK, have_sb, sb_cpu = -1, i;

	memset(&c, 0, sizeof(c));
	c.asp = &c.as;
	c.o.jobs = 1;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "qhC:j:", opts, NULL)) != -1) {
		switch (opt) {
		case O_ELF:
		case O_RAW:
			if (nfile == 64) {
				ptt_err("at most 64 --elf and --raw files");
				ret = PTT_EXIT_USAGE;
				goto out_vmx;
			}
			files[nfile].raw = opt == O_RAW;
			files[nfile++].arg = optarg;
			break;
		case O_SB:
			sb_path = optarg;
			break;
		case 'j': {
			char *e;
			unsigned long j = strtoul(optarg, &e, 10);

			if (*e || !j || j > DPAR_MAX_JOBS) {
				ptt_err("--jobs: '%s' is not a count of threads from 1 to %d",
					optarg, DPAR_MAX_JOBS);
				ret = PTT_EXIT_USAGE;
				goto out_vmx;
			}
			c.o.jobs = (unsigned int)j;
			break;
		}
		case O_LOSS:
			c.o.loss_path = optarg;
			break;
		case O_NO_LOSS:
			c.o.no_loss = 1;
			break;
		case O_CPU:
			cpu_arg = optarg;
			break;
		case O_MTC:
			num_arg[0] = optarg;
			break;
		case O_NOM:
			num_arg[1] = optarg;
			break;
		case O_EAX:
			num_arg[2] = optarg;
			break;
		case O_EBX:
			num_arg[3] = optarg;
			break;
		case O_FILTER_RANGE:
		case O_STOP_RANGE:
			if (nrange == 4) {
				ptt_err("at most 4 --filter-range and --stop-range (IA32_RTIT_ADDR0..3)");
				ret = PTT_EXIT_USAGE;
				goto out_vmx;
			}
			range_cfg[nrange] = opt == O_FILTER_RANGE ?
					    PT_ADDR_CFG_FILTER : PT_ADDR_CFG_STOP;
			range_arg[nrange++] = optarg;
			break;
		case O_HZ:
			if (decode_parse_hz(optarg, &c.o.tsc_hz)) {
				ptt_err("--tsc-hz: bad rate '%s' (Hz, or with k/M/G, 1 MHz to 100 GHz)",
					optarg);
				ret = PTT_EXIT_USAGE;
				goto out_vmx;
			}
			break;
		case O_CALLS:
			c.o.calls = 1;
			break;
		case O_INSN:
			c.o.fmt.insn = 1;
			break;
		case O_LINES:
			c.o.fmt.lines = 1;
			c.as.want_lines = 1;
			break;
		case O_SYMFS:
			c.as.symfs = optarg;
			break;
		case O_DEBUGINFOD:
			c.as.debuginfod = 1;
			break;
		case O_FORMAT:
			c.o.fmt.ip_only = !strcmp(optarg, "ip");
			c.o.fmt.perf = !strcmp(optarg, "perf");
			if (!c.o.fmt.ip_only && !c.o.fmt.perf &&
			    strcmp(optarg, "raw")) {
				ptt_err("--format: unknown format '%s' (known: perf, raw, ip)",
					optarg);
				ret = PTT_EXIT_USAGE;
				goto out_vmx;
			}
			c.o.fmt_given = 1;
			break;
		case O_TL:
			c.o.timeline = optarg;
			break;
		case O_OPEN:
			c.o.open_timeline = 1;
			break;
		case O_TL_MIN:
			if (tl_parse_duration(optarg, &c.o.tl_min_ns)) {
				ptt_err("--min-duration: '%s' is not a duration such as 500ns, 2us, 1ms",
					optarg);
				ret = PTT_EXIT_USAGE;
				goto out_vmx;
			}
			break;
		case O_TL_MAX:
			if (ptt_parse_u64(optarg, &c.o.tl_max) || !c.o.tl_max) {
				ptt_err("--max-events: '%s' is not a positive number",
					optarg);
				ret = PTT_EXIT_USAGE;
				goto out_vmx;
			}
			break;
		case O_EVENTS:
			c.o.events = 1;
			break;
		case O_EVENT_TIME:
			c.o.events = 1;
			c.o.event_time = 1;
			break;
		case O_EVENT_TICK:
			c.o.events = 1;
			c.o.ticks = 1;
			break;
		case O_STAT:
			c.o.stat |= DECODE_STAT_ALL;
			break;
		case O_STAT_INSN:
			c.o.stat |= DECODE_STAT_INSN;
			break;
		case O_STAT_BLOCKS:
			c.o.stat |= DECODE_STAT_BLOCKS;
			break;
		case O_BLOCK:
			c.o.block = 1;
			break;
		case O_BLOCK_SHOW:
			c.o.show_blocks = 1;
			break;
		case O_BLOCK_CALL:
			c.o.end_on_call = 1;
			break;
		case O_BLOCK_JUMP:
			c.o.end_on_jump = 1;
			break;
		case O_TSC:
			c.o.fmt.show_time = 1;
			break;
		case O_TIME:
			if (dflt_parse_time(&c.o.filter, optarg)) {
				ptt_err("--time: '%s' is not a range A,B of seconds as decode prints them (e.g. 12.5,13 or 12.5, or ,13); the TSC column is --tsc",
					optarg);
				return PTT_EXIT_USAGE;
			}
			break;
		case O_PID:
		case O_TID:
			if (opt == O_PID ?
			    dflt_parse_ids(optarg, c.o.filter.pid, &c.o.filter.npid) :
			    dflt_parse_ids(optarg, c.o.filter.tid, &c.o.filter.ntid)) {
				ptt_err("--%s: '%s' is not a list of ids such as 1234,1235 (at most %d)",
					opt == O_PID ? "pid" : "tid", optarg,
					DFLT_MAX_IDS);
				return PTT_EXIT_USAGE;
			}
			break;
		case 'C':
			if (dflt_parse_cpus(&c.o.filter, optarg)) {
				ptt_err("-C/--cpus: '%s' is not a CPU list such as 0,2-3",
					optarg);
				dflt_free(&c.o.filter);
				return PTT_EXIT_USAGE;
			}
			break;
		case O_HOST_ONLY:
			c.vmx.host_only = 1;
			break;
		case O_GUEST_ONLY:
			c.vmx.guest_only = 1;
			break;
		case O_SUMMARY:
			c.vmx.summary = 1;
			break;
		case O_VMCS:
			if (dvmx_add_vmcs(&c.vmx, optarg)) {
				ret = PTT_EXIT_USAGE;
				goto out_vmx;
			}
			break;
		case O_GUEST_TSC:
			if (dvmx_add_guest_tsc(&c.vmx, optarg)) {
				ret = PTT_EXIT_USAGE;
				goto out_vmx;
			}
			break;
		case O_GUEST_IMAGE:
			if (dvmx_add_guest_image(&c.vmx, optarg)) {
				ret = PTT_EXIT_INPUT;
				goto out_vmx;
			}
			break;
		case 'q':
			c.o.quiet = 1;
			break;
		case 'h':
			decode_usage(stdout);
			ret = PTT_EXIT_OK;
			goto out_vmx;
		default:
			decode_usage(stderr);
			ret = PTT_EXIT_USAGE;
			goto out_vmx;
		}
	}
	if (c.o.open_timeline && !c.o.timeline) {
		ptt_err("--open shows the --timeline file: give --timeline FILE.json too");
		ret = PTT_EXIT_USAGE;
		goto out_vmx;
	}
	c.ntraces = argc - optind;
	ret = PTT_EXIT_USAGE;
	if (c.ntraces < 1 || c.ntraces > DECODE_MAX_TRACES) {
		ptt_err("expected one trace file, or up to %d of one recording (try --help)",
			DECODE_MAX_TRACES);
		goto out_vmx;
	}
	if (c.o.fmt.ip_only && (c.o.calls || c.o.quiet || c.vmx.summary)) {
		ptt_err("--format=ip prints instructions: it goes with neither --calls, -q nor --summary");
		goto out_vmx;
	}
	if (c.o.loss_path && (c.ntraces > 1 || c.o.no_loss)) {
		ptt_err("--loss FILE names the loss file of one trace: give one trace and no --no-loss");
		goto out_vmx;
	}
	if (decode_block_refused(&c))
		goto out_vmx;
	/* --stat alone: the counts the decoder has, as ptxed's */
	if (c.o.stat == DECODE_STAT_ALL)
		c.o.stat |= DECODE_STAT_INSN |
			    (c.o.block ? DECODE_STAT_BLOCKS : 0);
	if (c.vmx.host_only + c.vmx.guest_only + !!c.vmx.nsel > 1) {
		ptt_err("--host-only, --guest-only and --vmcs each choose what is shown: give one of them (--vmcs is repeatable)");
		goto out_vmx;
	}
	ret = PTT_EXIT_OK;
	if (dvmx_init(&c.vmx)) {
		ptt_err("out of memory");
		ret = PTT_EXIT_INTERNAL;
		goto out_vmx;
	}

	pt_config_init(&c.config);
	/* the flags' variants share their bits: set the decoder's own */
	if (c.o.block) {
		c.config.flags.variant.block.enable_tick_events = !!c.o.ticks;
		c.config.flags.variant.block.end_on_call = !!c.o.end_on_call;
		c.config.flags.variant.block.end_on_jump = !!c.o.end_on_jump;
	} else {
		c.config.flags.variant.insn.enable_tick_events = !!c.o.ticks;
	}
	if (sb_path) {
		err = ptsb_read(sb_path, &sb);
		if (err) {
			ptt_err("cannot read sideband %s: %s", sb_path,
				err == -EINVAL ? "not a pt-trace sideband file" :
				strerror(-err));
			ret = PTT_EXIT_INPUT;
			goto out_vmx;
		}
		have_sb = 1;
	} else {
		have_sb = !ptt_find_sideband(argv[optind], &sb, &sb_cpu);
	}
	if (have_sb) {
		uint64_t ctl, jf, periods;

		ptt_config_from_sideband(&c.config, &sb);
		/* no configurable PSB: PSB+ at every enable (decode_follow_psb()) */
		c.psb_enables = !ptsb_get_u64(&sb, "caps.psb_periods", &periods) &&
				!periods;
		c.o.cyc = !ptsb_get_u64(&sb, "ctl", &ctl) &&
			  (ctl & PT_CTL_CYCEN);
		/* record's follow.join_failures: processes never traced */
		if (!ptsb_get_u64(&sb, "follow.join_failures", &jf) && jf)
			ptt_warn("%llu tasks could not be followed at the recording (sideband follow.join_failures): processes forked by the traced ones ran untraced, so their code is in no trace here (their sideband.perf records may be)",
				 (unsigned long long)jf);
		/* KVM's guest TSC offset/ratio, for guests without --guest-tsc */
		dvmx_tsc_from_sideband(&c.vmx, &sb);
	}
	if (cpu_arg && ptt_config_set_cpu(&c.config, cpu_arg)) {
		ptt_err("--cpu wants FAMILY/MODEL[/STEPPING], e.g. 6/85/4");
		ret = PTT_EXIT_USAGE;
		goto out_sb;
	}
	/* Given ranges replace the sideband's: they are the whole set. */
	if (nrange)
		memset(&c.config.addr_filter, 0, sizeof(c.config.addr_filter));
	for (i = 0; i < nrange; i++) {
		if (ptt_config_add_range_arg(&c.config, range_cfg[i],
					     range_arg[i])) {
			ptt_err("%s: '%s' is not a range A-B (A <= B)",
				range_cfg[i] == PT_ADDR_CFG_FILTER ?
				"--filter-range" : "--stop-range", range_arg[i]);
			ret = PTT_EXIT_USAGE;
			goto out_sb;
		}
	}
	for (i = 0; i < 4; i++) {
		static const char *const names[] = { "--mtc-freq", "--nom-freq",
			"--cpuid-0x15-eax", "--cpuid-0x15-ebx" };
		uint32_t v;

		if (!num_arg[i])
			continue;
		if (ptt_parse_u32(num_arg[i], &v) ||
		    (i == 0 && v > 15) || (i == 1 && v > 255)) {
			ptt_err("%s: bad value '%s'", names[i], num_arg[i]);
			ret = PTT_EXIT_USAGE;
			goto out_sb;
		}
		if (i == 0)
			c.config.mtc_freq = (uint8_t)v;
		else if (i == 1)
			c.config.nom_freq = (uint8_t)v;
		else if (i == 2)
			c.config.cpuid_0x15_eax = v;
		else
			c.config.cpuid_0x15_ebx = v;
	}

	tr = calloc((size_t)c.ntraces, sizeof(*tr));
	c.as.dflt.image = pt_image_alloc(NULL);
	if (!c.as.dflt.image || !tr) {
		ptt_err("out of memory");
		ret = PTT_EXIT_INTERNAL;
		goto out_image;
	}
	for (i = 0; i < nfile; i++) {
		err = das_add_file(c.as.dflt.image, &c.as.dflt.st, &files[i]);
		if (err && files[i].raw) {
			ptt_err("cannot load --raw %s: %s", files[i].arg,
				err == -EDESTADDRREQ ? "give it as FILE[:FROM[-TO]]:BASE" :
				err == -ERANGE ? "the range FROM-TO is not in the file" :
				err == -EDOM ? "TO is not above FROM" :
				err == -EINVAL ? "not a regular file" :
				err == -EIO ? "libipt refused it" : strerror(-err));
			ret = PTT_EXIT_INPUT;
			goto out_image;
		}
		if (err) {
			ptt_err("cannot load ELF %s: %s", files[i].arg,
				err == -ENOEXEC ? "not a 64-bit little-endian ELF file" :
				strerror(-err));
			ret = PTT_EXIT_INPUT;
			goto out_image;
		}
	}
	c.as.files = files;
	c.as.nfile = nfile;
	/* the recording's directory: sideband.perf, the vdso copy */
	snprintf(dir, sizeof(dir), "%s", sb_path ? sb_path : argv[optind]);
	snprintf(c.sb_dir, sizeof(c.sb_dir), "%s", dirname(dir));
	if (have_sb)
		decode_add_maps(&c.as.dflt, &sb);
	if (c.o.tsc_hz > 0)
		hz = c.o.tsc_hz;
	else
		ptt_tsc_hz(have_sb ? &sb : NULL, &c.config, &hz, &source);
	err = das_load(&c.as, c.sb_dir, have_sb ? &sb : NULL, hz);
	if (err)
		ptt_warn("cannot read %s/sideband.perf: %s; every process is decoded in one address space (the sideband.txt map= lines and --elf)",
			 c.sb_dir, err == -EINVAL ? "not a sideband.perf file" :
			 err == -EPROTO ? "written by a newer pt-trace" : strerror(-err));
	/* the block decoder knows no task: its lines are the raw ones */
	if (!c.o.fmt_given)
		c.o.fmt.perf = c.as.have_perf && !c.o.block;
	/* BTS files carry their own switch records (decode_bts.c). */
	if ((c.o.filter.npid || c.o.filter.ntid) && !c.as.ncpu &&
	    !bts_dump_is_bts(argv[optind])) {
		ptt_err("--pid/--tid need the recording's context-switch records (sideband.perf beside the traces, written by pt-trace record): %s",
			c.as.have_perf ? "it has none" : "there is none");
		ret = PTT_EXIT_USAGE;
		goto out_image;
	}
	if (!das_use(&c.as, &c.as.dflt)) {
		ptt_err("out of memory");
		ret = PTT_EXIT_INTERNAL;
		goto out_image;
	}
	if (c.o.block && (c.as.ncpu || bts_dump_is_bts(argv[optind]))) {
		ptt_err("--block-decoder decodes PT traces in one address space (--elf, --raw, sideband.txt's maps): %s; decode without --block-decoder",
			c.as.ncpu ? "this recording's sideband.perf switches between processes" :
			"this is a BTS file");
		ret = PTT_EXIT_USAGE;
		goto out_image;
	}
	if (bts_dump_is_bts(argv[optind])) {
		ret = decode_bts_files(&c, argv + optind, have_sb ? &sb : NULL);
		goto out_image;
	}

	ret = decode_load_traces(&c, tr, argv + optind, have_sb ? &sb : NULL);
	if (ret)
		goto out_traces;
	if (c.o.timeline) {
		struct decode_cbr cbr;

		dcbr_init(&cbr, have_sb ? &sb : NULL,
			  num_arg[1] ? c.config.nom_freq : 0);
		c.bus_mhz = cbr.bus_mhz;
		ret = decode_open_timeline(&c, tr, have_sb ? &sb : NULL);
		if (ret)
			goto out_traces;
	}
	if (ob_init(&c.ob, STDOUT_FILENO, 1 << 20) ||
	    decode_fmt_init(&c.o.fmt)) {
		ptt_err("out of memory");
		ret = PTT_EXIT_INTERNAL;
		goto out_tl;
	}
	/* ptxed's line for a --cpu it knows no errata of (quiet or not) */
	err = cpu_arg && !c.o.fmt.ip_only ? ptt_config_errata_err(&c.config) : 0;
	if (err < 0)
		ob_printf(&c.ob, "[0, 0: config error: %s]\n",
			  pt_errstr(pt_errcode(err)));
	if (c.o.block) {
		ret = decode_blocks(&c, tr, files, nfile, &total);
		shown_traces = 1;
		goto out_stat;
	}
	for (i = 0; i < c.ntraces && !ret; i++) {
		if (!dflt_cpu(&c.o.filter, tr[i].cpu))
			continue;
		shown_traces++;
		ret = decode_trace(&c, &tr[i]);
		decode_sum(&total, &tr[i].stats);
		if (c.ntraces > 1 && !c.o.fmt.ip_only &&
		    (c.o.quiet || c.o.calls || c.o.timeline))
			decode_print_stats(&c.ob, tr[i].path, &tr[i].stats);
	}
out_stat:
	/* ptxed's statistics lines (even when quiet), instead of ours. */
	if (c.o.stat & DECODE_STAT_INSN)
		ob_printf(&c.ob, "insn: %llu.\n",
			  (unsigned long long)total.insns);
	if (c.o.stat & DECODE_STAT_BLOCKS)
		ob_printf(&c.ob, "blocks:\t%llu.\n",
			  (unsigned long long)total.blocks);
	if (!c.o.stat && !c.o.fmt.ip_only &&
	    (c.o.quiet || c.o.calls || c.o.timeline || c.vmx.summary))
		decode_print_stats(&c.ob, NULL, &total);
	if (c.vmx.summary) {
		struct decode_cbr cbr;

		dcbr_init(&cbr, have_sb ? &sb : NULL,
			  num_arg[1] ? c.config.nom_freq : 0);
		for (i = 0; i < c.ntraces; i++) {
			dcbr_scan(&cbr, tr[i].buf, tr[i].len);
			dvmx_packets(&c.vmx, tr[i].buf, tr[i].len);
		}
		dcbr_print(&cbr, &c.ob);
		dvmx_print_summary(&c.vmx, &c.ob);
	}
	ob_free(&c.ob);
	ret = decode_write_error(&c.ob, ret);
	decode_fmt_free(&c.o.fmt);
	if (c.o.fmt.ip_only && (total.errors || total.gaps || total.dropped))
		ptt_warn("%llu decode errors, %llu gaps, %llu bytes dropped: not in the --format=ip listing (decode without it to see where)",
			 (unsigned long long)total.errors,
			 (unsigned long long)total.gaps,
			 (unsigned long long)total.dropped);
	if (!ret && !shown_traces) {
		ptt_err("-C/--cpus: no trace of those CPUs among the files given (cpuN.pt names the CPU)");
		ret = PTT_EXIT_USAGE;
	} else if (!ret && !total.insns) {
		decode_nothing(&total);
		ret = PTT_EXIT_INPUT;
	} else if (!ret && !total.shown) {
		ptt_warn("%llu instructions decoded, none of them passed the filters (--pid/--tid/--time, --host-only/--guest-only/--vmcs)",
			 (unsigned long long)total.insns);
	}
out_tl:
	if (c.tl.f && tl_close(&c.tl)) {
		ptt_err("writing %s failed", c.o.timeline);
		if (!ret)
			ret = PTT_EXIT_INPUT;
	}
out_traces:
	for (i = 0; i < c.ntraces; i++) {
		if (tr[i].buf)
			ptt_unmap_file(tr[i].buf, tr[i].len);
		ptl_free(&tr[i].lf);
	}
out_image:
	free(tr);
	das_free(&c.as);
	free(c.threads);
	free(c.cr3s);
	dflt_free(&c.o.filter);
out_sb:
	ptsb_free(&sb);
out_vmx:
	if (c.vmx.nr_no_vmcs)
		ptt_warn("%llu guest PIPs (NR=1) came with no VMCS loaded (none since the PSB, or the all-ones base): their context has no VMCS",
			 (unsigned long long)c.vmx.nr_no_vmcs);
	if (c.vmx.nr_no_pip > 10)
		ptt_warn("%llu VM entries had no PIP (the first 10 are named above): their guests' contexts are inferred",
			 (unsigned long long)c.vmx.nr_no_pip);
	if (c.vmx.nr_no_exit_pip > 10)
		ptt_warn("%llu VM exits had no PIP (the first 10 are named above): the host's context after them is inferred",
			 (unsigned long long)c.vmx.nr_no_exit_pip);
	if (c.vmx.no_image)
		ptt_warn("%llu decode errors in guests without code: give --guest-image VMCS:PATH[@ADDR] (pt-trace contexts lists the guests' VMCS)",
			 (unsigned long long)c.vmx.no_image);
	dvmx_free(&c.vmx);
	if (!ret && c.o.open_timeline)
		ret = tl_view(c.o.timeline);
	return ret;
}
