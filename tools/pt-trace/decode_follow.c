// SPDX-License-Identifier: GPL-2.0
/*
 * Whose code runs on a trace's CPU, and so which image libipt's decoder
 * reads code from (the instruction decoder's, or the block decoder's with
 * --block-decoder: struct decode_dec): the switch records by the
 * decoder's time (decode_follow()), corrected at enables
 * (decode_follow_enable(), decode_follow_psb()), PIPs and execs; and the
 * loop over the decoder's pending events that drives them
 * (decode_events(); decode_event_blk() for one of the block decoder's).
 */
#include <stdio.h>
#include <stdlib.h>

#include <linux/pt_trace.h>

#include "decode_calls.h"
#include "decode_follow.h"
#include "decode_image.h"
#include "decode_insn.h"
#include "decode_out.h"
#include "decode_psb.h"
#include "decode_timeline.h"
#include "decode_vmx.h"
#include "lossfile.h"

/*
 * The libipt decoder whose image follows the processes: the instruction
 * decoder's (decode_walk.c) or, with --block-decoder, the block
 * decoder's (decode_block_run.c); one of the two is set.  What the rules
 * below need of it: its time, its offset and its image.
 */
struct decode_dec {
	struct pt_insn_decoder *insn;
	struct pt_block_decoder *blk;
};

/* The decoder's time, as decode_time() gives it: 0, or < 0 for none. */
static int ddec_time(struct decode_trace *t, const struct decode_dec *d,
		     uint64_t *tsc)
{
	uint32_t lost_mtc, lost_cyc;
	uint64_t off;
	int err;

	if (d->insn)
		return decode_time(t, d->insn, tsc, &lost_mtc, &lost_cyc);
	/* the block decoder has no --jobs segments: libipt's, converted */
	err = pt_blk_time(d->blk, tsc, &lost_mtc, &lost_cyc);
	if (err < 0 || !t->marks.n || pt_blk_get_offset(d->blk, &off) < 0)
		return err;
	*tsc = dvmx_host_time(&t->marks, off + t->base, *tsc);
	return err;
}

static int ddec_offset(const struct decode_dec *d, uint64_t *off)
{
	return d->insn ? pt_insn_get_offset(d->insn, off) :
			 pt_blk_get_offset(d->blk, off);
}

/* @p's code from now on (the host's: a guest's comes at the VM exit) */
static void ddec_set_image(struct decode_ctx *c, const struct decode_dec *d,
			   const struct das_proc *p)
{
	struct pt_image *img = dvmx_image(&c->vmx, decode_image(c, p));

	if (d->insn)
		pt_insn_set_image(d->insn, img);
	else if (d->blk)
		pt_blk_set_image(d->blk, img);
}

static const struct decode_cr3 *
decode_find_cr3(const struct decode_ctx *c, uint64_t cr3)
{
	size_t i;

	for (i = 0; i < c->ncr3; i++)
		if (c->cr3s[i].cr3 == cr3)
			return &c->cr3s[i];
	return NULL;
}

/*
 * The last CR3 loaded before a switch-in record took effect is the
 * incoming task's (the kernel loads it before it writes the record); a
 * kernel thread loads none, so nothing is learned for it.
 */
void decode_learn_cr3(struct decode_ctx *c, uint64_t cr3,
		      const struct das_switch *s)
{
	struct decode_cr3 *n;

	if (decode_find_cr3(c, cr3))
		return;
	n = realloc(c->cr3s, (c->ncr3 + 1) * sizeof(*n));
	if (!n)
		return;
	c->cr3s = n;
	c->cr3s[c->ncr3].cr3 = cr3;
	c->cr3s[c->ncr3++].who = *s;
}

