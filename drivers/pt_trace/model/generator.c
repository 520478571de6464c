// SPDX-License-Identifier: GPL-2.0
/*
 * The trace generator: while TraceEn=1 a per-CPU hrtimer samples the
 * context it interrupted (its real IP, CPL and CR3) and produces the
 * packets the hardware would for that context (SDM Vol. 3C 36.2.5 for
 * filtering, 36.4.2 for packets, 36.7 for sequences): PSB+ every PSBFreq
 * bytes, TIP.PGE/TIP.PGD on PacketEn transitions, TNT/TIP/FUP, PIP on CR3
 * change, MTC/CYC/TSC when enabled, PTW (+FUP), PWRE/PWRX, MODE.TSX,
 * OVF.  It is a behavioural model: the branch outcomes and indirect
 * targets between two samples are synthetic (near the sampled IP, and
 * inside the filter range while FilterEn), but every stream is well
 * formed and the sampled IPs are true.
 *
 * A tick first builds its packets in the per-CPU stage, then places them
 * (output pointers advance in its private copy of the state), publishes
 * the state, and only then stores the bytes: see pt_model_update().  An
 * NMI that published first makes the tick start over on the new state
 * with the same sampled context, so no tick is ever dropped.
 */
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/pt_trace.h>
#include <linux/sched.h>
#include <asm/irq_regs.h>
#include <asm/processor.h>
#include <asm/ptrace.h>
#include <asm/special_insns.h>
#include <asm/tlbflush.h>
#include <asm/msr.h>

#include "../regs.h"
#include "model.h"

/* Without configurable PSB the model sends PSB+ every 4 KiB. */
#define PT_MODEL_PSB_DEFAULT	4096

/*
 * The CR3 the interrupted context ran with.  Under PTI a user context
 * runs on the user copy of the page tables: kernel CR3 | bit 12, and with
 * PCID the user ASID | bit 11 (arch/x86/entry/calling.h).
 */
u64 pt_model_ctx_cr3(bool user)
{
	u64 cr3 = __read_cr3();

	if (user && boot_cpu_has(X86_FEATURE_PTI)) {
		cr3 |= BIT_ULL(12);
		if (boot_cpu_has(X86_FEATURE_PCID))
			cr3 |= BIT_ULL(11);
	}
	return cr3;
}

static void pt_sample(struct pt_ctx *c)
{
	struct pt_regs *regs = get_irq_regs();

	c->guest = false;
	if (regs) {
		c->ip = instruction_pointer(regs);
		c->user = user_mode(regs);
		c->csl = c->user ? user_64bit_mode(regs) : true;
	} else {
		c->ip = _THIS_IP_;
		c->user = false;
		c->csl = true;
	}
	c->cr3 = pt_model_ctx_cr3(c->user);
}

static u64 pt_lfsr(struct pt_model_state *s)
{
	return pt_model_xorshift(&s->lfsr, 0x9e3779b97f4a7c15ULL);
}

/* IP filtering, TraceStop and CPL/CR3 filtering (36.2.4, 36.2.5). */
struct pt_filter {
	bool context_en;
	bool filter_en;
	bool stop;
};

static void pt_filter(const struct pt_model_regs *r, const struct pt_ctx *c,
		      struct pt_filter *f)
{
	unsigned int n, nr = pt_mp_nr_ranges(pt_model_prof);
	bool any_filter = false, in_filter = false;

	f->context_en = c->user ? (r->ctl & PT_CTL_USER) : (r->ctl & PT_CTL_OS);
	if ((r->ctl & PT_CTL_CR3FILTER) &&
	    ((c->cr3 ^ r->cr3_match) & ~GENMASK_ULL(4, 0)))
		f->context_en = false;
	f->stop = false;
	for (n = 0; n < nr; n++) {
		u64 cfg = (r->ctl & PT_CTL_ADDR_CFG_MASK(n)) >>
			  PT_CTL_ADDR_CFG_SHIFT(n);
		bool in = c->ip >= r->addr[n][0] && c->ip <= r->addr[n][1];

		if (cfg == PT_ADDR_CFG_FILTER) {
			any_filter = true;
			in_filter |= in;
		} else if (cfg == PT_ADDR_CFG_STOP && in) {
			f->stop = true;
		}
	}
	f->filter_en = !any_filter || in_filter;
}

u32 pt_model_psb_threshold(const struct pt_model_regs *r)
{
	if (!pt_mp_ebx(pt_model_prof, PT_MP_PSB_CYC))
		return PT_MODEL_PSB_DEFAULT;
	/* PSBFreq n: a PSB every 2^(n+11) bytes (Table 36-6). */
	return 2048U << ((r->ctl & PT_CTL_PSBFREQ_MASK) >> PT_CTL_PSBFREQ_SHIFT);
}

/* Core crystal clock count from the TSC via leaf 0x15 (TSC = CTC*b/a). */
u64 pt_model_ctc(u64 tsc)
{
	const struct pt_cpuid_regs *l = &pt_model_prof->leaf15;

	if (!l->eax || !l->ebx)
		return tsc >> 5;
	return mul_u64_u32_div(tsc, l->eax, l->ebx);
}

