// SPDX-License-Identifier: GPL-2.0
/*
 * The Branch Trace Store source (source.h): /dev/btsN, under the same
 * per-CPU core, buffer, control page, streaming ring and loss records as
 * PT.  The DS save area and the BTS buffer the CPU writes are ds_area.c;
 * every MSR access (IA32_DEBUGCTL, IA32_DS_AREA) goes through
 * pt_rdmsr()/pt_wrmsr() as PT's do.  SDM Vol. 3B 18.4.4, 18.7.8.
 *
 * Configuration (abi.rst, "BTS"): struct pt_trace_config with ctl
 * holding PT_CTL_OS and/or PT_CTL_USER (which branches), mode, buffer
 * size and watermark; every other field zero.  BTS records the whole
 * CPU (no CR3 or address filter), so it needs CAP_PERFMON.
 *
 *  flight (PT_MODE_FLIGHT): BTINT=0, the BTS buffer is circular (as
 *         large as the ring, within one contiguous allocation); at STOP
 *         (and at a status, paused) its records are copied oldest first
 *         to the start of the ring: the data is [0, head), and
 *         PT_STATUS_WRAPPED says older records were overwritten.
 *  stream (PT_MODE_STREAM): BTINT=1, a smaller BTS buffer whose
 *         threshold PMI (at half of it) copies the records into the
 *         ring (stream_*.c's ring: data_head, data_tail, read(2), poll)
 *         and moves the index back to the base.  Records that find the
 *         ring full are dropped, newest first, and counted exactly in a
 *         PT_LOSS_NO_SPACE record (PT_LOSS_BYTES_KNOWN) at the position
 *         they would have had.
 *
 * START, on the traced CPU: refuse if DEBUGCTL already has TR or BTS
 * (perf's intel_bts, or anyone else, is storing branches), save
 * IA32_DS_AREA, point it at ours, then set DEBUGCTL's BTS bits on top of
 * whatever else it holds (LBR, freeze bits).  STOP: clear exactly the
 * BTS bits (never left set), take the records, then write back the
 * DS_AREA found at START.
 *
 * Switch records (PT_BTS_CTL_SWITCHES): BTS records carry no time and
 * no task, so a decoder cannot place them on the scheduler's switches.
 * The sched_switch probe (follow.c's, bts_src_switch()) stores a record
 * naming the next task at the index, with BTS paused around it so the
 * CPU's records and ours never share an index; the start IPI stores one
 * for the task it interrupted.  Streaming drains what the record fills
 * (the CPU raises no PMI for it); a switch record that finds the ring
 * full is dropped and counted like a branch.
 *
 * PEBS after START (ds_area.c): perf's PEBS also stores through
 * IA32_DS_AREA.  START refuses while IA32_PEBS_ENABLE is set; a PEBS
 * event perf schedules here later finds our area, whose PEBS fields
 * describe a scratch buffer.  BTS then yields (bts_pebs_yield()): off,
 * the records so far kept, IA32_DS_AREA back to what START found (perf's
 * area, so its PEBS records reach it again), PT_STATUS_TAKEN_OVER, and
 * in streaming a PT_LOSS_TAKEN_OVER record, then EIO after the data as
 * for a PT trace taken over.  Checked where the source already stops
 * BTS: the scratch buffer's threshold PMI (its first record), the
 * sched_switch probe (IA32_PEBS_ENABLE is still the outgoing task's
 * there; registered for every BTS configuration where PEBS exists), the
 * streaming PMI, a status and STOP.
 *
 * PTI: the CPU writes a record through the DS area's linear addresses
 * as the branch retires, and under PTI the user page tables, which stay
 * loaded from user code into the kernel's entry code and again from the
 * exit code's CR3 switch to the return, do not map the driver's buffer.
 * Kernel-only BTS does not avoid it: the interrupt, exception or SYSCALL
 * that enters from user mode lands at CPL 0 and is recorded under the
 * user CR3, as are the entry code's branches before its CR3 switch and
 * the exit code's after it; the store faults inside the entry code.
 * perf keeps its own DS buffers in the cpu_entry_area, which the user
 * page tables map (ds.c), and has not found a way for intel_bts: it does
 * not register that PMU under PTI.  Every BTS configuration is refused
 * under PTI (SET_CONFIG and START).
 */
#include <linux/build_bug.h>
#include <linux/capability.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/errno.h>
#include <linux/irq_work.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/nmi.h>
#include <linux/preempt.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <asm/cpufeature.h>
#include <asm/nmi.h>
#include <asm/processor.h>
#include <linux/pt_trace.h>

#include "buffer.h"
#include "bts_caps.h"
#include "bts_regs.h"
#include "core.h"
#include "ds_area.h"
#include "follow.h"
#include "hw.h"
#include "ownership.h"
#include "source.h"
#include "stream.h"

/* The most a streaming DS buffer holds: the PMI's copy stays short. */
#define BTS_STREAM_DS_MAX	SZ_64K

