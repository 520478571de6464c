// SPDX-License-Identifier: GPL-2.0
/*
 * The software model of the Intel PT hardware: the hw-ops backend
 * (backend=model), its per-CPU state, module parameters and lifetime.
 * It is its own module, pt_trace_model.ko: loading it only checks its
 * parameters and exports pt_model_hw_ops; pt_trace.ko backend=model takes
 * that with symbol_get() (see hw.h) and brings the model up and down
 * through init/exit, so every load of the driver starts from a fresh
 * model.
 *
 * Context rules.  The driver calls cpuid/rdmsr/wrmsr/pmi_rearm on the
 * CPU whose PT it programs, with IRQs off or from NMI (its PMI handler).
 * The model's own hrtimer tick runs in hardirq on that CPU.  So the only
 * concurrency is an NMI landing in the middle of the tick or of an MSR
 * operation on the same CPU.  Locks cannot handle that (the NMI would
 * spin on a lock its own CPU holds), so there are none.  Instead every
 * change works on a private copy of the per-CPU state and publishes it
 * with one cmpxchg (pt_model_update()):
 *  - an NMI's operation always completes (nothing can interrupt it);
 *  - an interrupted MSR write or tick finds its cmpxchg failed and is
 *    redone on top of the NMI's result, i.e. it takes effect after the
 *    NMI, which is a legal order since it had not returned yet (the tick
 *    keeps the context it sampled and its PTW numbers live in the state,
 *    so the redone tick produces what the first attempt would have);
 *  - this is counted in nmi_races.
 * Trace bytes reach memory only after their state is published: an
 * operation places them (the output pointers advance in its copy),
 * publishes, then stores them.  An NMI that lands between the publish
 * and the store stores them itself before it looks at anything, so
 * whatever it reads or flushes lies behind complete data, and a failed
 * attempt has written nothing.  Every byte generated is thus either in
 * memory behind the output pointers or counted in lost_bytes.
 * The tick raises its PMI only after its bytes are stored, so the
 * driver's NMI handler always finds the model consistent.  Timers are
 * never touched from NMI: the tick stops itself when it sees TraceEn=0,
 * and an enable from NMI starts the timer through irq_work.
 */
#include <linux/irqflags.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/pt_trace.h>

#include "../bts_regs.h"
#include "../regs.h"
#include "model.h"

struct pt_model_cpu __percpu *pt_model_cpus;

const struct pt_model_profile *pt_model_prof = &pt_model_profiles[0];

static char *model_profile = "icl";
module_param(model_profile, charp, 0444);
MODULE_PARM_DESC(model_profile,
		 "backend=model only: icl (default, Ice Lake), bdw (Broadwell), min (synthetic minimum)");

/*
 * A numeric parameter range-checked at every write (EINVAL outside the
 * range), not only at load: the generator's pace here (the tick reads it
 * at run time, and a value outside, a 0 period or a rate whose bytes per
 * period overflow the tick's 64-bit arithmetic, a #DE in the hrtimer, is
 * not the model's to survive), model_vmx's mode (vmx.c).
 */
int pt_model_set_ranged(const char *val, const struct kernel_param *kp,
			unsigned long lo, unsigned long hi, bool ulong)
{
	unsigned long v;
	int ret = kstrtoul(val ? val : "", 0, &v);

	if (ret)
		return ret;
	if (v < lo || v > hi)
		return -EINVAL;
	if (ulong)
		WRITE_ONCE(*(unsigned long *)kp->arg, v);
	else
		WRITE_ONCE(*(unsigned int *)kp->arg, v);
	return 0;
}

static int pt_model_set_period(const char *val, const struct kernel_param *kp)
{
	return pt_model_set_ranged(val, kp, 10, 1000000, false);
}

static int pt_model_set_tick_bytes(const char *val,
				   const struct kernel_param *kp)
{
	return pt_model_set_ranged(val, kp, 64, PT_MODEL_STAGE_MAX, false);
}