/* The first TSC at which the crystal clock count reaches @ctc. */
u64 pt_model_ctc_tsc(u64 ctc)
{
	const struct pt_cpuid_regs *l = &pt_model_prof->leaf15;
	u64 tsc;

	if (!l->eax || !l->ebx)
		return ctc << 5;
	tsc = mul_u64_u32_div(ctc, l->ebx, l->eax);
	while (pt_model_ctc(tsc) < ctc)
		tsc++;
	return tsc;
}

/*
 * TMA at @tsc (36.4.2.12): the crystal clock's low 16 bits and the fast
 * counter, the TSC ticks since that crystal clock edge, so a decoder
 * places the edge, and each later MTC's, exactly (libipt: base -= FC).
 */
static void pt_model_tma(struct pt_pkt_buf *b, u64 tsc)
{
	u64 ctc = pt_model_ctc(tsc);

	pt_pkt_tma(b, ctc & 0xffff,
		   min_t(u64, tsc - pt_model_ctc_tsc(ctc), 0x1ff));
}

void pt_model_timing(struct pt_pkt_buf *b, const struct pt_model_regs *r,
		     const struct pt_ctx *c)
{
	pt_model_timing_at(b, r, c, rdtsc());
}

/* TSC, TMA and CBR as the PSB+ or an enable sends them, at @tsc. */
void pt_model_timing_at(struct pt_pkt_buf *b, const struct pt_model_regs *r,
			const struct pt_ctx *c, u64 tsc)
{
	if (r->ctl & PT_CTL_TSCEN) {
		/* A guest's TSC is scaled and offset, the crystal clock not. */
		pt_pkt_tsc(b, pt_model_vmx_tsc(c, tsc));
		if (r->ctl & PT_CTL_MTCEN)
			pt_model_tma(b, tsc);
	}
	pt_pkt_cbr(b, pt_model_prof->cbr);
}

/*
 * PSB+ (36.4.2.x, Table 36-50): PIP only when OS=1 and ContextEn=1 for
 * the context at hand; MODE.Exec, MODE.TSX and FUP only when PacketEn.
 */
static void pt_psb_plus(struct pt_model_state *s, struct pt_pkt_buf *b,
			const struct pt_ctx *c, bool ctx_en, bool pe,
			unsigned int *psbs)
{
	const struct pt_model_regs *r = &s->regs;

	pt_pkt_psb(b);
	pt_model_timing(b, r, c);
	/* VMCS in PSB+ "also in VMX operation" (Table 36-34). */
	if (pt_model_vmcs || r->vmxe)
		pt_pkt_vmcs(b, pt_model_vmx_psb_vmcs(s));
	if ((r->ctl & PT_CTL_OS) && ctx_en) {
		pt_pkt_pip(b, c->cr3, c->guest || pt_model_vmx_guest);
		s->last_cr3 = c->cr3;
	}
	if (pe && (r->ctl & PT_CTL_BRANCHEN)) {
		pt_pkt_mode_exec(b, c->csl, !c->csl);
		if (pt_model_tsx)
			pt_pkt_mode_tsx(b, s->in_tx, false);
		pt_pkt_ip(b, PT_PKT_FUP, c->ip, false);
	}
	pt_pkt_psbend(b);
	s->psb_cnt = 0;
	(*psbs)++;
}

/*
 * A synthetic indirect-branch target near @ip.  While FilterEn=1 a CPU
 * reports only IPs inside a FILTER range, so the target is folded into
 * the range that holds @ip; it never lies in a TraceStop range, whose
 * entry would have stopped the trace.
 */
static u64 pt_target(const struct pt_model_regs *r, u64 ip, u64 t)
{
	unsigned int n, nr = pt_mp_nr_ranges(pt_model_prof);
	u64 a = 0, size = 0;
	bool filter = false;

	for (n = 0; n < nr; n++) {
		u64 cfg = (r->ctl & PT_CTL_ADDR_CFG_MASK(n)) >>
			  PT_CTL_ADDR_CFG_SHIFT(n);

		if (cfg != PT_ADDR_CFG_FILTER)
			continue;
		filter = true;
		if (ip >= r->addr[n][0] && ip <= r->addr[n][1] && !size) {
			a = r->addr[n][0];
			size = r->addr[n][1] - a + 1;	/* 0: all 2^64 */
		}
	}
	if (filter && size && (t < a || t - a >= size))
		t = a + (t - a) % size;
	for (n = 0; n < nr; n++) {
		u64 cfg = (r->ctl & PT_CTL_ADDR_CFG_MASK(n)) >>
			  PT_CTL_ADDR_CFG_SHIFT(n);

		if (cfg == PT_ADDR_CFG_STOP && t >= r->addr[n][0] &&
		    t <= r->addr[n][1])
			return ip;
	}
	return t;
}

/*
 * A model guest's branches (model_vmx): its code is vmx.c's blocks, and
 * the step walks them: the six JZ of the block at @c->ip, its JMP *%rax
 * to another block of the VM's 64 KiB, that block's six JZ and its JMP
 * back to @c->ip, where the next step, a PSB+'s FUP or the VM exit's FUP
 * finds the guest.
 */
