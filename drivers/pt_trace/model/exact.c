// SPDX-License-Identifier: GPL-2.0
/*
 * The stream side of the exact model: the events of the stepped task
 * (exact_step.c) become packets (exact_enc.c) that go through the same
 * placement, output, loss accounting and PMIs as the sampled generator's
 * (pt_model_update(), output.c).  One event is one model operation on
 * the CPU, so an NMI (the driver's PMI handler) that writes MSRs in the
 * middle of it makes it start over on the new state, as a tick does.
 *
 * The encoder and the IP of the next user instruction are part of the
 * model state (struct pt_model_exact): they belong to the CPU's trace
 * stream, not to a task.  An interrupt or exception the stepper sees
 * taken in user code sends FUP + TIP.PGD at the pending IP, and the next
 * step TIP.PGE there (the return).  A TraceEn 1->0 flushes pending TNT
 * bits and, if the stepped task was in user code, sends FUP + TIP.PGD
 * there (its leaving by an interrupt not seen); a TraceEn 0->1 starts
 * over with PSB+ (or timing packets) at the first event, as the sampled
 * generator does at its first tick.  model_stale does not hold back
 * exact-mode bytes: they reach memory when the event that made them is
 * published.
 */
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/pt_trace.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <asm/cpufeature.h>
#include <asm/msr.h>

#include "../regs.h"
#include "model.h"

static bool pt_exact_pt_on(const struct pt_model_state *s)
{
	return s->x.on && (s->regs.ctl & PT_CTL_TRACEEN);
}

/* User code is stepped for PT (TraceEn, User, not OS) or BTS. */
bool pt_model_exact_active(struct pt_model_cpu *st)
{
	return pt_exact_pt_on(READ_ONCE(st->active)) || pt_model_bts_exact(st);
}

/*
 * A TraceEn 1 -> 0 published now sends FUP + TIP.PGD at @ip, the pending
 * instruction of the task in user code (pt_model_exact_on_disable()).
 */
bool pt_model_exact_disable_leaves(struct pt_model_cpu *st, u64 *ip)
{
	const struct pt_model_state *s = READ_ONCE(st->active);

	*ip = s->x.pending;
	return pt_exact_pt_on(s) && s->x.enc.in &&
	       (s->regs.status & PT_STATUS_TRIGGEREN);
}

u64 pt_model_exact_pending(struct pt_model_cpu *st)
{
	return st->xpending;
}

/*
 * Does PT's CR3 filter pass @t?  The stepper checks it before it arms a
 * task, but steps every task while BTS (which has no CR3 filter) is fed
 * too: then PT encodes only the tasks its filter passes.  As the
 * stepper: current's real CR3, else the page-table base of @t's mm.
 */
static bool pt_exact_pt_wants(const struct pt_model_state *s,
			      struct task_struct *t)
{
	u64 cr3;

	if (!(s->regs.ctl & PT_CTL_CR3FILTER))
		return true;
	if (t == current)
		return !((pt_model_ctx_cr3(true) ^ s->regs.cr3_match) &
			 ~GENMASK_ULL(4, 0));
	if (!t->mm)
		return false;
	cr3 = __pa(t->mm->pgd);
	if (boot_cpu_has(X86_FEATURE_PTI))
		cr3 |= BIT_ULL(12);
	return !((cr3 ^ s->regs.cr3_match) & GENMASK_ULL(51, 12));
}

/*
 * The model's core clock: the CPU runs at its nominal ratio, the CBR it
 * reports, so one core cycle is one TSC tick.  Integer, so that a
 * decoder that calibrates CYC against MTC (libipt: the cycles between
 * two MTCs against their crystal-clock distance) gets the TSC back
 * exactly; with nom_freq given it must be the CBR.
 */
static u64 pt_exact_cycles(u64 from, u64 to)
{
	return to > from ? to - from : 0;
}