struct bts_cpu {
	struct bts_ds ds;
	struct pt_account ds_acct;	/* the DS memory, charged (account.c) */
	bool armed;		/* a stream session: threshold PMIs are ours */
	bool busy;		/* an IPI works on it: the NMI leaves it */
	bool pmi_taken;		/* ... and the NMI came meanwhile */
	bool on;		/* our DEBUGCTL bits are set */
	bool switches;		/* a switch record at each context switch */
	u64 nr_switches;	/* switch records stored (debugfs) */
	u64 bits;		/* ... these (TR, BTS, BTINT, BTS_OFF_*) */
	u64 saved_ds_area;	/* IA32_DS_AREA as START found it */
	bool saved;
	/* Streaming: records dropped for lack of room, not yet recorded. */
	bool dropping;
	u64 drop_pos, drop_bytes, drop_ns, drop_tsc;
	/* The IPIs' results. */
	int ret;
	bool foreign;
	u64 found;		/* DEBUGCTL found with TR or BTS */
	bool pebs_found;
	u64 pebs;		/* IA32_PEBS_ENABLE found set */
	/* PEBS appeared while tracing: BTS gave IA32_DS_AREA back. */
	bool pebs_gone;
	bool pebs_scratch;	/* ... a PEBS record reached our area */
	bool pebs_logged;
	/* The NMI turned BTS off for PEBS: the rest of the yield is due. */
	bool yield_due;
	struct irq_work yield_work;	/* ... done here (bts_yield_later()) */
	bool wrapped;		/* flight: records were overwritten */
};

static struct bts_cpu *bts_cpus_state;
/* The core's BTS CPUs, bts_pcs[i].bts == &bts_cpus_state[i]. */
static struct pt_cpu *bts_pcs;
static unsigned int bts_npcs;

static void bts_put_switch(struct pt_cpu *pc, struct task_struct *next,
			   bool sched);

/* Under PTI: -EOPNOTSUPP and a log line saying why and what to do. */
static int bts_refused_pti(void)
{
	if (!bts_pti())
		return 0;
	pr_notice_ratelimited("BTS refused: page table isolation (PTI) is on, and the CPU stores each record through the kernel's linear addresses, which the user page tables do not map from a kernel entry until its CR3 switch (perf's intel_bts is not available under PTI either); use /dev/ptN, or boot with pti=off where the CPU is not affected by Meltdown\n");
	return -EOPNOTSUPP;
}

static void bts_src_defaults(struct pt_trace_config *cfg, u64 *ctl)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
	cfg->output = PT_OUTPUT_AUTO;
	cfg->mode = PT_MODE_FLIGHT;
	/* What can be traced here (nothing under PTI: bts_refused_pti()). */
	if (!bts_caps.cpl_filter)
		cfg->ctl = PT_CTL_OS | PT_CTL_USER;
	else
		cfg->ctl = PT_CTL_USER;
	*ctl = cfg->ctl;
}

/* DEBUGCTL's BTS bits for configuration @ctl (PT_CTL_OS/USER). */
static u64 bts_debugctl_bits(u64 ctl, bool stream)
{
	u64 v = BTS_DEBUGCTL_TR | BTS_DEBUGCTL_BTS;

	if (stream)
		v |= BTS_DEBUGCTL_BTINT;
	if (!(ctl & PT_CTL_OS))
		v |= BTS_DEBUGCTL_OFF_OS;
	if (!(ctl & PT_CTL_USER))
		v |= BTS_DEBUGCTL_OFF_USR;
	return v;
}

static int bts_src_check_config(struct pt_cpu *pc,
				const struct pt_trace_config *cfg, u64 *ctl)
{
	u64 size = pt_core_cfg_buffer_size(cfg);
	unsigned int i;
	int ret;

	/* The whole CPU's branches, with no filter to narrow them. */
	if (!perfmon_capable())
		return -EPERM;
	if (cfg->output != PT_OUTPUT_AUTO || cfg->cr3_match)
		return -EINVAL;
	for (i = 0; i < PT_TRACE_MAX_ADDR_RANGES; i++)
		if (cfg->addr[i].start || cfg->addr[i].end)
			return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(cfg->reserved); i++)
		if (cfg->reserved[i])
			return -EINVAL;
	if (!(cfg->ctl & (PT_CTL_OS | PT_CTL_USER)) ||
	    (cfg->ctl & ~(PT_CTL_OS | PT_CTL_USER | PT_BTS_CTL_SWITCHES)))
		return -EINVAL;
	if (cfg->mode != PT_MODE_FLIGHT && cfg->mode != PT_MODE_STREAM)
		return -EINVAL;
	if (cfg->mode == PT_MODE_STREAM) {
		if (size < 2 * PAGE_SIZE || cfg->watermark > size)
			return -EINVAL;
	} else if (cfg->watermark) {
		return -EINVAL;
	}
	/* After the checks above: bad input is EINVAL with or without PTI. */
	ret = bts_refused_pti();
	if (ret)
		return ret;
	if ((cfg->ctl & (PT_CTL_OS | PT_CTL_USER)) !=
	    (PT_CTL_OS | PT_CTL_USER) && !bts_caps.cpl_filter) {
		pr_notice_ratelimited("BTS: this CPU has no DS-CPL (CPUID.1:ECX[4]): it records user and kernel branches together; configure both (PT_CTL_OS | PT_CTL_USER)\n");
		return -EOPNOTSUPP;
	}
	*ctl = cfg->ctl;
	return 0;
}

/*
 * Switch records come from the scheduler's tracepoint, and where PEBS
 * exists its probe also looks for another agent's PEBS: registered now.
 */