static int pt_model_set_rate(const char *val, const struct kernel_param *kp)
{
	return pt_model_set_ranged(val, kp, 0, PT_MODEL_RATE_MAX, true);
}

static const struct kernel_param_ops pt_model_period_ops = {
	.set	= pt_model_set_period,
	.get	= param_get_uint,
};

static const struct kernel_param_ops pt_model_tick_bytes_ops = {
	.set	= pt_model_set_tick_bytes,
	.get	= param_get_uint,
};

static const struct kernel_param_ops pt_model_rate_ops = {
	.set	= pt_model_set_rate,
	.get	= param_get_ulong,
};

unsigned int pt_model_period_us = 1000;
module_param_cb(model_period_us, &pt_model_period_ops, &pt_model_period_us,
		0644);
MODULE_PARM_DESC(model_period_us, "model: trace generator period in us (10..1000000)");

unsigned int pt_model_tick_bytes = 2048;
module_param_cb(model_tick_bytes, &pt_model_tick_bytes_ops,
		&pt_model_tick_bytes, 0644);
MODULE_PARM_DESC(model_tick_bytes, "model: packet bytes generated per tick (64..65536)");

bool pt_model_seq;
bool pt_model_burst;

/*
 * model_seq and model_burst exclude each other: burst copies repeat the
 * PTW payloads of their block, so sequence numbers would repeat.  A
 * write that would set both fails with EINVAL (an insmod naming both
 * fails).  Parameter writes of one module are serialised by
 * kernel_param_lock(), so the check cannot race with the other write;
 * the tick tests both flags again anyway.
 */
static int pt_model_set_excl(const char *val, const struct kernel_param *kp,
			     bool *other, const char *other_name)
{
	bool on;
	int ret;

	/* As param_set_bool(): a bare "model_burst" means 1. */
	ret = kstrtobool(val ? val : "1", &on);
	if (ret)
		return ret;
	if (on && READ_ONCE(*other)) {
		pr_warn("model: %s=1 refused while %s=1: burst copies would repeat PTW sequence numbers\n",
			kp->name, other_name);
		return -EINVAL;
	}
	/* Never silent: the log says when the generator changes. */
	if (kp->arg == &pt_model_burst && on && !pt_model_burst)
		pr_info("model: burst generator on: each tick repeats one encoded PSB period of packets (benchmark aid, not silicon behaviour)\n");
	else if (kp->arg == &pt_model_burst && !on && pt_model_burst)
		pr_info("model: burst generator off\n");
	WRITE_ONCE(*(bool *)kp->arg, on);
	return 0;
}

static int pt_model_set_seq(const char *val, const struct kernel_param *kp)
{
	return pt_model_set_excl(val, kp, &pt_model_burst, "model_burst");
}

static int pt_model_set_burst(const char *val, const struct kernel_param *kp)
{
	return pt_model_set_excl(val, kp, &pt_model_seq, "model_seq");
}

static const struct kernel_param_ops pt_model_seq_ops = {
	.flags	= KERNEL_PARAM_OPS_FL_NOARG,
	.set	= pt_model_set_seq,
	.get	= param_get_bool,
};

static const struct kernel_param_ops pt_model_burst_ops = {
	.flags	= KERNEL_PARAM_OPS_FL_NOARG,
	.set	= pt_model_set_burst,
	.get	= param_get_bool,
};

module_param_cb(model_seq, &pt_model_seq_ops, &pt_model_seq, 0644);
MODULE_PARM_DESC(model_seq, "model: PTW payloads carry a running sequence number (not with model_burst)");

module_param_cb(model_burst, &pt_model_burst_ops, &pt_model_burst, 0644);
MODULE_PARM_DESC(model_burst,
		 "model: benchmark aid: each tick repeats one encoded PSB period of packets up to model_tick_bytes (not with model_seq)");

bool pt_model_tsx;
module_param_named(model_tsx, pt_model_tsx, bool, 0644);
MODULE_PARM_DESC(model_tsx, "model: emit MODE.TSX transactions");