/* From now on the code that runs is task @s's, in its address space. */
static void decode_switch_to(struct decode_ctx *c, struct decode_trace *t,
			     const struct decode_dec *dec,
			     const struct das_switch *s)
{
	struct das_proc *p = decode_use_at(c, s->pid, s->tsc);

	if (c->o.calls && s->tid != t->st.tid)
		decode_calls_switch(c, t, s);
	t->st.pid = s->pid;
	t->st.tid = s->tid;
	snprintf(t->st.comm, sizeof(t->st.comm), "%s", s->comm);
	/*
	 * Every CPU's idle task is 0/0: its time goes on the CPU's own
	 * track, not on one track that all CPUs would share.
	 */
	if (c->tl_marks && s->tid >= 0) {
		struct tl_mark k = {
			.op = s->tid ? TLM_THREAD : TLM_CPU_THREAD,
			.pid = s->pid, .tid = s->tid,
		};

		snprintf(k.text, sizeof(k.text), "%s", s->comm);
		tlm_put(&t->tlm, &c->ob, &k);
	} else if (c->tl.f && s->tid > 0) {
		tl_track_thread(&t->track, s->pid, s->tid, s->comm);
	} else if (c->tl.f && !s->tid) {
		tl_track_thread(&t->track, c->tl.pid, t->tl_tid, t->tl_name);
	}
	if (!p || p == t->st.cur)
		return;
	t->st.cur = p;
	t->st.cur_fresh = 1;
	/* In a guest, the host's image is swapped in at the VM exit. */
	ddec_set_image(c, dec, p);
}

/*
 * Run @i of the switch records starts: its task's process, and the CR3
 * a PIP gave since the last switch learned as that process's.
 */
static void decode_enter_run(struct decode_ctx *c, struct decode_trace *t,
			     const struct decode_dec *dec, size_t i)
{
	t->st.cur_sw = (long)i;
	if (t->st.cr3_fresh)
		decode_learn_cr3(c, t->st.last_cr3, &t->sw[i]);
	t->st.cr3_fresh = 0;
	decode_switch_to(c, t, dec, &t->sw[i]);
}

/*
 * Whose code runs on this CPU at the decoder's time: the task of the
 * first run (switch-in to switch-out) that has not ended by then.  The
 * decoder's time is the last timing packet's, and the driver turns
 * tracing on in the scheduler's switch hook, before perf writes the
 * switch-in record: the TSC packet of that enable is older than the
 * record, so a time between one run's end and the next run's start is
 * the next run's (without switch-out records a run ends where the next
 * one starts, and the rule is "the last switch-in at or before").
 * Returns whether it entered another run (the image may have changed).
 */
static int decode_follow_dec(struct decode_ctx *c, struct decode_trace *t,
			     const struct decode_dec *dec)
{
	uint64_t tsc;
	size_t i;

	if (ddec_time(t, dec, &tsc) < 0 || tsc <= t->st.sw_until)
		return 0;
	for (i = t->st.cur_sw < 0 ? 0 : (size_t)t->st.cur_sw;
	     i < t->nsw && t->sw[i].out < tsc; i++)
		;
	if (i == t->nsw) {
		t->st.sw_until = UINT64_MAX;	/* after the last run: stay */
		return 0;
	}
	t->st.sw_until = t->sw[i].out;
	if ((long)i == t->st.cur_sw)
		return 0;
	decode_enter_run(c, t, dec, i);
	return 1;
}

int decode_follow(struct decode_ctx *c, struct decode_trace *t,
		  struct pt_insn_decoder *dec)
{
	const struct decode_dec d = { .insn = dec };

	return decode_follow_dec(c, t, &d);
}

int decode_follow_blk(struct decode_ctx *c, struct decode_trace *t,
		      struct pt_block_decoder *dec)
{
	const struct decode_dec d = { .blk = dec };

	return decode_follow_dec(c, t, &d);
}

/*
 * The first run switched in after @tsc, from the current one on: its
 * index in t->sw, or -1 when there is none or it is the current run.
 */
static long decode_run_after(const struct decode_trace *t, uint64_t tsc)
{
	size_t i;

	for (i = t->st.cur_sw < 0 ? 0 : (size_t)t->st.cur_sw;
	     i < t->nsw && t->sw[i].tsc <= tsc; i++)
		;
	return i == t->nsw || (long)i == t->st.cur_sw ? -1 : (long)i;
}