static void pt_guest_branches(const struct pt_model_regs *r,
			      struct pt_pkt_buf *b, const struct pt_ctx *c,
			      u64 rnd)
{
	u64 t = pt_target(r, c->ip, c->ip ^ ((rnd >> 16) & 0xff0));

	if (t & (PT_MODEL_VMX_BLOCK - 1))
		t = c->ip;	/* a filter range that starts inside a block */
	pt_pkt_tnt8(b, rnd >> 10, PT_MODEL_VMX_BLOCK_JCC);
	pt_pkt_ip(b, PT_PKT_TIP, t, false);
	pt_pkt_tnt8(b, rnd >> 24, PT_MODEL_VMX_BLOCK_JCC);
	pt_pkt_ip(b, PT_PKT_TIP, c->ip, false);
}

/* One step of "execution" while PacketEn=1. */
static void pt_step(struct pt_model_state *s, struct pt_pkt_buf *b,
		    const struct pt_ctx *c, bool pe)
{
	const struct pt_model_regs *r = &s->regs;
	u64 rnd = pt_lfsr(s);
	u64 ctl = r->ctl;

	s->steps++;
	if (ctl & PT_CTL_MTCEN) {
		u32 freq = (ctl & PT_CTL_MTCFREQ_MASK) >> PT_CTL_MTCFREQ_SHIFT;
		u8 m = pt_model_ctc(rdtsc()) >> freq;

		if (m != s->last_mtc) {
			pt_pkt_mtc(b, m);
			s->last_mtc = m;
		}
	}
	if (!pe)
		return;
	if ((ctl & PT_CTL_CYCEN) && (ctl & PT_CTL_BRANCHEN))
		pt_pkt_cyc(b, 1 + (rnd & 0x3ff));
	if (c->guest) {
		if (ctl & PT_CTL_BRANCHEN)
			pt_guest_branches(r, b, c, rnd);
		return;
	}
	if (ctl & PT_CTL_BRANCHEN) {
		pt_pkt_tnt8(b, rnd >> 10, 6);
		/* An indirect branch to near the sampled IP, then to it. */
		pt_pkt_ip(b, PT_PKT_TIP,
			  pt_target(r, c->ip, c->ip ^ ((rnd >> 16) & 0xff0)),
			  false);
		pt_pkt_tnt8(b, rnd >> 24, 1 + ((rnd >> 30) % 6));
		pt_pkt_ip(b, PT_PKT_TIP, c->ip, false);
		if (pt_model_tsx && !(s->steps & 15)) {
			s->in_tx = !s->in_tx;
			pt_pkt_mode_tsx(b, s->in_tx, false);
			pt_pkt_ip(b, PT_PKT_FUP, c->ip, false);
		}
	}
	if (ctl & PT_CTL_PTWEN) {
		/* The number is part of the state: a redone tick reuses it. */
		u64 v = pt_model_seq ? ++s->seq : c->ip;

		pt_pkt_ptw(b, v, true, ctl & PT_CTL_FUPONPTW);
		if (ctl & PT_CTL_FUPONPTW)
			pt_pkt_ip(b, PT_PKT_FUP, c->ip, false);
	}
	if ((ctl & PT_CTL_PWREVTEN) && !(s->steps & 7)) {
		pt_pkt_pwre(b, 1, 0, false);	/* C1 */
		pt_pkt_pwrx(b, 1, 1, 1);	/* woke by interrupt */
	}
}

struct pt_tick_res {
	struct pt_model_out_result out;
	enum pt_model_operr operr;
	u32 generated;
	u32 packets;
	u32 burst;		/* bytes that were copies of the block */
	unsigned int psbs;
	bool stop_timer;
	bool ovf;
};

struct pt_tick_arg {
	struct pt_ctx c;	/* sampled once; a redone tick reuses it */
	bool burst;		/* model_burst, read once with the sample */
	u32 budget;		/* bytes to generate (model_tick_bytes/rate) */
	struct pt_tick_res res;
};

/* Where the last PSB+ of a tick's packets starts and ends. */
struct pt_psb_mark {
	u32 start;		/* b->len before it (0: none this tick) */
	u32 end;		/* b->len after it (not kept by copies) */
	u32 packets;		/* b->packets before it */
};

static void pt_psb_mark(struct pt_model_state *s, struct pt_pkt_buf *b,
			const struct pt_ctx *c, bool ctx_en, bool pe,
			struct pt_psb_mark *m, unsigned int *psbs)
{
	m->start = b->len;
	m->packets = b->packets;
	pt_psb_plus(s, b, c, ctx_en, pe, psbs);
	m->end = b->len;
}

/*
 * model_burst, a benchmark aid and not a behaviour of silicon (see
 * Documentation/model.rst): encode one block of packets that starts with
 * PSB+ and is one PSB period long, then fill the rest of the tick's
 * budget with whole copies of it, so the output path sees trace at the
 * rate of a memory copy instead of that of the encoder.  Each copy starts
 * with PSB, which resets IP compression and the decoder's state, so it
 * decodes on its own, and is one PSB period long, so PSBs keep their
 * cadence.  Only whole copies are made: after the last one the encoder's
 * state (last IP, MODE.TSX, MTC, PacketByteCnt) is the state at the
 * end of the block, which is where every copy ends too.  The copies go
 * through the same placement, output and loss accounting as any other
 * byte.  Returns false, leaving @b as it was, when not even one block fits
 * in the budget: the tick then generates normally.
 */