bool pt_model_vmx_guest;
module_param_named(model_vmx_guest, pt_model_vmx_guest, bool, 0644);
MODULE_PARM_DESC(model_vmx_guest, "model: pretend to run in VMX non-root (PIP.NR=1)");

/*
 * CR4.VMXE is the CPU's, not PT's: a hypervisor (kvm_intel with
 * enable_virt_at_load) may have every CPU in VMX operation before the
 * driver loads.  The per-CPU state below is reset at each attach, so
 * the CPUs in VMX operation at attach are given here (bit N = CPU N);
 * the vmx hook turns it on and off afterwards.
 */
static unsigned long pt_model_vmx_at_load;
module_param_named(model_vmx_at_load, pt_model_vmx_at_load, ulong, 0644);
MODULE_PARM_DESC(model_vmx_at_load,
		 "model: CPUs in VMX operation (CR4.VMXE) when the driver attaches, a mask with bit N for CPU N (default 0)");

bool pt_model_vmcs;
module_param_named(model_vmcs, pt_model_vmcs, bool, 0644);
MODULE_PARM_DESC(model_vmcs, "model: emit a VMCS packet in every PSB+");

module_param_named(model_topa_cached, pt_model_topa_cached, bool, 0644);
MODULE_PARM_DESC(model_topa_cached,
		 "model: ToPA entries read at TraceEn 0->1 (8 from the output position) are used until the next enable; edits meanwhile are not seen (default 1)");

module_param_named(model_early_pmi, pt_model_early_pmi, uint, 0644);
MODULE_PARM_DESC(model_early_pmi,
		 "model: single-entry ToPA raises its PMI this many bytes before the region fills (default 256, 0..4095)");

unsigned long pt_model_rate;
module_param_cb(model_rate, &pt_model_rate_ops, &pt_model_rate, 0644);
MODULE_PARM_DESC(model_rate,
		 "model: generate this many bytes per second per CPU (0: model_tick_bytes per tick; up to 64 KiB per tick; at most 2^40)");

/*
 * SDM 36.2.7.7/8 and 36.2.6.2: with TraceEn=1 the output pointers are
 * unreliable and packets reach memory only at TraceEn 1->0 (plus a
 * fence).  On by default, so every test runs against it.
 */
bool pt_model_stale = true;
module_param_named(model_stale, pt_model_stale, bool, 0644);
MODULE_PARM_DESC(model_stale,
		 "model: while TraceEn=1 the last tick's bytes are not in memory and every other pointer read returns the pointers before it (default 1)");
/*
 * A hybrid part in miniature: CPU model_cpuid_skew answers CPUID leaf
 * 0x14 with PTWRITE (EBX[4]) flipped, unlike the others (-1: none).
 * Only the CPUID answer changes, not what the model accepts.
 */
static int pt_model_cpuid_skew = -1;
module_param_named(model_cpuid_skew, pt_model_cpuid_skew, int, 0644);
MODULE_PARM_DESC(model_cpuid_skew,
		 "model: this CPU's CPUID leaf 0x14 has PTWRITE flipped (-1: none)");

struct pt_model_cpu *pt_model_cpu_ptr(int cpu)
{
	return per_cpu_ptr(pt_model_cpus, cpu);
}

static unsigned int pt_model_depth(struct pt_model_cpu *st)
{
	return min_t(unsigned int, st->depth, PT_MODEL_DEPTHS - 1);
}

struct pt_model_pending *pt_model_pending_now(struct pt_model_cpu *st)
{
	return &st->pend[pt_model_depth(st)];
}

/* Store a published operation's bytes, once, and forget them. */
static void pt_model_store(struct pt_model_pending *p)
{
	pt_model_out_copy(p);
	barrier();
	WRITE_ONCE(p->state, NULL);
}

/*
 * Called in NMI context before the NMI looks at the model: if it
 * interrupted an operation that had published its state (its output
 * pointers already past its bytes) but not yet stored those bytes, store
 * them now, so that whatever the NMI reads or flushes lies behind
 * complete data.  The interrupted operation later stores the same bytes
 * again to the same places, which changes nothing: everything the NMI
 * writes lies beyond them.
 */