/*
 * TIP.PGE after the timing packets of a TraceEn 0->1 (TSC, TMA, CBR
 * outside a PSB+, SDM Table 36-50 case 2d): the driver enabled tracing
 * in the scheduler's switch hook, for the task whose switch-in record
 * comes next.  Between two followed tasks that enable (which the driver
 * does there too) is older than the previous task's switch-out record,
 * so the time rule of decode_follow() would give the new task's code to
 * the old one; the code after this TIP.PGE is the next run's.  A run
 * that started before the enable's time is over: user-mode tracing is
 * off while the kernel switches tasks, so nothing else marks the switch.
 */
static void decode_follow_enable(struct decode_ctx *c, struct decode_trace *t,
				 const struct decode_dec *dec)
{
	long i;

	/*
	 * The enable's own time, not the decoder's now: a PSB+ between
	 * the enable and this TIP.PGE (the PSB period ran out meanwhile)
	 * brings a later TSC, maybe past the switch-in record, and the run
	 * after the enabled one would be taken.
	 */
	if (!t->st.enable_has_tsc)
		return;
	i = decode_run_after(t, t->st.enable_tsc);
	if (i < 0)
		return;
	t->st.sw_until = t->sw[i].out;
	decode_enter_run(c, t, dec, (size_t)i);
}

/*
 * A PSB+ (its CBR, a status update): noted for decode_follow_psb() at
 * the TIP.PGE after it.
 */
static void decode_psb_seen(struct decode_trace *t,
			    const struct decode_dec *dec,
			    const struct pt_event *ev)
{
	uint64_t off;

	t->st.psb_pending = 0;
	if (!ev->has_tsc || ddec_offset(dec, &off) < 0)
		return;
	t->st.psb_pending = 1;
	t->st.psb_raw = ev->tsc;
	t->st.psb_off = off + t->base;
	t->st.psb_tsc = t->marks.n ?
			dvmx_host_time(&t->marks, t->st.psb_off, ev->tsc) :
			ev->tsc;
}

/*
 * TIP.PGE right after a PSB+, on a CPU that sends PSB+ at every TraceEn
 * 0->1 (no configurable PSB: Broadwell), where an enable has no timing
 * packets of its own for decode_follow_enable(): is this PSB+ the
 * enable of the next run, or a periodic one while the current run's
 * task was in the kernel?  Its time cannot say: the driver enables the
 * next task in the scheduler's switch hook, before perf writes the
 * switch-out record of the task before, so both lie in the current
 * run.  What comes next can.  Let B be the first run switched in after
 * the PSB+'s time T.  A periodic PSB+: the current task goes on after
 * the TIP.PGE and is switched out before B is switched in, and the
 * next PSB+ is one in its code or the enable of the task after it,
 * older than B's switch-in record.  B's enable: B's code runs after
 * its switch-in record, and so does anything after it.  So the next
 * PSB+'s time (before the end of the stretch, no packets lost between)
 * decides; with none, the TSC record read after the CPU stopped (the
 * sideband's tsc.end) does: a periodic PSB+ was the last one only if
 * tracing stopped before B's enable.  Where the trace stopped before
 * the recording ended (a loss record at the end of the file), the stop
 * time is that record's start instead (decode_stop_early()).
 */
static void decode_follow_psb(struct decode_ctx *c, struct decode_trace *t,
			      const struct decode_dec *dec)
{
	uint64_t tsc = t->st.psb_tsc, in, next, next_off;
	long i;
	int r;

	if (!c->psb_enables || !t->psbs.n)
		return;
	i = decode_run_after(t, tsc);
	if (i < 0)
		return;
	in = t->sw[i].tsc;
	r = dpsb_next_tsc(&t->psbs, t->st.psb_off, t->st.psb_raw,
			  t->stretch_end, &next, &next_off);
	if (r == 0 && t->marks.n)
		next = dvmx_host_time(&t->marks, next_off, next);
	if (r == 0 ? next < in :
	    r < 0 || !t->have_stop || t->stretch_end != t->len ||
	    t->stop_tsc < in)
		return;
	t->st.enable_tsc = tsc;
	t->st.enable_has_tsc = 1;
	decode_follow_enable(c, t, dec);
}