static bool pt_burst(struct pt_model_state *s, struct pt_pkt_buf *b,
		     const struct pt_ctx *c, bool ctx_en, u32 budget,
		     struct pt_psb_mark *m, struct pt_tick_res *res)
{
	u32 period = pt_model_psb_threshold(&s->regs);
	u32 start = b->len, packets = b->packets, len;

	/* A PSB+ that nothing followed yet can open the block. */
	if (m->end && m->end == b->len) {
		start = m->start;
		packets = m->packets;
	}
	if (start + period > budget)
		return false;
	if (start == b->len)
		pt_psb_mark(s, b, c, ctx_en, true, m, &res->psbs);
	while (b->len - start < period) {
		u32 before = b->len;

		pt_step(s, b, c, true);
		if (b->len == before)
			return true;	/* too short to repeat: no copies */
	}
	len = b->len - start;
	packets = b->packets - packets;
	while (b->len + len <= budget) {
		memcpy(b->buf + b->len, b->buf + start, len);
		m->start = b->len;
		b->len += len;
		b->packets += packets;
		res->psbs++;
		res->burst += len;
	}
	return true;
}

/* Steps (and PSB+ every PSBFreq bytes of output) up to @budget bytes. */
static void pt_run(struct pt_model_state *s, struct pt_pkt_buf *b,
		   const struct pt_ctx *c, bool ctx_en, bool pe, u32 budget,
		   struct pt_psb_mark *m, struct pt_tick_res *res)
{
	while (b->len < budget) {
		u32 before = b->len;

		if (s->psb_cnt + (b->len - m->start) >=
		    pt_model_psb_threshold(&s->regs))
			pt_psb_mark(s, b, c, ctx_en, pe, m, &res->psbs);
		pt_step(s, b, c, pe);
		if (b->len == before)
			break;		/* nothing more to say (filtered) */
	}
}

/*
 * model_vmx (vmx.c): the rest of the tick is a VM visit: VMPTRLD, the VM
 * entry, the guest's steps, the VM exit back to the sampled host context.
 * A TraceStop range is the host's business: the guest never stops.  The
 * exit's packets need less than the stage's slack after the guest's.
 */
static void pt_vm_visit(unsigned int vmx, struct pt_model_state *s,
			struct pt_pkt_buf *b, const struct pt_ctx *host,
			bool h_ctx_en, bool h_pe, u32 budget,
			struct pt_psb_mark *m, struct pt_tick_res *res)
{
	struct pt_filter gf;
	struct pt_ctx g;
	bool g_pe;

	pt_model_vmx_enter(s, b, host, h_ctx_en, &g);
	pt_filter(&s->regs, &g, &gf);
	g_pe = gf.context_en && gf.filter_en;
	if (pt_model_vmx_entry(vmx, s, b, host, &g, gf.context_en, g_pe))
		pt_run(s, b, &g, gf.context_en, g_pe, budget, m, res);
	pt_model_vmx_exit(vmx, s, b, host, &g, h_ctx_en, h_pe);
}

void pt_model_account_bytecnt(struct pt_model_state *s, u32 n)
{
	struct pt_model_regs *r = &s->regs;
	u64 cnt;

	s->psb_cnt += n;
	if (!pt_mp_ebx(pt_model_prof, PT_MP_PSB_CYC))
		return;
	cnt = min_t(u64, s->psb_cnt, PT_STATUS_BYTECNT_MASK >> PT_STATUS_BYTECNT_SHIFT);
	r->status = (r->status & ~PT_STATUS_BYTECNT_MASK) |
		    cnt << PT_STATUS_BYTECNT_SHIFT;
}

/*
 * PIP on a CR3 change (Table 36-50, cases 5a/5f/10a/10f): a MOV CR3 (or
 * task switch, VM entry/exit) sends PIP(NewCR3) only when OS=1 and
 * ContextEn is 1 after it, whatever FilterEn says; a CR3 the filter
 * rejects clears ContextEn and sends nothing.  The tick sees a change
 * when the sampled CR3 differs from the one the last tick sampled (a
 * switch happened in between, maybe a switch back, which the hardware
 * also announces) or from the last one announced.
 */
static void pt_pip_on_change(struct pt_model_state *s, struct pt_pkt_buf *b,
			     const struct pt_ctx *c, bool ctx_en, bool announced)
{
	bool changed = c->cr3 != s->last_cr3 ||
		       (c->cr3 != s->seen_cr3 && !announced);

	s->seen_cr3 = c->cr3;
	if (!changed || !ctx_en || !(s->regs.ctl & PT_CTL_OS))
		return;
	pt_pkt_pip(b, c->cr3, c->guest || pt_model_vmx_guest);
	s->last_cr3 = c->cr3;
}

/*
 * model_stale: keep this tick's placed bytes out of memory until the
 * next tick or TraceEn 1->0 (pt_model_held_store()).  The pointers are
 * already past them.  The data goes to the held buffer the state does
 * not use, so an NMI storing the state's held bytes meanwhile reads
 * the other one.
 */