void pt_model_finish_interrupted(struct pt_model_cpu *st)
{
	struct pt_model_pending *p = &st->pend[1];
	struct pt_model_state *s = READ_ONCE(p->state);

	if (s && s == READ_ONCE(st->active))
		pt_model_store(p);
}

int pt_model_update(struct pt_model_cpu *st, pt_model_fn fn, void *arg,
		    bool redo)
{
	struct pt_model_state *old, *s;
	struct pt_model_pending *pend;
	unsigned long flags = 0;
	bool nmi = in_nmi();
	unsigned int d;
	int ret;

	if (!nmi)
		local_irq_save(flags);
	++st->depth;
	d = pt_model_depth(st);		/* NMIs do not nest */
	pend = &st->pend[d];
	barrier();
	if (d > 1)
		pt_model_finish_interrupted(st);
	for (;;) {
		old = READ_ONCE(st->active);
		s = st->scratch[d];
		*s = *old;
		barrier();
		if (READ_ONCE(st->active) != old)
			continue;	/* an NMI published while we copied */
		WRITE_ONCE(pend->state, NULL);
		pend->nseg = 0;
		ret = fn(st, s, arg);
		if (ret)
			break;
		/* Armed before the publish: an NMI right after it stores. */
		if (pend->nseg)
			WRITE_ONCE(pend->state, s);
		barrier();
		if (cmpxchg(&st->active, old, s) == old) {
			st->scratch[d] = old;
			break;
		}
		atomic64_inc(&st->stats.nmi_races);
		if (!redo) {
			ret = -EAGAIN;
			break;
		}
	}
	/* Bytes are stored only once their state is the active one. */
	if (!ret && READ_ONCE(pend->state))
		pt_model_store(pend);
	WRITE_ONCE(pend->state, NULL);
	barrier();
	st->depth--;
	if (!nmi)
		local_irq_restore(flags);
	return ret;
}

void pt_model_count_gp(struct pt_model_cpu *st, u32 msr, u64 val,
		       enum pt_model_gp why, bool test)
{
	atomic64_inc(test ? &st->stats.gp_faults_test : &st->stats.gp_faults);
	if (why < PT_GP_NR)
		atomic64_inc(&st->stats.gp_by_reason[why]);
	st->stats.last_gp_msr = msr;
	st->stats.last_gp_val = val;
	st->stats.last_gp_why = why;
}

void pt_model_count_operr(struct pt_model_cpu *st, enum pt_model_operr e)
{
	atomic64_inc(&st->stats.op_errors);
	st->stats.last_operr = e;
}

void pt_model_held_store(struct pt_model_state *s)
{
	if (!s->held.nseg)
		return;
	pt_model_out_copy(&s->held);
	s->held.nseg = 0;
}

struct pt_wr_arg {
	u32 msr;
	u64 val;
	enum pt_model_gp why;
	enum pt_model_operr operr;
	bool enabled;
	bool disabled;			/* TraceEn 1 -> 0 */
	bool bts_on;			/* DEBUGCTL starts BTS: run the tick */
	bool pebs_on;			/* PEBS enabled: run the tick too */
	bool bts_started;		/* BTS 0 -> 1: exact mode arms */
	bool bts_stopped;		/* BTS 1 -> 0 */
	struct pt_model_out_result out;	/* of a TraceEn 1->0 flush */
	u32 packets;
};

static void pt_model_set_addr(struct pt_model_regs *r, u32 msr, u64 v)
{
	u32 i = msr - PT_MSR_RTIT_ADDR0_A;

	r->addr[(i / 2) % 4][i % 2] = v;
}