void pt_model_exact_on_enable(struct pt_model_state *s)
{
	u64 ctl = s->regs.ctl;
	u32 thresh = (ctl & PT_CTL_CYCTHRESH_MASK) >> PT_CTL_CYCTHRESH_SHIFT;
	struct pt_exact_cfg cfg = {
		.branch_en = ctl & PT_CTL_BRANCHEN,
		.disretc = ctl & PT_CTL_DISRETC,
		.cyc = ctl & PT_CTL_CYCEN,
		/* CycThresh n: at least 2^(n-1) cycles, 0: none (36.3.6.3). */
		.cyc_thresh = thresh ? 1U << (thresh - 1) : 0,
	};

	/* Exact mode covers user code only: with OS=1 the tick samples. */
	s->x.on = READ_ONCE(pt_model_exact) && (ctl & PT_CTL_USER) &&
		  !(ctl & PT_CTL_OS);
	/*
	 * x.pending stays: where the task stepped here enters user code
	 * next, which a TraceEn 0 -> 1 does not move.  The resume that
	 * arms a task sets it; a PMI's restart in NMI arms nobody (it may
	 * interrupt a switch right after the resume of the task switched
	 * in, with current still the one switched out), and with 0 here
	 * the next step sent TIP.PGE at IP 0 (exact_stream: a decode error
	 * at the stretch's first instructions).
	 */
	s->x.mtc_valid = false;
	s->x.cyc_tsc = rdtsc();
	pt_exact_enc_init(&s->x.enc, &cfg);
}

u32 pt_model_exact_on_disable(struct pt_model_state *s, struct pt_pkt_buf *b)
{
	struct pt_exact_enc *e = &s->x.enc;

	/* The FUP + TIP.PGD of a task still in user code: a CYC before. */
	e->cyc = (s->regs.ctl & PT_CTL_CYCEN) ?
		 pt_exact_cycles(s->x.cyc_tsc, rdtsc()) : 0;
	if (e->in)
		return pt_exact_enc_leave_async(e, b, s->x.pending);
	return pt_exact_enc_flush(e, b);
}

struct pt_exact_arg {
	enum pt_exact_ev ev;
	u64 ip;
	const struct pt_insn *in;
	bool fault;		/* KENTRY: a fault, in user code for sure */
	/* results */
	u64 insn_ip;		/* the instruction encoded, if any */
	u64 left_ip;		/* where the task left user code */
	bool encoded;
	bool resumed, left;
	unsigned int psbs;
	bool psb_after;		/* the last PSB+ follows the event's packets */
	u32 packets;
	struct pt_model_out_result out;
	enum pt_model_operr operr;
};

/*
 * A CYC on its own (36.4.2.14: "CYC packets can be sent stand-alone")
 * with the cycles up to @tsc, so that the packet after it (an MTC at its
 * boundary, a PSB+) does not let the next CYC count cycles from before.
 */
static void pt_exact_cyc_to(struct pt_model_state *s, struct pt_pkt_buf *b,
			    u64 tsc)
{
	u64 n;

	if (!(s->regs.ctl & PT_CTL_CYCEN))
		return;
	n = pt_exact_cycles(s->x.cyc_tsc, tsc);
	if (n && pt_pkt_cyc(b, n))
		s->x.cyc_tsc = tsc;
}

/* Most MTCs one event sends before it resynchronizes with PSB+ instead. */
#define PT_EXACT_MTC_MAX	64

/*
 * MTC (36.4.2.13): silicon sends one each time the crystal-clock bit
 * MTCFreq selects toggles, while TriggerEn, also when the task is in the
 * kernel.  The model sees the clock only at the task's events, where it
 * places the MTCs of the edges crossed since the last event: after the
 * instructions that retired before them, before this event's, which
 * retired after them (within a step: the model's granularity).  So the
 * pending TNT bits (of instructions that retired before the edges) go
 * out first as a partial TNT, as silicon generates one "as a result of
 * other packets being generated" (36.4.2.1); without that a decoder
 * would time those branches after the edges.  Not one per edge: a step
 * under TCG spans hundreds of MTC periods; the current period's, after
 * one every 255 periods in between (a decoder corrects one wrap of the
 * 8-bit payload, no more), each after a stand-alone CYC up to its
 * boundary.  A gap of more than PT_EXACT_MTC_MAX such MTCs (a long sleep)
 * gets PSB+ with its TSC instead, when TSCEn.
 */