static void pt_tick_hold(struct pt_model_cpu *st, struct pt_model_state *s)
{
	struct pt_model_pending *p = pt_model_pending_now(st);
	unsigned int i, end = 0;
	u8 idx = s->held_idx ^ 1;

	for (i = 0; i < p->nseg; i++)
		end = max(end, p->seg[i].from + p->seg[i].len);
	memcpy(st->held_data[idx], p->data, end);
	s->held = *p;
	s->held.state = NULL;
	s->held.data = st->held_data[idx];
	s->held_idx = idx;
	p->nseg = 0;
}

static int pt_tick_fn(struct pt_model_cpu *st, struct pt_model_state *s,
		      void *arg)
{
	struct pt_tick_arg *a = arg;
	struct pt_tick_res *res = &a->res;
	const struct pt_ctx *c = &a->c;
	struct pt_model_regs *r = &s->regs;
	u32 budget = a->budget;
	struct pt_pkt_buf b;
	struct pt_filter f;
	bool pe, branch = r->ctl & PT_CTL_BRANCHEN;
	bool discard = false, announced = false, stop = false, burst;
	struct pt_psb_mark m = { 0 };	/* the last PSB+ (for PacketByteCnt) */
	unsigned int vmx = pt_model_vmx_mode(r);

	memset(res, 0, sizeof(*res));
	if (!(r->ctl & PT_CTL_TRACEEN)) {
		res->stop_timer = true;
		return 0;
	}
	/*
	 * model_stale: the previous tick's bytes reach memory now (they may
	 * be stored twice if this tick is redone: the same bytes to the
	 * same places), and the pointers before this tick are the "old"
	 * ones reads may return.
	 */
	pt_model_held_store(s);
	s->old_base = r->base;
	s->old_mask = r->mask;
	/* model_exact: the stepped instructions are the trace (exact.c). */
	if (s->x.on)
		return 0;
	if (!(r->status & PT_STATUS_TRIGGEREN)) {
		/*
		 * A TraceStop range stopped the trace on purpose: the CPU
		 * generates nothing more.  Stopped by a full STOP region
		 * or in error, it would have gone on: build the packets
		 * as if they were written (PTW numbers advance), write
		 * nothing and count every byte as lost.
		 */
		if (s->trace_stopped ||
		    !(r->status & (PT_STATUS_STOPPED | PT_STATUS_ERROR)))
			return 0;
		discard = true;
	}
	budget = min_t(u32, budget, PT_MODEL_STAGE_MAX);
	pt_pkt_init(&b, st->stage, budget + PT_MODEL_STAGE_SLACK);
	b.last_ip = s->last_ip;

	pt_filter(r, c, &f);
	pe = f.context_en && f.filter_en;
	if (!discard) {
		r->status &= ~(PT_STATUS_CONTEXTEN | PT_STATUS_FILTEREN);
		r->status |= (f.context_en ? PT_STATUS_CONTEXTEN : 0) |
			     (f.filter_en ? PT_STATUS_FILTEREN : 0);
	}

	if (s->ovf_pending && !discard) {
		/* Internal buffer overflow: this tick's packets are gone. */
		s->ovf_pending = false;
		res->ovf = true;
		pt_pkt_ovf(&b);
		if (pe && branch)
			pt_pkt_ip_ipc(&b, PT_PKT_FUP, c->ip, PT_IPC_SEXT_48);
		s->packet_en = pe;
		goto write;
	}
	/*
	 * TraceStop (36.2.4.3, Table 36-28): the sampled IP lies in a stop
	 * region, so the stop came before anything else this tick would
	 * trace.  Only a PSB+ owed since TraceEn was set comes first.
	 */
	stop = f.stop && f.context_en && !discard;
	if (stop)
		pe = false;
	/* With model_seq=1 PTW numbers must not repeat: never burst. */
	burst = a->burst && pe && !READ_ONCE(pt_model_seq) && !vmx;
	/*
	 * An enable with PacketByteCnt > 0 sends TSC, TMA and CBR (Table
	 * 36-50 case 2d); a PSB+ that is due by then comes after them, never
	 * instead of them: a decoder knows an enable by those packets
	 * outside PSB+.  (Timing packets carry this tick's TSC, not the
	 * WRMSR's: the model has no packets between the two.)
	 */
	if (s->need_timing && !s->need_psb)
		pt_model_timing(&b, r, c);
	s->need_timing = false;
	/*
	 * In burst mode a PSB+ that is due opens the block below instead,
	 * after PIP and TIP.PGE/PGD, which must not be part of the copies.
	 */
	if (s->need_psb ||
	    (!stop && !burst && s->psb_cnt >= pt_model_psb_threshold(r))) {
		pt_psb_mark(s, &b, c, f.context_en, pe, &m, &res->psbs);
		announced = (r->ctl & PT_CTL_OS) && f.context_en;
		s->need_psb = false;
	}
	/* Before MODE.Exec/TIP.PGE and TIP.PGD, as in Table 36-50. */
	pt_pip_on_change(s, &b, c, f.context_en, announced);

	if (stop) {
		/*
		 * TIP.PGD with the IP that entered the region if PacketEn
		 * was set, then the TraceStop packet.  Stopped is set,
		 * which clears TriggerEn, and FilterEn is forced to 0.
		 */
		if (s->packet_en && branch)
			pt_pkt_ip(&b, PT_PKT_TIP_PGD, c->ip, false);
		pt_pkt_stop(&b);
		s->packet_en = false;
		s->trace_stopped = true;
		goto write;
	}
	if (pe && !s->packet_en && branch) {
		pt_pkt_mode_exec(&b, c->csl, !c->csl);
		pt_pkt_ip(&b, PT_PKT_TIP_PGE, c->ip, false);
	} else if (!pe && s->packet_en && branch) {
		pt_pkt_ip(&b, PT_PKT_TIP_PGD, c->ip, true);
	}
	s->packet_en = pe;

	if (burst && pt_burst(s, &b, c, f.context_en, budget, &m, res))
		goto write;
	if (vmx) {
		pt_run(s, &b, c, f.context_en, pe, budget / 2, &m, res);
		pt_vm_visit(vmx, s, &b, c, f.context_en, pe, budget, &m, res);
		goto write;
	}
	pt_run(s, &b, c, f.context_en, pe, budget, &m, res);
write:
	s->last_ip = b.last_ip;
	res->generated = b.len;
	res->packets = b.packets;
	if (discard) {
		/* Nothing reaches memory, PacketByteCnt stays. */
		s->psb_cnt += b.len - m.start;
		res->out.lost = b.len;
		return 0;
	}
	pt_model_out_place(pt_model_prof, r, b.len, &res->out, &res->operr,
			   pt_model_pending_now(st));
	pt_model_pending_now(st)->data = b.buf;
	if (READ_ONCE(pt_model_stale))
		pt_tick_hold(st, s);
	pt_model_account_bytecnt(s, b.len - m.start);
	if (res->out.pmi)
		r->global_status |= PT_GLOBAL_STATUS_TOPA_PMI;
	if (stop) {
		/* After the packets that announce it are out. */
		r->status |= PT_STATUS_STOPPED;
		r->status &= ~(PT_STATUS_TRIGGEREN | PT_STATUS_FILTEREN);
	}
	return 0;
}