static int pt_wr_fn(struct pt_model_cpu *st, struct pt_model_state *s,
		    void *arg)
{
	struct pt_wr_arg *a = arg;
	struct pt_model_regs *r = &s->regs;
	u64 store;
	int ret;

	a->enabled = false;
	a->disabled = false;
	a->bts_on = false;
	a->pebs_on = false;
	a->bts_started = false;
	a->bts_stopped = false;
	a->operr = PT_OPERR_NONE;
	memset(&a->out, 0, sizeof(a->out));
	a->packets = 0;
	ret = pt_model_check_wrmsr(pt_model_prof, r, a->msr, a->val, &store,
				   &a->why);
	if (ret)
		return ret;

	switch (a->msr) {
	case PT_MSR_RTIT_CTL:
		if ((r->ctl & PT_CTL_TRACEEN) && !(store & PT_CTL_TRACEEN)) {
			/* 1 -> 0: flush (TIP.PGD), then nothing else. */
			pt_model_held_store(s);
			pt_model_gen_on_disable(st, s, &a->out, &a->packets);
			r->ctl = store;
			r->status &= ~PT_STATUS_TRIGGEREN;
			a->disabled = true;
		} else if (!(r->ctl & PT_CTL_TRACEEN) &&
			   (store & PT_CTL_TRACEEN)) {
			r->ctl = store;
			r->int_early = false;
			r->topa_ncache = 0;
			if (!(r->status & (PT_STATUS_ERROR | PT_STATUS_STOPPED))) {
				a->operr = pt_model_out_check(pt_model_prof, r);
				if (a->operr)
					r->status |= PT_STATUS_ERROR;
				else
					r->status |= PT_STATUS_TRIGGEREN;
				pt_model_topa_cache_fill(r);
			}
			pt_model_gen_on_enable(s);
			a->enabled = true;
		} else {
			r->ctl = store;
		}
		break;
	case PT_MSR_RTIT_STATUS:
		r->status = store;
		/* Software owns Stopped now: a lingering one loses bytes. */
		s->trace_stopped = false;
		break;
	case PT_MSR_RTIT_OUTPUT_BASE:
		r->base = store;
		break;
	case PT_MSR_RTIT_OUTPUT_MASK:
		r->mask = store;
		break;
	case PT_MSR_RTIT_CR3_MATCH:
		r->cr3_match = store;
		break;
	case PT_MSR_PERF_GLOBAL_STATUS_RESET:
		r->global_status &= ~(store & (PT_GLOBAL_STATUS_TOPA_PMI |
					       BTS_GLOBAL_STATUS_PEBS_OVF));
		break;
	case BTS_MSR_PEBS_ENABLE:
		r->pebs_enable = store;
		a->pebs_on = !!store;
		break;
	case BTS_MSR_DEBUGCTL:
		a->bts_started = !pt_model_bts_on(r);
		a->bts_stopped = !a->bts_started;
		r->debugctl = store;
		a->bts_on = pt_model_bts_on(r);
		a->bts_started &= a->bts_on;
		a->bts_stopped &= !a->bts_on;
		break;
	case BTS_MSR_DS_AREA:
		r->ds_area = store;
		break;
	default:
		pt_model_set_addr(r, a->msr, store);
		break;
	}
	return 0;
}

/*
 * Test hook ctl_fault: the driver's next RTIT_CTL write clearing TraceEn
 * #GPs and changes nothing (the hardware keeps tracing).  The test asked
 * for it, so it counts in gp_faults_test.
 */
static bool pt_model_injected_fault(struct pt_model_cpu *st, u32 msr, u64 val)
{
	if (msr != PT_MSR_RTIT_CTL || (val & PT_CTL_TRACEEN) ||
	    !(READ_ONCE(st->active)->regs.ctl & PT_CTL_TRACEEN) ||
	    !xchg(&st->fail_disable, 0))
		return false;
	pt_model_count_gp(st, msr, val, PT_GP_INJECTED, true);
	return true;
}

/* Does this write turn TraceEn or BTS off (if it is allowed)? */
static bool pt_model_turns_off(struct pt_model_cpu *st, u32 msr, u64 val)
{
	const struct pt_model_regs *r = &READ_ONCE(st->active)->regs;

	if (msr == PT_MSR_RTIT_CTL)
		return (r->ctl & PT_CTL_TRACEEN) && !(val & PT_CTL_TRACEEN);
	return msr == BTS_MSR_DEBUGCTL && pt_model_bts_on(r) &&
	       !pt_model_debugctl_bts(val);
}