static int bts_src_config_hooks(const struct pt_trace_config *cfg)
{
	if (cfg->ctl & PT_BTS_CTL_SWITCHES)
		return pt_follow_probes();
	/* Without the probe PEBS is found at its PMI, a status or STOP. */
	if (bts_caps.pebs && pt_follow_probes())
		pr_notice_ratelimited("BTS: no sched_switch probe: perf's PEBS starting on a traced CPU is noticed at its first record's PMI, a status or STOP only\n");
	return 0;
}

static int bts_src_may_start(struct pt_cpu *pc)
{
	if (!perfmon_capable())
		return -EPERM;
	/* A fresh open's configuration was never checked. */
	return bts_refused_pti();
}

/* The DS buffer for this session's mode and ring size (bytes). */
static u64 bts_ds_bytes(const struct pt_cpu *pc)
{
	u64 size = pc->buf->size;

	if (pc->cfg.mode == PT_MODE_STREAM)
		return min_t(u64, size / 4, BTS_STREAM_DS_MAX);
	return min_t(u64, size, pt_buffer_max_contig());
}

/* The DS memory freed and its charge given back. */
static void bts_ds_drop(struct bts_cpu *b)
{
	bts_ds_free(&b->ds);
	pt_account_uncharge(&b->ds_acct);
}

static int bts_src_prepare(struct pt_cpu *pc, struct pt_hw_args *a)
{
	struct bts_cpu *b = pc->bts;
	bool stream = pc->cfg.mode == PT_MODE_STREAM;
	u64 bytes = bts_ds_bytes(pc);
	int ret;

	/* Stopped: the CPU no longer writes the old one (core.c). */
	if (b->ds.area && b->ds.nr_records != div_u64(bytes, BTS_RECORD_SIZE))
		bts_ds_drop(b);
	if (!b->ds.area) {
		ret = bts_ds_alloc(&b->ds, bytes, cpu_to_node(pc->cpu));
		if (ret)
			return ret;
		/*
		 * Pinned as the ring is, and as large in flight mode: charged
		 * to the caller the same way (its buffer and its area).
		 */
		ret = pt_account_charge(&b->ds_acct, (1UL << b->ds.order) +
					 (1UL << BTS_DS_AREA_ORDER));
		if (ret) {
			bts_ds_free(&b->ds);
			return ret;
		}
	}
	bts_ds_arm(&b->ds, stream ? b->ds.nr_records / 2 :
				    b->ds.nr_records);
	b->dropping = false;
	b->wrapped = false;
	b->foreign = false;
	b->pebs_found = false;
	WRITE_ONCE(b->pebs_gone, false);
	b->pebs_scratch = false;
	b->pebs_logged = false;
	if (stream) {
		pt_stream_ring_reset(pc);
		/* Every record the driver drops is counted. */
		pc->stream.lost_known = true;
		/* From here the threshold PMI is ours. */
		WRITE_ONCE(b->armed, true);
	}
	a->ctl = bts_debugctl_bits(pc->ctl, stream);
	return 0;
}

static void bts_busy(struct bts_cpu *b, bool busy)
{
	barrier();
	if (busy)
		WRITE_ONCE(b->pmi_taken, false);
	WRITE_ONCE(b->busy, busy);
	barrier();
}

/*
 * In a bracket, outside the NMI, about to drain: an index at the
 * threshold raised a PMI (the CPU raises one as a record reaches it; our
 * switch records drain before they could leave it there).  Unless its
 * NMI came during this bracket (pmi_taken), it is still on its way and
 * will find nothing to do; the APIC masked LVTPC on its delivery all the
 * same, and nobody else unmasks it (perf's handler only when perf has
 * events): so it is owed, and claimed and re-armed as PT's late PMI is
 * (stream.h, pt_stream_pmi_owe()).  Shown by tests/vm/bts_pmi_owed.
 */
static void bts_owe(struct pt_cpu *pc)
{
	struct bts_cpu *b = pc->bts;

	if (READ_ONCE(b->armed) && !READ_ONCE(b->pmi_taken) &&
	    bts_ds_due(&b->ds))
		pt_stream_pmi_owe(&pc->stream);
}

static void bts_src_owed(struct pt_cpu *pc, bool sched);