static void pt_exact_mtc(struct pt_model_state *s, struct pt_pkt_buf *b,
			 u64 now)
{
	struct pt_model_exact *x = &s->x;
	u64 ctl = s->regs.ctl;
	u32 freq = (ctl & PT_CTL_MTCFREQ_MASK) >> PT_CTL_MTCFREQ_SHIFT;
	u64 period = pt_model_ctc(now) >> freq;
	u64 p;

	if (!(ctl & PT_CTL_MTCEN) || !x->mtc_valid || period <= x->mtc_period)
		return;
	if (period - x->mtc_period > 255ULL * PT_EXACT_MTC_MAX) {
		if (ctl & PT_CTL_TSCEN) {
			s->need_psb = true;
			return;
		}
		x->mtc_period = period - 1;
	}
	pt_exact_enc_flush(&x->enc, b);
	while (x->mtc_period < period) {
		p = min(period, x->mtc_period + 255);
		pt_exact_cyc_to(s, b, pt_model_ctc_tsc(p << freq));
		pt_pkt_mtc(b, (u8)p);
		x->mtc_period = p;
	}
}

/* After TSC/TMA at @tsc: MTCs count from its period (libipt's TMA-as-MTC). */
static void pt_exact_mtc_base(struct pt_model_state *s, u64 tsc)
{
	u32 freq = (s->regs.ctl & PT_CTL_MTCFREQ_MASK) >> PT_CTL_MTCFREQ_SHIFT;

	s->x.mtc_period = pt_model_ctc(tsc) >> freq;
	s->x.mtc_valid = true;
}

static void pt_exact_psb(struct pt_model_state *s, struct pt_pkt_buf *b,
			 u32 *mark, unsigned int *psbs, u64 now)
{
	struct pt_ctx c = { .ip = s->x.pending, .user = true, .csl = true };

	/* Pending TNT bits, then a CYC: the first CYC after PSB+ counts from it. */
	pt_exact_enc_flush(&s->x.enc, b);
	pt_exact_cyc_to(s, b, now);
	*mark = b->len;
	pt_exact_enc_psb_begin(&s->x.enc, b);
	pt_model_timing_at(b, &s->regs, &c, now);
	pt_exact_enc_psb_end(&s->x.enc, b, s->x.pending);
	pt_exact_mtc_base(s, now);
	s->psb_cnt = 0;
	s->need_psb = false;
	s->need_timing = false;
	(*psbs)++;
}

/*
 * The address ranges at the IP of one instruction (36.2.4.3): FilterEn
 * is 1 when no ADDRn_CFG is 1 or the IP lies in one of those ranges;
 * stop when it lies in an ADDRn_CFG=2 range.  Silicon applies them to
 * the IP of each instruction, so does the stepper.
 */
static bool pt_exact_range(const struct pt_model_regs *r, u64 ip, bool *stop)
{
	unsigned int n, nr = pt_mp_nr_ranges(pt_model_prof);
	bool any = false, in = false;

	*stop = false;
	for (n = 0; n < nr; n++) {
		u64 cfg = (r->ctl & PT_CTL_ADDR_CFG_MASK(n)) >>
			  PT_CTL_ADDR_CFG_SHIFT(n);
		bool hit = ip >= r->addr[n][0] && ip <= r->addr[n][1];

		if (cfg == PT_ADDR_CFG_FILTER) {
			any = true;
			in |= hit;
		} else if (cfg == PT_ADDR_CFG_STOP && hit) {
			*stop = true;
		}
	}
	return !any || in;
}

static bool pt_exact_filter_en(const struct pt_model_regs *r, u64 ip)
{
	bool stop;

	return pt_exact_range(r, ip, &stop);
}

/*
 * RTIT_STATUS.ContextEn and FilterEn (36.2.5.3, 36.2.5.5) where the CPU
 * is after the event: in the task's user code at its next instruction
 * (ContextEn, the CR3 filter having armed the task; FilterEn as the
 * ranges say for that IP), or in the kernel (a syscall, switched out:
 * ContextEn 0 with OS=0; FilterEn 1 only without filter ranges, which
 * hold user addresses).  A reader of the MSR, the driver's GET_STATUS by
 * an IPI that interrupts the task, sees the IP it interrupted, as the
 * sampled generator reports its sampled IP.
 */
static void pt_exact_status(struct pt_model_state *s, bool user)
{
	struct pt_model_regs *r = &s->regs;
	bool filter_en = pt_exact_filter_en(r, user ? s->x.pending : ~0ULL);

	r->status &= ~(PT_STATUS_CONTEXTEN | PT_STATUS_FILTEREN);
	r->status |= (user ? PT_STATUS_CONTEXTEN : 0) |
		     (filter_en ? PT_STATUS_FILTEREN : 0);
}