/*
 * model_rate: a tick carries at least this many bytes, one PSB period at
 * the default PSBFreq (the burst generator's block, so at any rate it
 * copies blocks instead of encoding every byte).  The tick's period
 * stretches to what the rate needs for it, at most
 * PT_MODEL_RATE_PERIOD_MAX_NS: at 4 MB/s a 10 us model_period_us would
 * otherwise mean 100,000 ticks a second of 40 bytes each, and under TCG
 * the ticks' own cost (hardirq, on the traced CPU) then takes the CPU
 * from the reader that drains the trace, which silicon, writing without
 * the CPU, never does.
 */
#define PT_MODEL_RATE_QUANTUM		4096U
#define PT_MODEL_RATE_PERIOD_MAX_NS	(10 * NSEC_PER_MSEC)

/* The tick's period: model_period_us, stretched by model_rate. */
static u64 pt_tick_period_ns(void)
{
	unsigned long rate = READ_ONCE(pt_model_rate);
	u64 ns = (u64)READ_ONCE(pt_model_period_us) * NSEC_PER_USEC, q;

	if (!rate)
		return ns;
	q = div64_ul((u64)PT_MODEL_RATE_QUANTUM * NSEC_PER_SEC, rate);
	return max(ns, min_t(u64, q, PT_MODEL_RATE_PERIOD_MAX_NS));
}

/*
 * Bytes for this tick: model_tick_bytes, or with model_rate what the
 * rate owes since the last tick (at least 64, at most the stage; the
 * difference is carried, so the mean is the rate up to the ceiling of
 * PT_MODEL_STAGE_MAX per period).  The rate's clock starts one period
 * before the first tick of each enable (pt_model_start_timer()): time
 * the trace was off owes nothing.  Nor does a tick that comes more than
 * PT_MODEL_RATE_LATE periods late owe the whole gap: under TCG on a
 * loaded host the vCPU thread does not run for hundreds of ms while
 * ktime goes on, and the CPU executed nothing to trace meanwhile (on
 * silicon a stalled CPU writes nothing).  Owed, that gap came out as
 * one 64 KiB burst at the next tick, which filled stream_rate's 64 KiB
 * ring before its reader (in the same stalled VM) could run.  The
 * timer's usual lateness stays owed: the mean is still the rate.  And
 * "usual" is not a period at high rates: under TCG the guest's hrtimer
 * fires about once a millisecond whatever it asks, so a 30 MB/s rate
 * (a 136 us period) owed at most 272 us per tick and made ~10 MB/s,
 * which the bench's lossless-rate search took for the recorder's limit
 * (issue 10).  So a tick owes up to PT_MODEL_RATE_LATE_NS too, short
 * against the host stalls this guards against.
 */
#define PT_MODEL_RATE_LATE	2
#define PT_MODEL_RATE_LATE_NS	(5 * NSEC_PER_MSEC)