/*
 * decode_follow_psb()'s stop time where the trace stopped before the
 * recording ended: a loss record at or past the end of the file (record
 * writes one for a CPU still stopped at the end, e.g. offline and START
 * again failed; the driver one for a trace taken over or stopped by an
 * error).  decode_stretch_end() leaves such a record out, so the last
 * stretch runs to the end of the file, and tsc.end (read after the
 * final STOP) is too late: a periodic PSB+ whose next run was switched
 * in after the trace stopped was taken for that run's enable.  The rule
 * needs a time the trace is known to have run to: a run switched in by
 * then would have sent its enable's PSB+.  The record's start TSC is
 * one (the driver's: when the gap opened; record's: when it last saw
 * the trace running); a run switched in later is left to the time rule
 * (the stop may lie anywhere in the record's span: record's end TSC is
 * when it gave up, as late as tsc.end).  Not the rule left out for any
 * such record: a trace seen running past B's switch-in with no PSB+
 * after this one still says it was B's enable.  The earliest record
 * counts; dropped bytes (PT_LOSS_DROPPED) say nothing of a stop.
 */
void decode_stop_early(struct decode_trace *t)
{
	size_t i;

	for (i = 0; i < t->lf.n; i++) {
		const struct ptl_record *r = &t->lf.rec[i];

		if (r->offset < t->len || (r->flags & PT_LOSS_DROPPED))
			continue;
		if (!t->have_stop || r->start_tsc < t->stop_tsc)
			t->stop_tsc = r->start_tsc;
		t->have_stop = 1;
	}
}

/*
 * A PIP: the CPU loaded CR3 @cr3.  A process whose CR3 is known is
 * switched to right here, before the switch record's time (which is
 * taken after the kernel switched, and seen only at the next timing
 * packet); an unknown one is learned at the next switch record.
 */
static void decode_pip(struct decode_ctx *c, struct decode_trace *t,
		       const struct decode_dec *dec, uint64_t cr3)
{
	const struct decode_cr3 *k;

	cr3 &= ~0xfffull;
	t->st.last_cr3 = cr3;
	t->st.cr3_fresh = 1;
	if (!t->nsw)
		return;		/* no switch records: no process is known */
	k = decode_find_cr3(c, cr3);
	if (k && k->who.pid != t->st.pid) {
		struct das_switch s = k->who;

		s.tid = -1;	/* a CR3 names a process, not a thread */
		decode_switch_to(c, t, dec, &s);
	}
}

/*
 * A TIP.PGE in a run of a process that execs later in that run (its
 * program has a next one): is this the new program's first instruction?
 * User-mode tracing stops at the exec's syscall and starts again at the
 * new program's entry with no timing packet between, so the time alone
 * cannot tell; the entry point can.  The new program is taken at the
 * first enable at its entry (the executable's or ld.so's, as mapped
 * after the exec) or at a time past the exec record's.  A next program
 * that is no exec (das_proc.remap: a library mapped where another was)
 * has no entry: the first enable past its record's time, as the mmap's
 * system call returns (or later, where no timing packet came since).
 */
static void decode_exec(struct decode_ctx *c, struct decode_trace *t,
			const struct decode_dec *dec, uint64_t ip)
{
	uint64_t tsc;
	int i, have_time = -1;

	while (t->st.cur->next && t->st.cur->pid == t->st.pid) {
		struct das_proc *n = decode_use(c, t->st.cur->next);
		int at_entry = 0, own = 0;

		if (!n)
			return;
		for (i = 0; i < n->nentry; i++)
			at_entry |= n->entry[i] == ip;
		/*
		 * Not the current program's own start at the same address
		 * (two static programs at one address): before it ran an
		 * instruction, this enable is its first, if it starts at
		 * its entry at all (a forked child's copy of its parent's
		 * program, or one that ran before the recording, does not).
		 */
		for (i = 0; i < t->st.cur->nentry; i++)
			own |= t->st.cur->entry[i] == ip;
		if (own && t->st.cur_fresh && t->st.cur->execd)
			at_entry = 0;
		if (have_time < 0)
			have_time = !ddec_time(t, dec, &tsc);
		if (!at_entry && !(have_time && n->exec_time &&
				   tsc >= n->exec_tsc))
			return;
		t->st.cur = n;
		t->st.cur_fresh = 1;
		ddec_set_image(c, dec, n);
		/* the process has the new program's name from here on */
		if (!n->remap && n->comm[0] && t->st.pid == n->pid)
			snprintf(t->st.comm, sizeof(t->st.comm), "%s", n->comm);
	}
}