/*
 * Lazily: TIP.PGE where user code (re)starts or comes back into a filter
 * range, before its first traced instruction.
 */
static void pt_exact_enter(struct pt_model_state *s, struct pt_pkt_buf *b)
{
	if (!s->x.enc.in && pt_exact_filter_en(&s->regs, s->x.pending))
		pt_exact_enc_enter(&s->x.enc, b, s->x.pending);
}

/*
 * The pending instruction retired and the next one is at @next: its
 * packets under the address ranges.  Returns true when @next lies in a
 * TraceStop range: the trace stopped (TIP.PGD if PacketEn was 1, then
 * TraceStop, fup-tip_pgd-stop.ptt and tip_pgd-stop.ptt).
 */
static bool pt_exact_retire(struct pt_model_state *s, struct pt_pkt_buf *b,
			    const struct pt_insn *in, u64 next)
{
	struct pt_model_exact *x = &s->x;
	bool stop, next_en = pt_exact_range(&s->regs, next, &stop);

	if (stop && !pt_exact_leaves_user(in, next)) {
		if (x->enc.in) {
			pt_exact_enc_insn_stop(&x->enc, b, x->pending, in,
					       next);
		} else {
			pt_exact_enc_flush(&x->enc, b);
			pt_pkt_stop(b);
		}
		return true;
	}
	if (!x->enc.in)
		return false;	/* outside the filter ranges: not traced */
	if (!next_en && !pt_exact_leaves_user(in, next))
		pt_exact_enc_insn_filtered(&x->enc, b, x->pending, in, next);
	else
		pt_exact_enc_insn(&x->enc, b, x->pending, in, next);
	return false;
}