static void bts_start_ipi(void *info)
{
	struct pt_cpu *pc = info;
	struct bts_cpu *b = pc->bts;
	u64 cur;
	int ret;

	bts_busy(b, true);
	ret = pt_rdmsr(BTS_MSR_DEBUGCTL, &cur);
	if (ret)
		goto out;
	if (cur & (BTS_DEBUGCTL_TR | BTS_DEBUGCTL_BTS)) {
		b->foreign = true;
		b->found = cur;
		ret = -EBUSY;
		goto out;
	}
	/*
	 * PEBS counting here stores its records through IA32_DS_AREA too:
	 * ours has no PEBS buffer, so perf's samples (which it drains from
	 * its own area) would be lost.  perf's own state is not exported;
	 * the MSR says it.  A read that fails: no PEBS to share with.
	 * perf writes the MSR at its events' sched-in, so this sees
	 * CPU-wide PEBS and a per-task one only while its task runs here.
	 */
	if (bts_caps.pebs && !pt_rdmsr(BTS_MSR_PEBS_ENABLE, &b->pebs) &&
	    b->pebs) {
		b->pebs_found = true;
		ret = -EBUSY;
		goto out;
	}
	ret = pt_rdmsr(BTS_MSR_DS_AREA, &b->saved_ds_area);
	ret = ret ?: pt_wrmsr(BTS_MSR_DS_AREA, bts_ds_msr(&b->ds));
	if (ret)
		goto out;
	b->saved = true;
	/* The records from here on are the interrupted task's. */
	b->switches = !!(pc->ctl & PT_BTS_CTL_SWITCHES);
	if (b->switches)
		bts_put_switch(pc, current, false);
	/* Whatever masked LVTPC before us, our next PMI must get through. */
	if (READ_ONCE(b->armed) && pt_hw->pmi_rearm)
		pt_hw->pmi_rearm();
	ret = pt_wrmsr(BTS_MSR_DEBUGCTL,
		       (cur & ~BTS_DEBUGCTL_BTS_BITS) | b->bits);
	if (ret) {
		pt_wrmsr(BTS_MSR_DS_AREA, b->saved_ds_area);
		b->saved = false;
		b->switches = false;
	} else {
		b->on = true;
	}
out:
	bts_busy(b, false);
	b->ret = ret;
	if (!ret)
		bts_src_owed(pc, false);
}

static int bts_src_start(struct pt_cpu *pc, struct pt_hw_args *a)
{
	struct bts_cpu *b = pc->bts;
	int ret;

	b->bits = a->ctl;
	ret = smp_call_function_single(pc->cpu, bts_start_ipi, pc, 1);
	ret = ret ?: b->ret;
	if (b->foreign)
		pr_notice_ratelimited("CPU %u: BTS is already in use (IA32_DEBUGCTL %#llx has TR/BTS set), by perf's intel_bts, perf branch sampling or a debugger: START refused; end that session and START again\n",
				      pc->cpu, b->found);
	if (b->pebs_found)
		pr_notice_ratelimited("CPU %u: perf's PEBS is sampling here (IA32_PEBS_ENABLE %#llx) and would store its records through BTS's DS area: START refused; end the perf session using precise events (:p, :pp) on this CPU and START again\n",
				      pc->cpu, b->pebs);
	if (!ret)
		pc->hw_ctl = a->ctl;
	return ret;
}

static void bts_src_disarm(struct pt_cpu *pc)
{
	WRITE_ONCE(pc->bts->armed, false);
}

/*
 * Clear exactly our DEBUGCTL bits (@resume: set them again).  A failed
 * write leaves BTS storing into our buffer: the core keeps it (stuck).
 */
static void bts_hw_set(struct bts_cpu *b, bool on)
{
	u64 cur;

	if (pt_rdmsr(BTS_MSR_DEBUGCTL, &cur)) {
		if (!on)
			pt_hw_note_stuck();
		return;
	}
	cur &= ~BTS_DEBUGCTL_BTS_BITS;
	if (on)
		cur |= b->bits;
	if (pt_wrmsr(BTS_MSR_DEBUGCTL, cur)) {
		if (!on)
			pt_hw_note_stuck();
		return;
	}
	b->on = on;
	/* The records stored before the write are visible to the copy. */
	wmb();
}

/* Streaming: the dropped records so far become one loss record. */
static void bts_drop_close(struct pt_cpu *pc)
{
	struct bts_cpu *b = pc->bts;

	if (!b->dropping)
		return;
	b->dropping = false;
	pc->stream.lost_ns += pt_stream_ring_loss(pc, b->drop_pos,
						  b->drop_bytes,
						  PT_LOSS_NO_SPACE,
						  b->drop_ns, b->drop_tsc) -
			      b->drop_ns;
}

/*
 * Streaming, BTS off: copy the stored records into the ring, oldest
 * first, drop (and count) what does not fit, rewind the index and
 * publish.  Traced CPU, IRQs off or NMI; @sched: in the scheduler's
 * switch probe, the runqueue locked (readers woken from irq_work).
 */
static void __bts_drain(struct pt_cpu *pc, bool sched)
{
	struct bts_cpu *b = pc->bts;
	u64 n = bts_ds_count(&b->ds), fit, lost;

	if (!n)
		return;
	fit = min(n, div_u64(pt_stream_ring_room(pc), BTS_RECORD_SIZE));
	if (fit) {
		/* What was dropped before came before these. */
		bts_drop_close(pc);
		pt_stream_ring_write(pc, b->ds.buf, fit * BTS_RECORD_SIZE);
	}
	lost = n - fit;
	if (lost) {
		if (!b->dropping) {
			b->dropping = true;
			b->drop_pos = pc->stream.head;
			b->drop_bytes = 0;
			b->drop_ns = pt_stream_now_ns();
			b->drop_tsc = rdtsc();
		}
		b->drop_bytes += lost * BTS_RECORD_SIZE;
	}
	bts_ds_rewind(&b->ds);
	if (sched)
		pt_stream_ring_publish_later(pc);
	else
		pt_stream_ring_publish(pc);
}

static void bts_drain(struct pt_cpu *pc)
{
	__bts_drain(pc, false);
}

static void bts_hw_restore(struct bts_cpu *b);