/*
 * A CBR outside PSB+: the timing packets of a TraceEn 0->1 (for
 * decode_follow_enable() at the TIP.PGE), at the event's time.
 */
static void decode_enable_timing(struct decode_trace *t,
				 const struct decode_dec *dec,
				 const struct pt_event *ev)
{
	uint64_t off;

	t->st.enable_timing = 1;
	t->st.enable_has_tsc = ev->has_tsc;
	t->st.enable_tsc = ev->tsc;
	if (!ev->has_tsc)
		t->st.enable_has_tsc = ddec_time(t, dec, &t->st.enable_tsc) >= 0;
	else if (t->marks.n && ddec_offset(dec, &off) >= 0)
		t->st.enable_tsc = dvmx_host_time(&t->marks, off + t->base,
						  ev->tsc);
}

/*
 * What event @ev says of whose code runs: PIPs, the timing of an enable,
 * a PSB+, the enable itself and an exec at it.
 */
static void decode_event_follow(struct decode_ctx *c, struct decode_trace *t,
				const struct decode_dec *dec,
				const struct pt_event *ev)
{
	if (ev->type == ptev_paging && !ev->variant.paging.non_root)
		decode_pip(c, t, dec, ev->variant.paging.cr3);
	else if (ev->type == ptev_async_paging &&
		 !ev->variant.async_paging.non_root)
		decode_pip(c, t, dec, ev->variant.async_paging.cr3);
	else if (ev->type == ptev_cbr && !ev->status_update)
		decode_enable_timing(t, dec, ev);
	else if (ev->type == ptev_cbr)
		decode_psb_seen(t, dec, ev);
	if (ev->type == ptev_cbr && c->tl.f && dec->insn)
		decode_tl_cbr(c, t, dec->insn, ev->variant.cbr.ratio);
	else if (ev->type == ptev_enabled && t->st.enable_timing)
		decode_follow_enable(c, t, dec);
	else if (ev->type == ptev_enabled && t->st.psb_pending &&
		 !ev->status_update)
		decode_follow_psb(c, t, dec);
	if (ev->type == ptev_enabled)
		decode_exec(c, t, dec, ev->variant.enabled.ip);
	if (ev->type == ptev_enabled || ev->type == ptev_disabled ||
	    ev->type == ptev_async_disabled) {
		t->st.enable_timing = 0;
		t->st.psb_pending = 0;
	}
}

void decode_event_blk(struct decode_ctx *c, struct decode_trace *t,
		      struct pt_block_decoder *dec, const struct pt_event *ev)
{
	const struct decode_dec d = { .blk = dec };

	decode_event_follow(c, t, &d, ev);
}

/* Take the pending events; returns the decoder's status after them. */
int decode_events(struct decode_ctx *c, struct decode_trace *t,
		  struct pt_insn_decoder *dec, int status)
{
	const struct decode_dec d = { .insn = dec };
	const struct decode_opts *o = &c->o;
	int moved = 0;

	while (status & pts_event_pending) {
		struct pt_event ev;

		status = pt_insn_event(dec, &ev, sizeof(ev));
		if (status < 0)
			break;
		t->stats.events++;
		/* First the VMX context: a host PIP below sets the host's image. */
		moved |= dvmx_event(&c->vmx, &ev);
		decode_event_follow(c, t, &d, &ev);
		if (o->events && !o->quiet && !o->fmt.ip_only && !ev.status_update &&
		    c->vmx.sel_cur)
			decode_print_event(&c->ob, &ev, o->event_time);
	}
	/* Into or out of a guest: its code from now on. */
	if (moved && pt_insn_set_image(dec, dvmx_image(&c->vmx,
						       decode_image(c, t->st.cur))) < 0)
		return -pte_internal;
	return status;
}