int pt_model_do_wrmsr(struct pt_model_cpu *st, u32 msr, u64 val, bool test)
{
	struct pt_wr_arg a = { .msr = msr, .val = val };
	int ret;

	if (!test && pt_model_injected_fault(st, msr, val))
		return -EIO;
	if (msr == BTS_MSR_DEBUGCTL && !test)
		pt_model_bts_writing(st, val);
	if (!test && pt_model_turns_off(st, msr, val))
		pt_model_exact_disabling(st, msr == PT_MSR_RTIT_CTL);
	ret = pt_model_update(st, pt_wr_fn, &a, true);
	if (ret) {
		pt_model_count_gp(st, msr, val, a.why, test);
		return -EIO;
	}
	/* Counted once, for the attempt that was published. */
	atomic64_add(a.out.written, &st->stats.bytes_written);
	atomic64_add(a.out.lost, &st->stats.lost_bytes);
	atomic64_add(a.packets, &st->stats.packets);
	if (a.operr)
		pt_model_count_operr(st, a.operr);
	if (a.enabled || a.bts_on || a.pebs_on)
		pt_model_gen_kick(st);
	if (a.disabled && !test)
		pt_model_agents_on_disable(st);
	if (a.enabled && !test)
		pt_model_agents_on_enable(st);
	if (a.bts_stopped && !test)
		pt_model_exact_bts_off(st);
	if ((a.enabled || a.bts_started) && !test)
		pt_model_exact_enabled(st, !a.enabled);
	if (a.bts_started && !test)
		pt_model_bts_started(st);
	return 0;
}

/*
 * model_stale, TraceEn=1: the pointers are unreliable.  Reads alternate
 * (per pair: OUTPUT_BASE, then MASK_PTRS) between the pointers before
 * the last tick, behind memory, and the current ones, ahead of it (the
 * last tick's bytes are held back): a driver that uses either as the
 * end of valid data in memory is wrong half the time.
 */
static bool pt_model_stale_read(struct pt_model_cpu *st,
				const struct pt_model_regs *r)
{
	if (!READ_ONCE(pt_model_stale) || !(r->ctl & PT_CTL_TRACEEN))
		return false;
	return (st->stale_reads++ / 2) & 1;
}

int pt_model_do_rdmsr(struct pt_model_cpu *st, u32 msr, u64 *val)
{
	const struct pt_model_regs *r;
	enum pt_model_gp why;
	u32 i;

	*val = 0;
	/* An NMI reading the pointers must find the bytes behind them. */
	if (in_nmi() && READ_ONCE(st->depth))
		pt_model_finish_interrupted(st);
	r = &READ_ONCE(st->active)->regs;
	if (pt_model_check_rdmsr(pt_model_prof, msr, &why)) {
		pt_model_count_gp(st, msr, 0, why, false);
		return -EIO;
	}
	switch (msr) {
	case PT_MSR_RTIT_CTL:
		*val = r->ctl;
		break;
	case PT_MSR_RTIT_STATUS:
		*val = r->status;
		break;
	case PT_MSR_RTIT_OUTPUT_BASE:
		*val = pt_model_stale_read(st, r) ?
		       READ_ONCE(st->active)->old_base : r->base;
		break;
	case PT_MSR_RTIT_OUTPUT_MASK:
		*val = (pt_model_stale_read(st, r) ?
			READ_ONCE(st->active)->old_mask : r->mask) |
		       PT_MASK_LOWER;
		break;
	case PT_MSR_RTIT_CR3_MATCH:
		*val = r->cr3_match;
		break;
	case PT_MSR_PERF_GLOBAL_STATUS:
		*val = r->global_status;
		break;
	case PT_MSR_PLATFORM_INFO:
		*val = (u64)pt_model_prof->cbr << 8;	/* max non-turbo ratio */
		break;
	case PT_MSR_VMX_MISC:
		*val = pt_model_prof->vmx_misc;
		break;
	case BTS_MSR_DEBUGCTL:
		*val = r->debugctl;
		break;
	case BTS_MSR_DS_AREA:
		*val = r->ds_area;
		break;
	case BTS_MSR_PEBS_ENABLE:
		*val = r->pebs_enable;
		break;
	case BTS_MSR_MISC_ENABLE:
		*val = pt_model_prof->misc_enable;
		break;
	default:
		i = msr - PT_MSR_RTIT_ADDR0_A;
		*val = r->addr[(i / 2) % 4][i % 2];
		break;
	}
	return 0;
}