/*
 * Another agent's PEBS here since START (ds_area.c): a record in our
 * scratch PEBS buffer, or, with @msr, IA32_PEBS_ENABLE set (perf sets it
 * at its PEBS events' sched-in).  @msr false in the NMI: memory only.
 */
static bool bts_pebs_appeared(struct bts_cpu *b, bool msr)
{
	u64 v;

	if (!bts_caps.pebs)
		return false;
	if (bts_ds_pebs_stored(&b->ds))
		return true;
	if (!msr || pt_rdmsr(BTS_MSR_PEBS_ENABLE, &v) || !v)
		return false;
	b->pebs = v;
	return true;
}

/*
 * BTS off (in a bracket), PEBS appeared: give IA32_DS_AREA back so that
 * the other agent's PEBS records reach its own area again, and end the
 * trace there.  Streaming: the records so far drained, then a
 * PT_LOSS_TAKEN_OVER record at the end (no byte lost: BTS stores
 * nothing from here) and the stream in error (read(2): EIO after the
 * data, poll EPOLLERR), as a PT trace taken over.  Flight: the records
 * stay in the DS buffer for STOP's copy.  Never turned on again in this
 * session (bts_hw_resume()).  @sched as for __bts_drain().
 */
static void bts_pebs_yield(struct pt_cpu *pc, bool sched)
{
	struct bts_cpu *b = pc->bts;
	struct pt_stream *s = &pc->stream;

	b->pebs_scratch = bts_ds_pebs_stored(&b->ds);
	b->switches = false;
	WRITE_ONCE(b->pebs_gone, true);
	if (pc->cfg.mode == PT_MODE_STREAM) {
		/*
		 * A threshold PMI raised before BTS went off and not yet
		 * taken finds the index drained and the source disarmed:
		 * owed, as at a stop (bts_owe()).  In the NMI it is this one.
		 */
		if (!in_nmi())
			bts_owe(pc);
		__bts_drain(pc, sched);
		bts_drop_close(pc);
		pt_stream_ring_loss(pc, s->head, 0, PT_LOSS_TAKEN_OVER,
				    pt_stream_now_ns(), rdtsc());
		WRITE_ONCE(s->takeovers, s->takeovers + 1);
		WRITE_ONCE(s->taken_over, true);
		WRITE_ONCE(s->error, true);
		WRITE_ONCE(b->armed, false);
		if (sched)
			pt_stream_ring_publish_later(pc);
		else
			pt_stream_ring_publish(pc);
	}
	bts_hw_restore(b);
}

/*
 * In the NMI, PEBS appeared: BTS off, and the rest of the yield (DS_AREA
 * back, the stream's end) left to irq_work.  A PMI that comes while a
 * KVM guest runs on this CPU is handled inside KVM's IRQs-off window:
 * VM exit cleared DEBUGCTL, the NMI runs, and only then does KVM write
 * back the host DEBUGCTL it read before VM entry, our BTS bits with it
 * (vmx_vcpu_run(): update_debugctlmsr()), so what the NMI wrote there is
 * undone.  Had the NMI given IA32_DS_AREA back, BTS would come on again
 * storing through perf's area, whose BTS part is not ours to fill (or
 * not there: a store to address 0).  The irq_work runs once IRQs are
 * on, after KVM's write: it clears our bits again, then yields; KVM's
 * next entry reads DEBUGCTL without them.  Until then BTS stores, if at
 * all, into our own buffer.  Shown by tests/vm/bts_kvm.
 */
static void bts_yield_later(struct bts_cpu *b)
{
	WRITE_ONCE(b->pebs_gone, true);	/* no bracket turns BTS on again */
	WRITE_ONCE(b->yield_due, true);
	irq_work_queue(&b->yield_work);
}

/*
 * The rest of a yield the NMI began, if due: from its irq_work, or from
 * a stop or status IPI that came first.  Traced CPU, IRQs off, busy.
 */
static void bts_yield_finish(struct pt_cpu *pc)
{
	struct bts_cpu *b = pc->bts;

	if (!READ_ONCE(b->yield_due))
		return;
	WRITE_ONCE(b->yield_due, false);
	/* BTS is off since the NMI (b->on false); KVM may have set it. */
	bts_hw_set(b, false);
	bts_pebs_yield(pc, false);
}

static void bts_yield_work(struct irq_work *w)
{
	struct bts_cpu *b = container_of(w, struct bts_cpu, yield_work);

	bts_busy(b, true);
	bts_yield_finish(&bts_pcs[b - bts_cpus_state]);
	bts_busy(b, false);
}

/*
 * The end of a bracket that stopped BTS: on again, unless the hardware
 * is stuck, or PEBS appeared (then it yields instead).
 */
static void bts_hw_resume(struct pt_cpu *pc, bool sched)
{
	struct bts_cpu *b = pc->bts;

	if (pt_core_hw_stuck() || READ_ONCE(b->pebs_gone))
		return;
	if (bts_pebs_appeared(b, true)) {
		/* The streaming PMI's bracket: as in bts_src_nmi(). */
		if (in_nmi())
			bts_yield_later(b);
		else
			bts_pebs_yield(pc, sched);
		return;
	}
	bts_hw_set(b, true);
}

/*
 * BTS off (or not yet on): a switch record to @next at the index, as if
 * the CPU had stored it.  Streaming: a full DS buffer is drained first,
 * and one that reaches the threshold after it (no PMI will come for a
 * record the CPU did not store) too.  Traced CPU, IRQs off; @sched as
 * for __bts_drain().
 */