static int pt_exact_fn(struct pt_model_cpu *st, struct pt_model_state *s,
		       void *arg)
{
	struct pt_exact_arg *a = arg;
	struct pt_model_regs *r = &s->regs;
	struct pt_model_exact *x = &s->x;
	struct pt_pkt_buf b;
	bool discard = false, stop = false;
	u32 mark = 0;
	u64 now;

	a->encoded = false;
	a->resumed = false;
	a->left = false;
	a->psbs = 0;
	a->psb_after = false;
	a->packets = 0;
	a->operr = PT_OPERR_NONE;
	memset(&a->out, 0, sizeof(a->out));
	if (!x->on || !(r->ctl & PT_CTL_TRACEEN))
		return -ENODEV;
	pt_model_held_store(s);
	if (!(r->status & PT_STATUS_TRIGGEREN)) {
		/*
		 * TraceStop: no packet more, but the task still runs and is
		 * stepped: the truth goes on, so a test sees where the trace
		 * stopped in what ran.  A full STOP region or error: lost.
		 */
		if (s->trace_stopped) {
			a->insn_ip = x->pending;
			a->encoded = a->ev == PT_EXACT_STEP ||
				     a->ev == PT_EXACT_SYSCALL;
			if (a->ev != PT_EXACT_OUT && a->ev != PT_EXACT_KENTRY)
				x->pending = a->ip;
			return 0;
		}
		if (!(r->status & (PT_STATUS_STOPPED | PT_STATUS_ERROR)))
			return 0;
		discard = true;
	}
	/* Not in traced user code: an entry has nothing to end. */
	if (a->ev == PT_EXACT_KENTRY && !x->enc.in && !a->fault)
		return 0;
	/* An NMI's event (an enable in the PMI) must not use the stage. */
	if (st->depth > 1)
		pt_pkt_init(&b, st->nmi_stage, PT_MODEL_NMI_STAGE);
	else
		pt_pkt_init(&b, st->stage, PT_MODEL_STAGE_MAX);
	b.last_ip = s->last_ip;
	now = rdtsc();
	pt_exact_mtc(s, &b, now);
	/*
	 * An enable with PacketByteCnt > 0 sends TSC, TMA and CBR (Table
	 * 36-50 case 2d), also when the PSB period has run out meanwhile:
	 * PSB+ comes after them, not instead of them.  A decoder tells the
	 * enable by that CBR outside PSB+; given a PSB+ alone it could not
	 * tell it from a periodic one while the task is in the kernel
	 * (follow_balance).  Silicon stamps them with the WRMSR's time; the
	 * model writes them at the task's first event after the enable and
	 * stamps them with that event's TSC (now), so that MTC and CYC,
	 * which it also places at events, never count from before them.
	 */
	if (s->need_timing && !s->need_psb) {
		struct pt_ctx c = { .ip = x->pending, .user = true };

		/* Pending TNT bits first, as before PSB+ (none after init). */
		pt_exact_enc_flush(&x->enc, &b);
		pt_exact_cyc_to(s, &b, now);
		pt_model_timing_at(&b, r, &c, now);
		pt_exact_mtc_base(s, now);
		s->need_timing = false;
	}
	if (s->need_psb || s->psb_cnt >= pt_model_psb_threshold(r))
		pt_exact_psb(s, &b, &mark, &a->psbs, now);
	/* The encoder puts a CYC before the event's first eligible packet. */
	x->enc.cyc = (r->ctl & PT_CTL_CYCEN) ?
		     pt_exact_cycles(x->cyc_tsc, now) : 0;
	x->enc.cyc_sent = false;

	switch (a->ev) {
	case PT_EXACT_STEP:
	case PT_EXACT_SYSCALL:
		pt_exact_enter(s, &b);
		a->insn_ip = x->pending;
		stop = pt_exact_retire(s, &b, a->in, a->ip);
		a->encoded = true;
		x->pending = a->ip;
		break;
	case PT_EXACT_RESUME:
		/* Somewhere else than where it left: it left asynchronously. */
		if (x->enc.in && x->pending != a->ip) {
			pt_exact_enc_leave_async(&x->enc, &b, x->pending);
			a->left = true;
			a->left_ip = x->pending;
		}
		x->pending = a->ip;
		a->resumed = true;
		break;
	case PT_EXACT_KENTRY:
		/*
		 * Taken before the pending instruction ran (an interrupt, a
		 * fault that it restarts after): FUP(it) + TIP.PGD, the
		 * kernel being filtered (SDM 36.4.2.6, libipt
		 * fup-tip_pgd.ptt); the return to it is the TIP.PGE of its
		 * step (pt_exact_enter()).  A switch-out or TraceEn 1->0
		 * before that return finds PacketEn 0 and sends nothing more.
		 * A fault comes from user code for sure, and so does an
		 * interrupt whose frame says so (exact_step.c,
		 * pt_exact_hardirq()): PacketEn 0 (an earlier entry's PGD,
		 * a resume not yet stepped) means the task returned to this
		 * IP since, with its TIP.PGE (if the ranges pass it), which
		 * silicon sends before the entry's FUP + TIP.PGD.
		 */
		if (a->fault)
			pt_exact_enter(s, &b);
		fallthrough;
	case PT_EXACT_OUT:
		if (x->enc.in) {
			pt_exact_enc_leave_async(&x->enc, &b, x->pending);
			a->left = true;
			a->left_ip = x->pending;
		}
		break;
	}
	if (x->enc.cyc_sent)
		x->cyc_tsc = now;
	/*
	 * PacketByteCnt reached the PSB period with this event's packets:
	 * PSB+ right after them, stamped with this event's TSC, as silicon
	 * sends it once the count crosses.  Left to the next event, a step
	 * later, its TSC would be later than the instructions before it
	 * retired, and libipt, which gives a branch the time of the event
	 * it reads ahead to (PSB+ is one), would time them late.
	 */
	if (!stop && s->psb_cnt + b.len - mark >= pt_model_psb_threshold(r)) {
		pt_exact_psb(s, &b, &mark, &a->psbs, now);
		a->psb_after = true;
	}
	/*
	 * Not at an entry: its handler (the IPI of an MSR read) reports the
	 * interrupted user code, as the status has always said (model.rst).
	 */
	if (!discard && a->ev != PT_EXACT_KENTRY)
		pt_exact_status(s, a->ev == PT_EXACT_STEP ||
				a->ev == PT_EXACT_RESUME);
	s->packet_en = x->enc.in;
	s->last_ip = b.last_ip;
	a->packets = b.packets;
	if (discard) {
		s->trace_stopped |= stop;
		s->psb_cnt += b.len - mark;
		a->out.lost = b.len;
		return 0;
	}
	if (!b.len)
		return 0;
	pt_model_out_place(pt_model_prof, r, b.len, &a->out, &a->operr,
			   pt_model_pending_now(st));
	pt_model_pending_now(st)->data = b.buf;
	pt_model_account_bytecnt(s, b.len - mark);
	if (a->out.pmi)
		r->global_status |= PT_GLOBAL_STATUS_TOPA_PMI;
	if (stop) {
		/* As the generator: after the packets that announce it. */
		r->status |= PT_STATUS_STOPPED;
		r->status &= ~(PT_STATUS_TRIGGEREN | PT_STATUS_FILTEREN);
		s->trace_stopped = true;
	}
	return 0;
}