static u32 pt_tick_budget(struct pt_model_cpu *st)
{
	unsigned long rate = READ_ONCE(pt_model_rate);
	u64 now = ktime_get_ns();
	u64 gap;
	s64 owed;
	u32 n;

	if (!rate) {
		st->rate_last_ns = 0;
		return min_t(u32, READ_ONCE(pt_model_tick_bytes),
			     PT_MODEL_STAGE_MAX);
	}
	if (!st->rate_last_ns)
		st->rate_last_ns = now - pt_tick_period_ns();
	gap = min_t(u64, now - st->rate_last_ns,
		    max_t(u64, PT_MODEL_RATE_LATE * pt_tick_period_ns(),
			  PT_MODEL_RATE_LATE_NS));
	owed = st->rate_carry + (s64)mul_u64_u64_div_u64(rate, gap,
							 NSEC_PER_SEC);
	st->rate_last_ns = now;
	n = clamp_t(s64, owed, 64, PT_MODEL_STAGE_MAX);
	/* Never more than one stage of debt: beyond it, the ceiling. */
	st->rate_carry = clamp_t(s64, owed - n, -PT_MODEL_STAGE_MAX,
				 PT_MODEL_STAGE_MAX);
	return n;
}

/*
 * model_rate with the burst generator: a tick makes whole copies of its
 * block only, so it makes less than its budget (up to a block less) or,
 * for the block itself, a little more.  The difference is carried like
 * the rest, or the rate made would fall short of the rate asked by up
 * to a block per tick (a third at 4 KiB ticks).  Only a tick that made
 * something: one the filters silenced owes nothing later.
 */
static void pt_tick_settle(struct pt_model_cpu *st, const struct pt_tick_arg *a)
{
	if (!READ_ONCE(pt_model_rate) || !a->burst || !a->res.generated)
		return;
	st->rate_carry = clamp_t(s64, st->rate_carry + (s64)a->budget -
				 a->res.generated, -PT_MODEL_STAGE_MAX,
				 PT_MODEL_STAGE_MAX);
}

/*
 * The tick runs while PT traces, BTS stores branches (bts.c) or another
 * agent's PEBS is enabled (pebs.c).
 */
static bool pt_model_gen_needed(const struct pt_model_regs *r)
{
	return (r->ctl & PT_CTL_TRACEEN) || pt_model_bts_on(r) ||
	       r->pebs_enable;
}

static enum hrtimer_restart pt_model_tick_run(struct pt_model_cpu *st,
					      struct hrtimer *t);

/*
 * The tick, timed: without IRQ_TIME_ACCOUNTING (Debian's kernels) its
 * time is charged to the task it interrupted, so tick_ns_ktask counts
 * what interrupted a task in kernel mode (a system call, the driver's
 * among them) for benchmarks to take out of the driver's share.
 */
static enum hrtimer_restart pt_model_tick(struct hrtimer *t)
{
	struct pt_model_cpu *st = container_of(t, struct pt_model_cpu, timer);
	struct pt_regs *regs = get_irq_regs();
	enum hrtimer_restart ret;
	u64 t0 = ktime_get_ns(), dt;

	/* A CPU going offline migrates its timers: do not follow. */
	if (st->cpu != smp_processor_id()) {
		WRITE_ONCE(st->running, false);
		return HRTIMER_NORESTART;
	}
	ret = pt_model_tick_run(st, t);
	dt = ktime_get_ns() - t0;
	atomic64_add(dt, &st->stats.tick_ns);
	if (regs && !user_mode(regs) && !is_idle_task(current))
		atomic64_add(dt, &st->stats.tick_ns_ktask);
	return ret;
}

static enum hrtimer_restart pt_model_tick_run(struct pt_model_cpu *st,
					      struct hrtimer *t)
{
	struct pt_tick_arg a;
	struct pt_tick_res *res = &a.res;

	atomic64_inc(&st->stats.ticks);
	pt_sample(&a.c);
	a.burst = READ_ONCE(pt_model_burst);
	a.budget = pt_tick_budget(st);
	pt_model_bts_tick(st, a.c.ip, a.c.user);
	pt_model_pebs_tick(st, a.c.ip);
	/* Redone on top of an NMI that published first: never dropped. */
	pt_model_update(st, pt_tick_fn, &a, true);
	pt_tick_settle(st, &a);
	atomic64_add(res->out.written, &st->stats.bytes_written);
	atomic64_add(res->out.lost, &st->stats.lost_bytes);
	atomic64_add(res->packets, &st->stats.packets);
	atomic64_add(res->psbs, &st->stats.psbs);
	atomic64_add(res->burst, &st->stats.burst_bytes);
	if (res->ovf)
		atomic64_inc(&st->stats.ovfs);
	if (res->operr)
		pt_model_count_operr(st, res->operr);
	/* Last step, with the state published and the bytes stored. */
	if (res->out.pmi)
		pt_model_pmi_send(st);
	if (res->stop_timer) {
		WRITE_ONCE(st->running, false);
		barrier();
		/* An NMI may have re-enabled after we looked. */
		if (!pt_model_gen_needed(&READ_ONCE(st->active)->regs))
			return HRTIMER_NORESTART;
		WRITE_ONCE(st->running, true);
	}
	hrtimer_forward_now(t, ns_to_ktime(pt_tick_period_ns()));
	return HRTIMER_RESTART;
}

/*
 * The first tick after TraceEn 0->1 comes within PT_MODEL_FIRST_TICK_US
 * (or the period, if shorter): silicon traces from the first instruction,
 * and a task switched in for less than a period (a followed task that
 * runs briefly between sleeps) must still leave packets, not nothing.
 */