static void bts_put_switch(struct pt_cpu *pc, struct task_struct *next,
			   bool sched)
{
	struct bts_cpu *b = pc->bts;
	bool stream = pc->cfg.mode == PT_MODE_STREAM;
	struct bts_record rec = {
		.from = PT_BTS_SWITCH_FROM,
		.to = (u64)(u32)task_tgid_nr(next) << 32 |
		      (u32)task_pid_nr(next),
		.flags = PT_BTS_SWITCH,
	};

	WRITE_ONCE(b->nr_switches, b->nr_switches + 1);
	if (stream)
		bts_owe(pc);
	if (!bts_ds_put(&b->ds, &rec, !stream)) {
		__bts_drain(pc, sched);
		bts_ds_put(&b->ds, &rec, false);
	}
	if (stream && bts_ds_due(&b->ds))
		__bts_drain(pc, sched);
}

void bts_src_switch(struct task_struct *next)
{
	struct pt_cpu *pc = pt_core_bts_cpu(smp_processor_id());
	struct bts_cpu *b = pc ? pc->bts : NULL;

	/* Set and cleared by the start and stop IPIs, also IRQs off here. */
	if (!b || !b->on || READ_ONCE(b->busy))
		return;
	/* Without switch records only PEBS brings us here. */
	if (!b->switches && !bts_pebs_appeared(b, true))
		return;
	bts_busy(b, true);
	/* Not the CPU's records and ours at the same index. */
	bts_hw_set(b, false);
	if (!b->on) {
		if (b->switches)
			bts_put_switch(pc, next, true);
		bts_hw_resume(pc, true);
	}
	bts_busy(b, false);
	bts_src_owed(pc, true);
}

/*
 * A threshold PMI's work: BTS off (not our own branches while copying),
 * drain, BTS on.  In its NMI, or late, after a bracket of ours the NMI
 * found held (bts_src_owed()).  @sched as for __bts_drain().  The two
 * DEBUGCTL writes are no BTM and change nothing of what the interrupted
 * code stores next (SDM Vol. 3B 18.7.8.3: TR and BTS store each BTM as
 * it happens); the model's exact mode keeps the task's pending return
 * across them (model.rst, tests/vm/bts_exact in stream mode).
 */
static void bts_serve(struct pt_cpu *pc, bool sched)
{
	struct bts_cpu *b = pc->bts;
	u64 t0 = pt_stream_now_ns();

	WRITE_ONCE(pc->stream.pmis, pc->stream.pmis + 1);
	bts_hw_set(b, false);
	__bts_drain(pc, sched);
	bts_hw_resume(pc, sched);
	WRITE_ONCE(pc->stream.handler_ns, pc->stream.handler_ns +
		   pt_stream_now_ns() - t0);
}

/*
 * After a bracket that turned BTS on (START, a switch record): a
 * threshold PMI taken between the enabling write and the end of the
 * bracket found it held and left the drain (bts_src_nmi()), and the CPU
 * raises no second PMI for an index already past the threshold: without
 * this the DS buffer would fill and the CPU drop records that no loss
 * record counts.  Once is enough: the buffer is empty after it, and the
 * few instructions to the end of this bracket cannot reach a threshold.
 * Shown by tests/vm/bts_pmi_late: the model's model_bts_tail stores, as
 * silicon does, with no NMI of its own and right after the enabling
 * write (its default store NMIs would let bts_src_nmi() serve the index
 * at the next batch and hide the missing drain).
 */
static void bts_src_owed(struct pt_cpu *pc, bool sched)
{
	struct bts_cpu *b = pc->bts;

	if (!READ_ONCE(b->armed) || !b->on || !bts_ds_due(&b->ds))
		return;
	bts_busy(b, true);
	bts_owe(pc);
	bts_serve(pc, sched);
	bts_busy(b, false);
}

static int bts_src_nmi(struct pt_cpu *pc)
{
	struct bts_cpu *b = pc->bts;

	if (!b)
		return NMI_DONE;
	/*
	 * A PEBS record in our scratch buffer: its threshold PMI (the
	 * first record reaches it), or one stored with no PMI.  Yield now.
	 * An IPI or probe of ours at work finds it before turning BTS on.
	 */
	if (b->on && !READ_ONCE(b->busy) && bts_pebs_appeared(b, false)) {
		bts_busy(b, true);
		bts_hw_set(b, false);
		if (!b->on)
			bts_yield_later(b);
		bts_busy(b, false);
		if (pt_hw->pmi_rearm)
			pt_hw->pmi_rearm();
		return NMI_HANDLED;
	}
	/* Nothing to do: a late PMI of ours (bts_owe()), or not ours. */
	if (!READ_ONCE(b->armed) || !bts_ds_due(&b->ds))
		return pt_stream_pmi_owed(&pc->stream) ?
		       pt_stream_pmi_pay(&pc->stream, false) : NMI_DONE;
	/*
	 * An IPI or switch probe of ours is at work: a stop drains, a
	 * bracket that turned BTS on serves the PMI at its end.
	 */
	if (READ_ONCE(b->busy)) {
		WRITE_ONCE(b->pmi_taken, true);
		/* Owed since bts_owe() of this bracket: paid now. */
		if (pt_stream_pmi_owed(&pc->stream))
			return pt_stream_pmi_pay(&pc->stream, false);
	} else {
		bts_serve(pc, false);
	}
	if (pt_hw->pmi_rearm)
		pt_hw->pmi_rearm();
	return NMI_HANDLED;
}