static void pt_model_cpuid(u32 leaf, u32 subleaf, struct pt_cpuid_regs *r)
{
	const struct pt_model_profile *p = pt_model_prof;
	static const struct pt_cpuid_regs zero;

	*r = zero;
	if (leaf > p->leaf0.eax)
		return;
	switch (leaf) {
	case 0:
		*r = p->leaf0;
		break;
	case 1:
		*r = p->leaf1;
		break;
	case 7:
		if (subleaf == 0)
			*r = p->leaf7;
		break;
	case 0x14:
		if (subleaf <= p->leaf14[0].eax && subleaf < 2)
			*r = p->leaf14[subleaf];
		/* The driver asks on the CPU it cares about (pinned). */
		if (subleaf == 0 &&
		    (int)raw_smp_processor_id() == READ_ONCE(pt_model_cpuid_skew))
			r->ebx ^= BIT(PT_MP_PTWRITE);
		break;
	case 0x15:
		*r = p->leaf15;
		break;
	}
}

static int pt_model_rdmsr(u32 msr, u64 *val)
{
	return pt_model_do_rdmsr(this_cpu_ptr(pt_model_cpus), msr, val);
}

static int pt_model_wrmsr(u32 msr, u64 val)
{
	return pt_model_do_wrmsr(this_cpu_ptr(pt_model_cpus), msr, val, false);
}

/*
 * Bytes this CPU produced but could not write (stopped or in error),
 * since load.  Silicon has no such counter; the model's lets streaming
 * tests prove that loss records account for every byte.  NMI-safe: one
 * atomic read.
 */
static u64 pt_model_lost_bytes(void)
{
	return atomic64_read(&this_cpu_ptr(pt_model_cpus)->stats.lost_bytes);
}

/* CR4.VMXE as the vmx hook set it. */
static bool pt_model_vmx_on(void)
{
	return READ_ONCE(this_cpu_ptr(pt_model_cpus)->active)->regs.vmxe;
}

/* model_vmx=1 (system-wide) on a CPU the vmx hook put in VMX operation. */
static bool pt_model_vmx_guests_traced(void)
{
	const struct pt_model_state *s;

	s = READ_ONCE(this_cpu_ptr(pt_model_cpus)->active);
	return pt_model_vmx_mode(&s->regs) == PT_MODEL_VMX_SYSTEM;
}

/* The driver's "unmask LVTPC": the next PMI may be delivered. */
static void pt_model_pmi_rearm(void)
{
	WRITE_ONCE(this_cpu_ptr(pt_model_cpus)->lvtpc_masked, false);
}

static void pt_model_free(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct pt_model_cpu *st = pt_model_cpu_ptr(cpu);

		pt_model_gen_exit(st);
		kfree(st->stage);
		st->stage = NULL;
		kfree(st->nmi_stage);
		st->nmi_stage = NULL;
		kfree(st->held_data[0]);
		kfree(st->held_data[1]);
		st->held_data[0] = NULL;
		st->held_data[1] = NULL;
		kfree(st->bts.br);
		st->bts.br = NULL;
	}
}