/* @vec, @fault: the vector of a KENTRY, for its truth line; a fault. */
static bool pt_exact_event(enum pt_exact_ev ev, u64 ip,
			   const struct pt_insn *in, struct task_struct *t,
			   u64 *insn_ip, int vec, bool fault)
{
	struct pt_model_cpu *st = this_cpu_ptr(pt_model_cpus);
	struct pt_exact_arg a = { .ev = ev, .ip = ip, .in = in,
				  .fault = fault };
	u64 from = st->xpending;
	bool bts = false;

	/* BTS first: its record is due whatever PT's filter says. */
	if (ev == PT_EXACT_STEP || ev == PT_EXACT_SYSCALL)
		bts = pt_model_bts_exact_insn(st, ev, from, in, ip);
	if (ev != PT_EXACT_OUT && ev != PT_EXACT_KENTRY)
		st->xpending = ip;
	if (bts && insn_ip)
		*insn_ip = from;
	if (ev != PT_EXACT_OUT && pt_model_bts_exact(st) &&
	    !pt_exact_pt_wants(READ_ONCE(st->active), t))
		return bts;
	if (pt_model_update(st, pt_exact_fn, &a, true))
		return bts;
	atomic64_add(a.out.written, &st->stats.bytes_written);
	atomic64_add(a.out.lost, &st->stats.lost_bytes);
	atomic64_add(a.packets, &st->stats.packets);
	atomic64_add(a.psbs, &st->stats.psbs);
	if (a.operr)
		pt_model_count_operr(st, a.operr);
	/*
	 * The PMI after the truth's line of the instruction whose packets
	 * filled the region (pt_exact_truth_insn()): its NMI may stop the
	 * trace and write an out line of the next one, which the ring
	 * would otherwise hold before this instruction's.
	 */
	if (a.out.pmi && insn_ip && (a.encoded || bts))
		st->xpmi_due = true;
	else if (a.out.pmi)
		pt_model_pmi_send(st);
	/* The truth's psb line where the PSB+ lies among the instructions. */
	if (a.psbs > a.psb_after)
		pt_exact_truth(PT_TRUTH_PSB, 0, t);
	if (a.psb_after && (a.encoded || bts) && insn_ip)
		st->xpsb_after = true;
	else if (a.psb_after)
		pt_exact_truth(PT_TRUTH_PSB, 0, t);
	if (a.left && ev == PT_EXACT_KENTRY)
		pt_exact_truth_kout(a.left_ip, t, vec);
	else if (a.left)
		pt_exact_truth(PT_TRUTH_OUT, a.left_ip, t);
	/*
	 * A resume in NMI is a PMI's restart (pt_model_exact_enabled()):
	 * the task returns to user code later, where a probe or its step
	 * says so, not here.
	 */
	if (a.resumed && !in_nmi())
		pt_exact_truth(PT_TRUTH_RESUME, ip, t);
	if (a.encoded && insn_ip)
		*insn_ip = a.insn_ip;
	return a.encoded || bts;
}

bool pt_model_exact_event(enum pt_exact_ev ev, u64 ip,
			  const struct pt_insn *in, struct task_struct *t,
			  u64 *insn_ip)
{
	return pt_exact_event(ev, ip, in, t, insn_ip, 0, false);
}

void pt_model_exact_kentry(int vec, bool fault)
{
	struct pt_model_cpu *st = this_cpu_ptr(pt_model_cpus);

	pt_exact_event(PT_EXACT_KENTRY, st->xpending, NULL, current, NULL,
		       vec, fault);
}

void pt_exact_truth_insn(u64 ip, struct task_struct *t)
{
	struct pt_model_cpu *st = this_cpu_ptr(pt_model_cpus);

	pt_exact_truth(PT_TRUTH_INSN, ip, t);
	if (st->xpsb_after) {
		st->xpsb_after = false;
		pt_exact_truth(PT_TRUTH_PSB, 0, t);
	}
	if (st->xpmi_due) {
		st->xpmi_due = false;
		pt_model_pmi_send(st);
	}
}