/*
 * Flight, BTS off: the circular buffer's records, oldest first, to the
 * start of the ring.  A wrap shows as a record past the index: the
 * buffer was zeroed at START and a record's source is never 0.
 */
static void bts_flight_copy(struct pt_cpu *pc)
{
	struct bts_cpu *b = pc->bts;
	const struct bts_ds *ds = &b->ds;
	u64 n = bts_ds_count(ds);
	struct pt_stream *s = &pc->stream;

	b->wrapped = n < ds->nr_records && bts_ds_rec(ds, n)->from;
	s->head = 0;
	if (b->wrapped)
		pt_stream_ring_write(pc, bts_ds_rec(ds, n),
				     (ds->nr_records - n) * BTS_RECORD_SIZE);
	pt_stream_ring_write(pc, ds->buf, n * BTS_RECORD_SIZE);
}

/* The DS_AREA START found goes back once BTS is off. */
static void bts_hw_restore(struct bts_cpu *b)
{
	if (!b->saved || pt_core_hw_stuck())
		return;
	pt_wrmsr(BTS_MSR_DS_AREA, b->saved_ds_area);
	b->saved = false;
}

static void bts_stop_ipi(void *info)
{
	struct pt_cpu *pc = info;
	struct bts_cpu *b = pc->bts;

	bts_busy(b, true);
	b->switches = false;
	bts_yield_finish(pc);
	if (b->on)
		bts_hw_set(b, false);
	/* PEBS since START: say so (the records are kept either way). */
	if (!READ_ONCE(b->pebs_gone) && bts_pebs_appeared(b, true))
		bts_pebs_yield(pc, false);
	if (pc->cfg.mode == PT_MODE_STREAM) {
		bts_owe(pc);
		bts_drain(pc);
		bts_drop_close(pc);
		pt_stream_ring_publish(pc);
	} else {
		bts_flight_copy(pc);
	}
	bts_hw_restore(b);
	WRITE_ONCE(b->armed, false);
	bts_busy(b, false);
}

/* A flight status: pause, copy, go on with the same buffer. */
static void bts_peek_ipi(void *info)
{
	struct pt_cpu *pc = info;
	struct bts_cpu *b = pc->bts;

	bts_busy(b, true);
	bts_yield_finish(pc);
	/* Off already after a yield: DEBUGCTL is not ours to write then. */
	if (b->on)
		bts_hw_set(b, false);
	bts_flight_copy(pc);
	bts_hw_resume(pc, false);
	bts_busy(b, false);
}

/* What a flight stop or status copied. */
static void bts_account(struct pt_cpu *pc)
{
	pc->head = pc->stream.head;
	pc->offset = pc->head % pc->buf->size;
	pc->status_flags &= ~PT_STATUS_WRAPPED;
	if (pc->bts->wrapped)
		pc->status_flags |= PT_STATUS_WRAPPED;
	if (READ_ONCE(pc->bts->pebs_gone))
		pc->status_flags |= PT_STATUS_TAKEN_OVER;
}

/* Once per session, from a STOP or status after bts_pebs_yield(). */
static void bts_pebs_log(struct pt_cpu *pc)
{
	struct bts_cpu *b = pc->bts;

	if (!READ_ONCE(b->pebs_gone) || b->pebs_logged)
		return;
	b->pebs_logged = true;
	pr_notice_ratelimited("CPU %u: another agent's PEBS (perf's precise events, :p/:pp) began sampling here while BTS traced (%s): BTS stopped and gave IA32_DS_AREA back to it; the trace ends there (PT_STATUS_TAKEN_OVER). STOP, and START again once that perf session ends\n",
			      pc->cpu, b->pebs_scratch ?
			      "a PEBS record reached BTS's DS area" :
			      "IA32_PEBS_ENABLE set");
}

static int bts_src_stop(struct pt_cpu *pc)
{
	u64 t0 = ktime_get_ns();
	int ret;

	ret = smp_call_function_single(pc->cpu, bts_stop_ipi, pc, 1);
	pc->stop_ns = ktime_get_ns() - t0;
	pc->running = false;
	pc->status_flags &= ~PT_STATUS_RUNNING;
	if (pc->cfg.mode == PT_MODE_STREAM) {
		pc->head = pc->stream.head;
		pc->offset = pc->head % pc->buf->size;
		if (READ_ONCE(pc->bts->pebs_gone))
			pc->status_flags |= PT_STATUS_TAKEN_OVER;
	} else {
		bts_account(pc);
	}
	bts_pebs_log(pc);
	pt_core_update_ctrl(pc);
	wake_up_interruptible_all(&pc->stream.wq);
	return ret;
}

static int bts_src_refresh(struct pt_cpu *pc)
{
	int ret = 0;

	if (pc->cfg.mode == PT_MODE_STREAM) {
		pc->head = READ_ONCE(pc->stream.head);
		pc->offset = pc->head % pc->buf->size;
		bts_pebs_log(pc);
		return 0;
	}
	ret = smp_call_function_single(pc->cpu, bts_peek_ipi, pc, 1);
	bts_account(pc);
	bts_pebs_log(pc);
	pt_core_update_ctrl(pc);
	return ret;
}