static int pt_model_init(struct dentry *debugfs)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct pt_model_cpu *st = pt_model_cpu_ptr(cpu);

		memset(st, 0, sizeof(*st));
		st->cpu = cpu;
		st->active = &st->buf[0];
		/* Only where the profile has VMX (CPUID.1:ECX[5]). */
		st->active->regs.vmxe = cpu < BITS_PER_LONG &&
			(READ_ONCE(pt_model_vmx_at_load) & BIT(cpu)) &&
			(pt_model_prof->leaf1.ecx & BIT(5));
		st->scratch[1] = &st->buf[1];
		st->scratch[2] = &st->buf[2];
		st->stage = kmalloc(PT_MODEL_STAGE_MAX + PT_MODEL_STAGE_SLACK,
				    GFP_KERNEL);
		st->held_data[0] = kmalloc(PT_MODEL_STAGE_MAX +
					   PT_MODEL_STAGE_SLACK, GFP_KERNEL);
		st->held_data[1] = kmalloc(PT_MODEL_STAGE_MAX +
					   PT_MODEL_STAGE_SLACK, GFP_KERNEL);
		st->bts.br = kcalloc(PT_MODEL_BTS_STAGE, sizeof(*st->bts.br),
				     GFP_KERNEL);
		st->nmi_stage = kmalloc(PT_MODEL_NMI_STAGE, GFP_KERNEL);
		if (!st->stage || !st->nmi_stage || !st->held_data[0] ||
		    !st->held_data[1] || !st->bts.br) {
			pt_model_free();
			return -ENOMEM;
		}
		pt_model_gen_init(st);
	}
	if (pt_model_debugfs_init(debugfs)) {
		pt_model_debugfs_exit();
		pt_model_selftest_exit();
		pt_model_free();
		return -ENOMEM;
	}
	pt_model_perf_pmu_live(true);
	pr_info("software model of Intel PT, profile %s (%s), %s generator: for testing only, no real trace hardware is used\n",
		pt_model_prof->name, pt_model_prof->desc,
		READ_ONCE(pt_model_burst) ? "burst" : "normal");
	return 0;
}

static void pt_model_exit(void)
{
	pt_model_exact_exit();
	pt_model_perf_pmu_live(false);
	pt_model_debugfs_exit();
	pt_model_bts_exit();
	pt_model_selftest_exit();
	pt_model_agents_exit();
	pt_model_free();
	pt_model_agents_free();
	/* No tick stores into an agent's PEBS area any more. */
	pt_model_pebs_exit();
	pt_model_kvm_exit();
}

const struct pt_hw_ops pt_model_hw_ops = {
	.name		= "model",
	.backend	= PT_BACKEND_MODEL,
	.init		= pt_model_init,
	.exit		= pt_model_exit,
	.cpuid		= pt_model_cpuid,
	.rdmsr		= pt_model_rdmsr,
	.wrmsr		= pt_model_wrmsr,
	.pmi_rearm	= pt_model_pmi_rearm,
	.vmx_on		= pt_model_vmx_on,
	.vmx_guests_traced = pt_model_vmx_guests_traced,
	.lost_bytes	= pt_model_lost_bytes,
};
EXPORT_SYMBOL_GPL(pt_model_hw_ops);

/* A wrong profile fails this module's own load, before any driver. */
static int __init pt_model_module_init(void)
{
	int ret;

	pt_model_prof = pt_model_profile_find(model_profile);
	if (!pt_model_prof) {
		pr_err("unknown model_profile '%s' (icl, bdw, min, icl-nopip)\n",
		       model_profile);
		return -EINVAL;
	}
	pt_model_cpus = alloc_percpu(struct pt_model_cpu);
	if (!pt_model_cpus)
		return -ENOMEM;
	ret = pt_model_perf_pmu_register();
	if (ret)
		free_percpu(pt_model_cpus);
	return ret;
}

/* The driver, which pins this module, ran exit; so did perf's users. */
static void __exit pt_model_module_exit(void)
{
	pt_model_perf_pmu_unregister();
	free_percpu(pt_model_cpus);
}

module_init(pt_model_module_init);
module_exit(pt_model_module_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Software model of Intel PT: a test backend for pt_trace.ko backend=model, never a trace source");
MODULE_AUTHOR("pt_trace developers");
MODULE_VERSION(PT_TRACE_VERSION);