#define PT_MODEL_FIRST_TICK_US	20U

static void pt_model_start_timer(struct pt_model_cpu *st)
{
	/*
	 * model_rate: what the rate owed when the timer stopped, and the
	 * time since, are not this enable's.  Kept, the first tick after a
	 * restart carried a stage plus a stage of debt (128 KiB at once, a
	 * burst no rate explains, which a small ring cannot hold).  The
	 * timer is not running here: the tick cannot race these.
	 */
	st->rate_last_ns = 0;
	st->rate_carry = 0;
	hrtimer_start(&st->timer,
		      ns_to_ktime(min(READ_ONCE(pt_model_period_us),
				      PT_MODEL_FIRST_TICK_US) * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

static void pt_model_kick_fn(struct irq_work *w)
{
	struct pt_model_cpu *st = container_of(w, struct pt_model_cpu, kick);

	if (pt_model_gen_needed(&READ_ONCE(st->active)->regs))
		pt_model_start_timer(st);
}

void pt_model_gen_kick(struct pt_model_cpu *st)
{
	if (READ_ONCE(st->running))
		return;
	WRITE_ONCE(st->running, true);
	if (in_nmi())
		irq_work_queue(&st->kick);	/* no hrtimer calls in NMI */
	else
		pt_model_start_timer(st);
}

void pt_model_gen_on_enable(struct pt_model_state *s)
{
	struct pt_model_regs *r = &s->regs;

	s->old_base = r->base;
	s->old_mask = r->mask;
	/*
	 * 36.2.7.3: a full PSB+ if PacketByteCnt=0 (always without
	 * configurable PSB), else timing packets.  PacketEn starts clear,
	 * so the first tick that passes the filters sends TIP.PGE.
	 */
	if (!pt_mp_ebx(pt_model_prof, PT_MP_PSB_CYC) ||
	    !(r->status & PT_STATUS_BYTECNT_MASK)) {
		s->need_psb = true;
		s->need_timing = false;
		s->psb_cnt = 0;
	} else {
		/* An earlier enable's PSB+ never sent is not this one's. */
		s->need_psb = false;
		s->need_timing = true;
		s->psb_cnt = (r->status & PT_STATUS_BYTECNT_MASK) >>
			     PT_STATUS_BYTECNT_SHIFT;
	}
	s->packet_en = false;
	/*
	 * The last IP stays: only a PSB resets it (pt_pkt_psb()), and a
	 * decoder sees no more of an enable without PSB+ than its timing
	 * packets (libipt's and perf's reset it at PSB only).  Reset here,
	 * a task switched in by a follower's enable after another whose
	 * IPs have other upper bytes (a PIE's, a static program's) had its
	 * TIP.PGE compressed against 0, which a decoder expanded with the
	 * other task's upper bytes: 0x7f0c00401143 for 0x401143.
	 */
	pt_model_exact_on_enable(s);
}

/*
 * TraceEn 1 -> 0: flush; a TIP.PGD if PacketEn was set (36.2.7.3).  The
 * bytes are placed now and stored by pt_model_update() once the state is
 * published.  Stopped by a full STOP region or in error, the PGD the CPU
 * would have sent is counted as lost, like the ticks' packets.
 */
void pt_model_gen_on_disable(struct pt_model_cpu *st, struct pt_model_state *s,
			     struct pt_model_out_result *out, u32 *packets)
{
	struct pt_model_pending *pend = pt_model_pending_now(st);
	enum pt_model_operr operr;
	struct pt_pkt_buf b;
	u8 *buf = st->flush[pend - st->pend];

	*packets = 0;
	pt_pkt_init(&b, buf, sizeof(st->flush[0]));
	b.last_ip = s->last_ip;
	if (s->x.on) {
		/* Pending TNT bits, FUP + TIP.PGD if in user code. */
		if (!pt_model_exact_on_disable(s, &b))
			return;
	} else {
		if (!s->packet_en || !(s->regs.ctl & PT_CTL_BRANCHEN)) {
			s->packet_en = false;
			return;
		}
		pt_pkt_ip(&b, PT_PKT_TIP_PGD, 0, true);
	}
	s->packet_en = false;
	s->last_ip = b.last_ip;
	if (!(s->regs.status & PT_STATUS_TRIGGEREN)) {
		if (!s->trace_stopped &&
		    (s->regs.status & (PT_STATUS_STOPPED | PT_STATUS_ERROR)))
			out->lost += b.len;
		return;
	}
	pt_model_out_place(pt_model_prof, &s->regs, b.len, out, &operr, pend);
	pend->data = buf;
	pt_model_account_bytecnt(s, b.len);
	*packets = b.packets;
	if (out->pmi)
		s->regs.global_status |= PT_GLOBAL_STATUS_TOPA_PMI;
}

void pt_model_gen_init(struct pt_model_cpu *st)
{
	hrtimer_init(&st->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	st->timer.function = pt_model_tick;
	init_irq_work(&st->kick, pt_model_kick_fn);
}

void pt_model_gen_exit(struct pt_model_cpu *st)
{
	irq_work_sync(&st->kick);
	hrtimer_cancel(&st->timer);
	st->running = false;
}