/* CPUID.1's DS and DS-CPL on this CPU: the boot CPU's? */
static bool bts_src_cpu_agrees(unsigned int cpu)
{
	struct pt_cpuid_regs r;

	pt_cpuid(1, 0, &r);
	if (!!(r.edx & BTS_CPUID1_EDX_DS) == bts_caps.ds &&
	    !!(r.ecx & BTS_CPUID1_ECX_DS_CPL) == bts_caps.cpl_filter)
		return true;
	pr_warn("CPU %u: its BTS capabilities (CPUID.1 DS, DS-CPL) differ from the boot CPU's: START refused there (EOPNOTSUPP)\n",
		cpu);
	return false;
}

static void bts_src_get_caps(struct pt_cpu *pc, struct pt_trace_caps *c)
{
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	c->abi_version = PT_TRACE_ABI_VERSION;
	c->backend = pt_hw->backend;
	c->cpu = pc->cpu;
	c->max_buffer_size = pt_buffer_max_size();
	c->min_buffer_size = PT_BUF_MIN_SIZE;
	c->family = boot_cpu_data.x86;
	c->model = boot_cpu_data.x86_model;
	c->stepping = boot_cpu_data.x86_stepping;
}

/*
 * perf's intel_bts is reserved from the first START to the last close
 * or the CPU's offline (ownership_bts.c); perf's other BTS use shows in
 * DEBUGCTL, which START checks.
 */
static int bts_src_reserve(unsigned int cpu)
{
	return bts_own_start(cpu);
}

static void bts_src_release(struct pt_cpu *pc)
{
	struct bts_cpu *b = pc->bts;

	bts_own_release(pc->cpu);

	/* A failed disabling write: the CPU may still store into it. */
	if (pc->kept)
		return;
	bts_ds_drop(b);
}

/* perf detaches the reservation from a CPU going down: a new one later. */
static void bts_src_offline(struct pt_cpu *pc)
{
	bts_own_release(pc->cpu);
}

const struct pt_source_ops pt_source_bts = {
	.name = "bts",
	.label = "BTS",
	.defaults = bts_src_defaults,
	.check_config = bts_src_check_config,
	.config_hooks = bts_src_config_hooks,
	.may_start = bts_src_may_start,
	.prepare = bts_src_prepare,
	.start = bts_src_start,
	.disarm = bts_src_disarm,
	.stop = bts_src_stop,
	.refresh = bts_src_refresh,
	.nmi = bts_src_nmi,
	.cpu_agrees = bts_src_cpu_agrees,
	.get_caps = bts_src_get_caps,
	.reserve = bts_src_reserve,
	.release = bts_src_release,
	.offline = bts_src_offline,
};

/*
 * /sys/kernel/debug/pt_trace/bts: streaming counters per CPU (the
 * benchmark's driver time is handler_ns) and the switch records stored
 * since load.
 */

static int bts_stats_show(struct seq_file *m, void *v)
{
	unsigned int i;

	seq_puts(m, "cpu pmis bytes losses lost_bytes handler_ns switches late_pmis\n");
	for (i = 0; i < bts_npcs; i++) {
		struct pt_stream *s = &bts_pcs[i].stream;

		if (!cpu_possible(i))
			continue;
		seq_printf(m, "%u %llu %llu %llu %llu %llu %llu %llu\n", i,
			   READ_ONCE(s->pmis), READ_ONCE(s->bytes),
			   READ_ONCE(s->losses), READ_ONCE(s->lost_bytes),
			   READ_ONCE(s->handler_ns),
			   READ_ONCE(bts_pcs[i].bts->nr_switches),
			   READ_ONCE(s->late_pmis));
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(bts_stats);

int bts_src_init(struct pt_cpu *pcs, unsigned int n)
{
	unsigned int i;

	/* The uapi's record is the hardware's. */
	BUILD_BUG_ON(sizeof(struct bts_record) != PT_BTS_RECORD_SIZE ||
		     sizeof(struct pt_trace_bts_record) != BTS_RECORD_SIZE);
	bts_cpus_state = kcalloc(n, sizeof(*bts_cpus_state), GFP_KERNEL);
	if (!bts_cpus_state)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		pcs[i].bts = &bts_cpus_state[i];
		init_irq_work(&bts_cpus_state[i].yield_work, bts_yield_work);
	}
	bts_pcs = pcs;
	bts_npcs = n;
	debugfs_create_file("bts", 0400, pt_debugfs_root, NULL,
			    &bts_stats_fops);
	return 0;
}

/* No file is open: every DS buffer was freed at its last close. */
void bts_src_exit(struct pt_cpu *pcs, unsigned int n)
{
	unsigned int i;

	debugfs_lookup_and_remove("bts", pt_debugfs_root);
	for (i = 0; i < n; i++)
		irq_work_sync(&bts_cpus_state[i].yield_work);
	bts_pcs = NULL;
	bts_npcs = 0;
	for (i = 0; i < n; i++)
		pcs[i].bts = NULL;
	kfree(bts_cpus_state);
	bts_cpus_state = NULL;
}
