// SPDX-License-Identifier: GPL-2.0
/*
 * The per-CPU tracing core.
 *
 * MSR programming sequence (SDM Vol. 3C, 36.2.7; the same on silicon and
 * on the model, always on the traced CPU through smp_call_function_single
 * and always under pt_cpu.lock):
 *
 *  start: read RTIT_CTL and refuse if TraceEn is already set (another
 *         owner) or if VMX operation forbids it (caps.h); save the
 *         other PT MSRs as found (see pt_hw_save()); then, with
 *         TraceEn=0, write OUTPUT_BASE,
 *         OUTPUT_MASK_PTRS, CR3_MATCH (only when CPUID lists the CR3
 *         filter), ADDRn_A/ADDRn_B (only for the ranges CPUID lists) and
 *         RTIT_STATUS = 0 (each START begins a new trace: stale Stopped,
 *         Error and the PSB byte count are cleared); RTIT_CTL with TraceEn
 *         is written last.
 *  stop:  write RTIT_CTL with the same value minus TraceEn (the only bit
 *         that may change while tracing), which makes the hardware flush
 *         its packets; wmb() so they are globally visible before the
 *         buffer is read; then read STATUS, OUTPUT_BASE and MASK_PTRS,
 *         and write back the MSRs saved at start.
 *
 * Every value written has been validated beforehand (rtit_ctl.c,
 * buffer.c), so no write can #GP.  Configuration only changes while
 * stopped.
 */
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cred.h>
#include <linux/debugfs.h>
#include <linux/capability.h>
#include <linux/err.h>
#include <linux/kmemleak.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/notifier.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/reboot.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/suspend.h>
#include <asm/cpufeature.h>
#include <asm/page.h>

#include "buffer.h"
#include "caps.h"
#include "compat.h"
#include "core.h"
#include "hw.h"
#include "ownership.h"
#include "pmi.h"
#include "regs.h"
#include "rtit_ctl.h"
#include "stream.h"

static unsigned long long buf_size = 4ULL << 20;
module_param(buf_size, ullong, 0644);
MODULE_PARM_DESC(buf_size,
		 "default per-CPU trace buffer size in bytes (default 4 MiB)");

static DEFINE_PER_CPU(struct pt_cpu, pt_cpus);
static enum cpuhp_state pt_cpuhp_state;

/* The newest bytes checked for the wrap heuristic (see pt_wrapped()). */
#define PT_WRAP_WINDOW		PAGE_SIZE

/* CR3 bits the PTI user page tables and the user PCID set. */
#define PT_CR3_PTI_USER_PGTABLE	BIT_ULL(12)
#define PT_CR3_PTI_USER_PCID	BIT_ULL(11)

struct pt_cpu *pt_core_cpu(unsigned int cpu)
{
	if (cpu >= nr_cpu_ids || !cpu_possible(cpu))
		return NULL;
	return per_cpu_ptr(&pt_cpus, cpu);
}

/* The linear-address width ADDRn_A/B are canonical for (LA57: 57). */
static unsigned int pt_virt_bits(void)
{
	return boot_cpu_data.x86_virt_bits;
}

static void pt_default_config(struct pt_trace_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
	cfg->output = PT_OUTPUT_AUTO;
	cfg->mode = PT_MODE_FLIGHT;
	cfg->ctl = PT_CTL_BRANCHEN | PT_CTL_USER;
}

static u64 pt_cfg_buffer_size(const struct pt_trace_config *cfg)
{
	return cfg->buffer_size ? cfg->buffer_size : buf_size;
}

/* Streaming needs ToPA (INT and STOP): AUTO means ToPA there. */
static unsigned int pt_cfg_output(const struct pt_trace_config *cfg)
{
	if (cfg->mode == PT_MODE_STREAM && cfg->output == PT_OUTPUT_AUTO)
		return PT_OUTPUT_TOPA;
	return cfg->output;
}

/*
 * Set while a suspend, hibernation or reboot is under way: every trace
 * has been stopped and START fails (see pt_core_freeze()).
 */
static bool pt_frozen;

/* ---- The hardware sequence, on the target CPU (IRQs off) ---- */

struct pt_hw_args {
	struct pt_cpu *pc;
	u64 base, mask, ctl;
	u64 status;
	u64 laps;		/* ToPA flight: wraps counted by the PMI */
	bool wrapped;		/* flight: the zeroed window was written */
	int ret;
	bool vmx;		/* refused: VMX operation (caps.h) */
	bool foreign;		/* refused: TraceEn already set */
	enum pt_hw_holder holder;	/* at stop or peek */
	u64 found_ctl;		/* ... to this RTIT_CTL */
};

enum pt_hw_holder pt_core_hw_holder(struct pt_cpu *pc, u64 ctl)
{
	struct pt_buffer *buf = pc->buf;
	u64 cur, base;
	bool ours;

	ctl &= ~PT_CTL_TRACEEN;
	if (pt_rdmsr(PT_MSR_RTIT_CTL, &cur) ||
	    pt_rdmsr(PT_MSR_RTIT_OUTPUT_BASE, &base))
		return PT_HW_FOREIGN;
	ours = buf->output == PT_OUTPUT_SINGLE ? base == buf->chunks[0].phys :
						 pt_topa_owns_base(&buf->topa, base);
	if (!ours)
		return PT_HW_FOREIGN;
	if (cur == (ctl | PT_CTL_TRACEEN))
		return PT_HW_OURS;
	return cur == ctl ? PT_HW_CLEARED : PT_HW_FOREIGN;
}

/* NMI-safe (pt_hw->vmx_on). */
bool pt_core_vmx_blocks_trace(void)
{
	return pt_caps.vmx_blocks_trace && pt_hw->vmx_on();
}

/*
 * Leave the PT MSRs as we found them.  perf's intel_pt caches, per CPU,
 * what it last wrote to OUTPUT_BASE, OUTPUT_MASK_PTRS and ADDRn_A/B and
 * skips a write that would not change the cached value; our START
 * writes them behind its back, so if we left our values there (our ToPA
 * table, freed at close) a later perf start on this CPU could keep our
 * OUTPUT_BASE and make the hardware write through freed memory.  STATUS
 * too: perf clears it only on an event's first start, and a Stopped or
 * Error bit left by us would silence its trace.  So START saves them
 * (TraceEn=0, a read-back value is always writable) and the final stop
 * writes them back, after reading our own pointers.
 */
static int pt_hw_save(struct pt_cpu *pc)
{
	struct pt_hw_saved *sv = &pc->saved;
	unsigned int n;
	int ret;

	ret = pt_rdmsr(PT_MSR_RTIT_OUTPUT_BASE, &sv->base);
	ret = ret ?: pt_rdmsr(PT_MSR_RTIT_OUTPUT_MASK, &sv->mask);
	ret = ret ?: pt_rdmsr(PT_MSR_RTIT_STATUS, &sv->status);
	if (pt_cap(&pt_caps, PT_CAP_CR3_FILTER))
		ret = ret ?: pt_rdmsr(PT_MSR_RTIT_CR3_MATCH, &sv->cr3_match);
	for (n = 0; n < pt_caps.num_addr_ranges; n++) {
		ret = ret ?: pt_rdmsr(PT_MSR_RTIT_ADDR_A(n), &sv->addr[n][0]);
		ret = ret ?: pt_rdmsr(PT_MSR_RTIT_ADDR_B(n), &sv->addr[n][1]);
	}
	sv->valid = !ret;
	return ret;
}

/* A disabling WRMSR failed on this CPU: see pt_hw_stuck_on(). */
static DEFINE_PER_CPU(bool, pt_hw_stuck);

/* TraceEn is 0 here (we stopped, or never started), unless stuck. */

void pt_core_hw_restore(struct pt_cpu *pc)
{
	struct pt_hw_saved *sv = &pc->saved;
	unsigned int n;

	if (!sv->valid)
		return;
	sv->valid = false;
	/* TraceEn is still set: each write would #GP (SDM 36.2.7.2). */
	if (this_cpu_read(pt_hw_stuck))
		return;
	pt_wrmsr(PT_MSR_RTIT_OUTPUT_BASE, sv->base);
	pt_wrmsr(PT_MSR_RTIT_OUTPUT_MASK, sv->mask);
	pt_wrmsr(PT_MSR_RTIT_STATUS, sv->status);
	if (pt_cap(&pt_caps, PT_CAP_CR3_FILTER))
		pt_wrmsr(PT_MSR_RTIT_CR3_MATCH, sv->cr3_match);
	for (n = 0; n < pt_caps.num_addr_ranges; n++) {
		pt_wrmsr(PT_MSR_RTIT_ADDR_A(n), sv->addr[n][0]);
		pt_wrmsr(PT_MSR_RTIT_ADDR_B(n), sv->addr[n][1]);
	}
}

static void pt_hw_start_ipi(void *info)
{
	struct pt_hw_args *a = info;
	const struct pt_trace_config *cfg = &a->pc->cfg;
	unsigned int n;
	u64 ctl;
	int ret;

	pt_stream_ipi_enter(a->pc);
	ret = pt_rdmsr(PT_MSR_RTIT_CTL, &ctl);
	if (ret)
		goto out;
	if (ctl & PT_CTL_TRACEEN) {
		a->foreign = true;
		a->found_ctl = ctl;
		ret = -EBUSY;	/* someone else (perf?) is tracing here */
		goto out;
	}
	if (pt_core_vmx_blocks_trace()) {
		a->vmx = true;
		ret = -EBUSY;	/* the WRMSR below would #GP */
		goto out;
	}
	ret = pt_hw_save(a->pc);
	ret = ret ?: pt_wrmsr(PT_MSR_RTIT_OUTPUT_BASE, a->base);
	ret = ret ?: pt_wrmsr(PT_MSR_RTIT_OUTPUT_MASK, a->mask);
	if (pt_cap(&pt_caps, PT_CAP_CR3_FILTER))
		ret = ret ?: pt_wrmsr(PT_MSR_RTIT_CR3_MATCH, cfg->cr3_match);
	for (n = 0; n < pt_caps.num_addr_ranges; n++) {
		ret = ret ?: pt_wrmsr(PT_MSR_RTIT_ADDR_A(n), cfg->addr[n].start);
		ret = ret ?: pt_wrmsr(PT_MSR_RTIT_ADDR_B(n), cfg->addr[n].end);
	}
	ret = ret ?: pt_wrmsr(PT_MSR_RTIT_STATUS, 0);
	/* PMIs counted: no stale ToPA PMI bit from an earlier session. */
	if (cfg->mode == PT_MODE_STREAM || a->pc->stream.lap_pmi)
		ret = ret ?: pt_wrmsr(PT_MSR_PERF_GLOBAL_STATUS_RESET,
				      PT_GLOBAL_STATUS_TOPA_PMI);
	ret = ret ?: pt_wrmsr(PT_MSR_RTIT_CTL, a->ctl | PT_CTL_TRACEEN);
	if (!ret && cfg->mode == PT_MODE_STREAM)
		pt_stream_started(a->pc, a->ctl | PT_CTL_TRACEEN);
	else if (!ret && a->pc->stream.flight)
		pt_flight_started(a->pc, a->ctl | PT_CTL_TRACEEN);
	if (ret)
		pt_core_hw_restore(a->pc);
out:
	pt_stream_ipi_exit(a->pc);
	a->ret = ret;
}

static bool pt_wrapped(struct pt_buffer *buf, u64 offset);

/* Flight: stop (flushed), read, check the wrap window while stopped. */
static void pt_hw_pause(struct pt_hw_args *a, bool live)
{
	struct pt_buffer *buf = a->pc->buf;

	a->ret = pt_flight_pause(a->pc, live, &a->status, &a->base, &a->mask,
				 &a->laps);
	if (!a->ret)
		a->wrapped = pt_wrapped(buf, pt_buffer_offset(buf, a->base,
							      a->mask));
}

static void pt_hw_stop_ipi(void *info)
{
	struct pt_hw_args *a = info;
	enum pt_hw_holder h = pt_core_hw_holder(a->pc, a->ctl);

	a->holder = h;
	/* Another agent's state: not one write more (design.rst). */
	if (h == PT_HW_FOREIGN) {
		a->ret = 0;
		return;
	}
	pt_hw_pause(a, false);
	pt_flight_end(a->pc);
	pt_core_hw_restore(a->pc);
}

/*
 * A status while recording: the pointers are only reliable and the data
 * only in memory with TraceEn off (SDM 36.2.7.7), so pause briefly, as
 * perf's snapshot does, and go on where it stopped.
 */
static void pt_hw_peek_ipi(void *info)
{
	struct pt_hw_args *a = info;

	a->holder = pt_core_hw_holder(a->pc, a->ctl);
	if (a->holder != PT_HW_OURS) {
		a->ret = -EAGAIN;	/* nothing of ours to read */
		return;
	}
	pt_hw_pause(a, true);
	if (a->ret)
		a->status = PT_STATUS_ERROR;
	pt_flight_resume(a->pc, a->status, a->base, a->mask);
}

/* On the CPU whose disabling write failed (any context). */
void pt_hw_note_stuck(void)
{
	this_cpu_write(pt_hw_stuck, true);
}

/*
 * A disabling WRMSR failed on this CPU (hw.h): the hardware may still be
 * writing the buffer, so it is kept (leaked) rather than freed, and the
 * CPU is not traced again until the module is reloaded.  Logged once.
 */
static bool pt_hw_stuck_on(struct pt_cpu *pc)
{
	if (!per_cpu(pt_hw_stuck, pc->cpu))
		return false;
	if (pc->buf && !pc->stuck_logged) {
		pc->stuck_logged = true;
		pr_err("CPU %u: TraceEn could not be cleared; keeping its %llu-byte trace buffer (leaked) because the hardware may still write it; reload the module to trace this CPU again\n",
		       pc->cpu, pc->buf->size);
	}
	return true;
}

/*
 * Hybrid parts: each CPU's CPUID 0x14 must be the boot CPU's, which the
 * driver validated configurations against (pt_caps).  cpuhp online, on
 * the CPU itself.
 */
static bool pt_caps_agree(void)
{
	struct pt_cpuid_raw raw;

	pt_caps_read_raw(&raw);
	return !memcmp(raw.leaf14, pt_caps.raw.leaf14, sizeof(raw.leaf14));
}

/* ---- Bookkeeping ---- */

/*
 * Did the flight recorder wrap?  In a ToPA ring of at least
 * PT_FLIGHT_LAP_PMI_MIN the PMI of the INT on the last region counts the
 * laps (stream.c).  Smaller rings and single range have no INT (an NMI
 * per lap would flood), and the hardware does not say (RTIT_STATUS.PacketByteCnt
 * counts only since the last PSB), so the driver zeroes the last
 * PT_WRAP_WINDOW bytes of the buffer before every start: after a wrap
 * the bytes from the write offset to the end hold trace from the
 * previous lap, without one they are still zero.  PT pads only with
 * single 0x00 bytes, so a window of more than a few bytes of trace is
 * never all zero; the answer can be wrong only when the write offset
 * lies within a few bytes of the end.  Checked while the hardware is
 * paused (flushed).  With lap PMIs the same check backs the count up: a
 * wrap it sees while no lap was counted (every PMI lost) is one lap.
 */
static bool pt_wrapped(struct pt_buffer *buf, u64 offset)
{
	u64 from = max_t(u64, offset, buf->size - PT_WRAP_WINDOW);
	u64 off;

	for (off = from; off < buf->size; off++)
		if (*pt_buffer_ptr(buf, off))
			return true;
	return false;
}

static void pt_clear_wrap_window(struct pt_buffer *buf)
{
	u64 off;

	for (off = buf->size - PT_WRAP_WINDOW; off < buf->size;
	     off += PAGE_SIZE)
		memset((void *)pt_buffer_ptr(buf, off), 0, PAGE_SIZE);
}

/* Publish the state in the control page (data_head last, released). */
static void pt_update_ctrl(struct pt_cpu *pc)
{
	struct pt_buffer *buf = pc->buf;
	struct pt_trace_mmap_page *c;

	if (!buf)
		return;
	c = buf->ctrl;
	WRITE_ONCE(c->version, PT_TRACE_ABI_VERSION);
	WRITE_ONCE(c->size, sizeof(*c));
	WRITE_ONCE(c->data_offset, PAGE_SIZE);
	WRITE_ONCE(c->data_size, buf->size);
	WRITE_ONCE(c->flags, pc->status_flags);
	WRITE_ONCE(c->mode, pc->cfg.mode);
	WRITE_ONCE(c->generation, pc->generation);
	pt_stream_update_ctrl(pc);
	/* While streaming, only the traced CPU moves data_head. */
	if (pc->running && pc->cfg.mode == PT_MODE_STREAM)
		return;
	WRITE_ONCE(c->lost_bytes, READ_ONCE(pc->stream.lost_bytes));
	WRITE_ONCE(c->loss_records, READ_ONCE(pc->stream.losses));
	/* Pairs with the reader's acquire load of data_head. */
	smp_store_release(&c->data_head, pc->head);
}

/* What a stop or a paused status read (the data flushed). */
static void pt_account(struct pt_cpu *pc, const struct pt_hw_args *a)
{
	struct pt_buffer *buf = pc->buf;

	pc->rtit_status = a->status;
	pc->offset = pt_buffer_offset(buf, a->base, a->mask);
	pc->status_flags &= ~(PT_STATUS_WRAPPED | PT_STATUS_HW_STOPPED |
			      PT_STATUS_HW_ERROR);
	if (a->status & PT_STATUS_STOPPED)
		pc->status_flags |= PT_STATUS_HW_STOPPED;
	if (a->status & PT_STATUS_ERROR)
		pc->status_flags |= PT_STATUS_HW_ERROR;
	if (pc->stream.lap_pmi) {
		/* A lap whose PMI never came: at least one. */
		u64 laps = a->laps ?: a->wrapped;

		if (laps)
			pc->status_flags |= PT_STATUS_WRAPPED;
		pc->head = laps * buf->size + pc->offset;
	} else if (a->wrapped) {
		pc->status_flags |= PT_STATUS_WRAPPED;
		pc->head = buf->size + pc->offset;
	} else {
		pc->head = pc->offset;
	}
	pt_update_ctrl(pc);
}

/* Stop on the CPU; pc->lock held, CPU online. */
static int pt_stop_locked(struct pt_cpu *pc)
{
	struct pt_hw_args a = { .pc = pc, .ctl = pc->hw_ctl };
	u64 t0 = ktime_get_ns();
	int ret;

	if (!pc->running)
		return 0;
	if (pc->cfg.mode == PT_MODE_STREAM) {
		ret = smp_call_function_single(pc->cpu, pt_stream_stop_ipi,
					       pc, 1);
		pc->stop_ns = ktime_get_ns() - t0;
		pc->running = false;
		pc->status_flags &= ~(PT_STATUS_RUNNING | PT_STATUS_HW_STOPPED |
				      PT_STATUS_HW_ERROR);
		pc->rtit_status = pc->stream.rtit_status;
		pc->head = pc->stream.head;
		pc->offset = pc->head % pc->buf->size;
		if (pc->stream.taken_over) {
			pc->taken_over = true;
			pc->status_flags |= PT_STATUS_TAKEN_OVER;
		} else if (pc->stream.error) {
			pc->status_flags |= PT_STATUS_HW_ERROR;
		}
		pt_update_ctrl(pc);
		wake_up_interruptible_all(&pc->stream.wq);
		return ret;
	}
	ret = smp_call_function_single(pc->cpu, pt_hw_stop_ipi, &a, 1);
	pc->stop_ns = ktime_get_ns() - t0;
	ret = ret ?: a.ret;
	pc->running = false;
	pc->status_flags &= ~PT_STATUS_RUNNING;
	if (ret)
		return ret;
	if (a.holder != PT_HW_OURS)
		pc->status_flags |= PT_STATUS_TAKEN_OVER;
	if (a.holder == PT_HW_FOREIGN) {
		pc->taken_over = true;
		WRITE_ONCE(pc->stream.armed, false);
		return 0;	/* the pointers are not ours: nothing to account */
	}
	pt_account(pc, &a);
	return 0;
}

/*
 * The last reference of a buffer the hardware may still write (another
 * agent took the trace over, design.rst): kept allocated for good.
 */
static void pt_core_drop_buffer(struct pt_cpu *pc, struct pt_buffer *buf)
{
	if (!buf)
		return;
	if (!pc->taken_over) {
		pt_buffer_put(buf);
		return;
	}
	pr_warn("CPU %u: the trace was taken over by another PT owner: keeping its %llu KiB buffer and ToPA tables allocated (leaked), since the hardware may still write them\n",
		pc->cpu, buf->size >> 10);
	kmemleak_not_leak(buf);
}

/* ---- Open / release ---- */

int pt_core_open(struct pt_cpu *pc)
{
	if (test_and_set_bit(PT_CPU_OPEN, &pc->flags))
		return -EBUSY;
	mutex_lock(&pc->lock);
	pt_default_config(&pc->cfg);
	pc->ctl = pc->cfg.ctl;
	if (pt_caps.quirks & PT_QUIRK_BRANCHEN_ALWAYS_ON)
		pc->ctl |= PT_CTL_BRANCHEN;
	pc->status_flags = pc->online ? 0 : PT_STATUS_CPU_OFFLINE;
	pc->offset = 0;
	pc->head = 0;
	pc->rtit_status = 0;
	pc->started_since_open = false;
	pc->cr3_derived = 0;
	mutex_unlock(&pc->lock);
	return 0;
}

/* The last user is gone (mappings hold the file, so none is left). */
void pt_core_release(struct pt_cpu *pc)
{
	struct mm_struct *mm;
	struct pt_buffer *buf;

	cpus_read_lock();
	mutex_lock(&pc->lock);
	if (pc->running && pc->online)
		pt_stop_locked(pc);
	pc->running = false;
	buf = pc->buf;
	pc->buf = NULL;
	if (buf && pt_hw_stuck_on(pc)) {
		/* Leaked (pt_hw_stuck_on()), still referenced: not kmemleak's. */
		pc->kept = buf;
		buf = NULL;
	}
	mm = pc->cr3_mm;
	pc->cr3_mm = NULL;
	pc->cr3_derived = 0;
	mutex_unlock(&pc->lock);
	cpus_read_unlock();
	if (mm)
		mmdrop(mm);
	/* Nothing may refer to the buffer any more: works, PMIs. */
	pt_stream_quiesce(pc);
	pt_core_drop_buffer(pc, buf);
	pc->taken_over = false;
	clear_bit(PT_CPU_OPEN, &pc->flags);
}

/* ---- Configuration ---- */

void pt_core_get_caps(struct pt_cpu *pc, struct pt_trace_caps *c)
{
	unsigned int i;

	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	c->abi_version = PT_TRACE_ABI_VERSION;
	c->backend = pt_hw->backend;
	c->cpu = pc->cpu;
	c->flags = pt_caps.flags;
	c->quirks = pt_caps.quirks;
	c->num_addr_ranges = pt_caps.num_addr_ranges;
	c->mtc_periods = pt_caps.mtc_periods;
	c->cyc_thresholds = pt_caps.cyc_thresholds;
	c->psb_periods = pt_caps.psb_periods;
	for (i = 0; i < 2; i++) {
		c->cpuid_14[i][0] = pt_caps.raw.leaf14[i].eax;
		c->cpuid_14[i][1] = pt_caps.raw.leaf14[i].ebx;
		c->cpuid_14[i][2] = pt_caps.raw.leaf14[i].ecx;
		c->cpuid_14[i][3] = pt_caps.raw.leaf14[i].edx;
	}
	c->family = pt_caps.family;
	c->model = pt_caps.model;
	c->stepping = pt_caps.stepping;
	c->ctl_valid = pt_caps.ctl_valid;
	c->max_buffer_size = pt_buffer_max_size();
	c->min_buffer_size = PT_BUF_MIN_SIZE;
	/* The backend's answer: on the model, the profile's crystal ratio. */
	c->cpuid_15[0] = pt_caps.raw.leaf15.eax;
	c->cpuid_15[1] = pt_caps.raw.leaf15.ebx;
	c->cpuid_15[2] = pt_caps.raw.leaf15.ecx;
	c->cpuid_15[3] = pt_caps.raw.leaf15.edx;
}

/*
 * Detach the buffer to replace it; pc->lock held, stopped.  Not while it
 * is mapped (maps is counted under pc->lock, see pt_core_get_buffer())
 * or while a read(2) copies from it (read_lock, only tried: readers take
 * it before pc->lock), so a mapping, a status and a control page always
 * describe the current buffer.  The last session's head, offset and
 * counters described the old one: they go with it.
 */
static int pt_drop_buffer(struct pt_cpu *pc)
{
	if (pt_hw_stuck_on(pc))
		return -EIO;
	if (atomic_read(&pc->buf->maps))
		return -EBUSY;
	if (!mutex_trylock(&pc->stream.read_lock))
		return -EBUSY;
	pt_core_drop_buffer(pc, pc->buf);
	pc->buf = NULL;
	mutex_unlock(&pc->stream.read_lock);
	pc->status_flags &= ~(PT_STATUS_CONFIGURED | PT_STATUS_WRAPPED |
			      PT_STATUS_HW_STOPPED | PT_STATUS_HW_ERROR);
	pc->head = 0;
	pc->offset = 0;
	pc->rtit_status = 0;
	pt_stream_clear(pc);
	return 0;
}

/* Validate and commit a whole configuration; pc->lock held. */
static int pt_commit_config(struct pt_cpu *pc, const struct pt_trace_config *cfg)
{
	u64 ctl, size;
	int ret;

	if (pc->running)
		return -EBUSY;
	ret = pt_rtit_ctl_compose(cfg, &pt_caps, pt_virt_bits(), &ctl);
	if (ret)
		return ret;
	/* Tracing the kernel is a privilege, whatever the node's mode. */
	if ((ctl & PT_CTL_NEEDS_PRIV) && !perfmon_capable())
		return -EPERM;
	/* ... and so is a CR3 the driver did not derive (see pt_may_trace()). */
	if ((ctl & PT_CTL_CR3FILTER) && !perfmon_capable() &&
	    (!pc->cr3_derived || cfg->cr3_match != pc->cr3_derived))
		return -EPERM;
	size = pt_cfg_buffer_size(cfg);
	if (cfg->mode == PT_MODE_STREAM) {
		/* INT and STOP need ToPA; the ring needs two regions. */
		if (!pt_cap(&pt_caps, PT_CAP_TOPA))
			return -EOPNOTSUPP;
		if (cfg->output == PT_OUTPUT_SINGLE || size < 2 * PAGE_SIZE ||
		    cfg->watermark > size)
			return -EINVAL;
	} else if (cfg->watermark) {
		return -EINVAL;		/* only meaningful when streaming */
	}
	ret = pt_buffer_check_size(size, pt_cfg_output(cfg), &pt_caps);
	if (ret)
		return ret;
	/* A new size or layout needs a new buffer. */
	if (pc->buf && (pc->buf->size != size ||
			(pt_cfg_output(cfg) != PT_OUTPUT_AUTO &&
			 pt_cfg_output(cfg) != pc->buf->output))) {
		ret = pt_drop_buffer(pc);
		if (ret)
			return ret;
	}
	pc->cfg = *cfg;
	pc->cfg.size = sizeof(pc->cfg);
	pc->ctl = ctl;
	return 0;
}

int pt_core_set_config(struct pt_cpu *pc, const struct pt_trace_config *cfg)
{
	struct pt_trace_config c = *cfg;
	int ret;

	mutex_lock(&pc->lock);
	/*
	 * GET_CONFIG hides a physical address from the unprivileged: the
	 * 0 it shows, set back, means the CR3 the driver derived.
	 */
	if ((c.ctl & PT_CTL_CR3FILTER) && !c.cr3_match && !perfmon_capable())
		c.cr3_match = pc->cr3_derived;
	ret = pt_commit_config(pc, &c);
	mutex_unlock(&pc->lock);
	return ret;
}

void pt_core_get_config(struct pt_cpu *pc, struct pt_trace_config *cfg)
{
	mutex_lock(&pc->lock);
	*cfg = pc->cfg;
	cfg->ctl = pc->ctl;	/* as programmed (BDM106 shows BranchEn) */
	cfg->buffer_size = pt_cfg_buffer_size(&pc->cfg);
	mutex_unlock(&pc->lock);
	/* A physical address: only for the perfmon-capable (as perf). */
	if (!perfmon_capable())
		cfg->cr3_match = 0;
}

/*
 * May the caller trace @task without CAP_PERFMON?  The same thread group,
 * or what ptrace(2) would allow with real credentials (ptrace_may_access()
 * is not exported): the target's real, effective and saved uids and gids
 * all the caller's, a dumpable mm, or CAP_SYS_PTRACE in the target's user
 * namespace.  Stricter than ptrace where an LSM (Yama) would refuse more:
 * a foreign process must also be a descendant of the caller, as under
 * Yama's default ptrace_scope=1.
 */
static bool pt_may_trace(struct task_struct *task, struct mm_struct *mm)
{
	const struct cred *me = current_cred(), *tc;
	struct task_struct *t;
	bool ok;

	if (same_thread_group(task, current))
		return true;
	tc = get_task_cred(task);
	ok = uid_eq(me->uid, tc->uid) && uid_eq(me->uid, tc->euid) &&
	     uid_eq(me->uid, tc->suid) && gid_eq(me->gid, tc->gid) &&
	     gid_eq(me->gid, tc->egid) && gid_eq(me->gid, tc->sgid) &&
	     get_dumpable(mm) == SUID_DUMP_USER;
	if (!ok)
		ok = ns_capable(tc->user_ns, CAP_SYS_PTRACE);
	put_cred(tc);
	if (!ok)
		return false;
	rcu_read_lock();
	for (t = task; t->pid > 0; t = rcu_dereference(t->real_parent))
		if (same_thread_group(t, current))
			break;
	ok = t->pid > 0;
	rcu_read_unlock();
	return ok;
}

/*
 * The CR3 a process runs with, for PT_CR3_BY_PID, derived before
 * pc->lock is taken: the last mmput() of an exiting process runs
 * exit_mmap(), which takes mmap_lock, and mmap takes pc->lock under
 * mmap_lock.  The mm stays grabbed (mmgrab(), not its users) while the
 * filter uses it: its page tables, so the CR3, cannot be freed and
 * reused by another process meanwhile.
 *
 * With PTI the user half of a process runs on the user page tables, one
 * page above the kernel's (bit 12), and with PCID under the user PCID
 * (bit 11); the ASID in bits 2:0 varies per CPU but lies below bit 5,
 * which CR3 filtering ignores.  So user-only tracing matches the user
 * CR3 and anything else the kernel CR3 (pt_cr3_for()): with PTI one CR3
 * filter cannot cover both halves of a process.  With LAM the CR3 also
 * carries bits 61/62.
 */
static int pt_cr3_of_pid(pid_t pid, u64 *pgd, struct mm_struct **mmp)
{
	struct task_struct *task;
	struct mm_struct *mm;
	struct pid *p;
	int ret = 0;

	if (pid < 0)
		return -EINVAL;
	if (pid == 0) {
		task = current;
		get_task_struct(task);
	} else {
		p = find_get_pid(pid);
		if (!p)
			return -ESRCH;
		task = get_pid_task(p, PIDTYPE_PID);
		put_pid(p);
		if (!task)
			return -ESRCH;
	}
	mm = get_task_mm(task);
	if (!mm) {
		put_task_struct(task);
		return -EINVAL;		/* a kernel thread, or exited */
	}
	if (!perfmon_capable() && !pt_may_trace(task, mm))
		ret = -EPERM;
	put_task_struct(task);
	if (!ret) {
		*pgd = __pa(mm->pgd) | pt_mm_lam_cr3_bits(mm);
		mmgrab(mm);
		*mmp = mm;
	}
	mmput(mm);
	return ret;
}

/* The CR3 to match for the page tables at @pgd, given RTIT_CTL's OS/User. */
static u64 pt_cr3_for(u64 pgd, u64 ctl)
{
	if ((ctl & (PT_CTL_OS | PT_CTL_USER)) == PT_CTL_USER &&
	    boot_cpu_has(X86_FEATURE_PTI)) {
		pgd |= PT_CR3_PTI_USER_PGTABLE;
		if (boot_cpu_has(X86_FEATURE_PCID))
			pgd |= PT_CR3_PTI_USER_PCID;
	}
	return pgd;
}

int pt_core_set_cr3(struct pt_cpu *pc, struct pt_trace_cr3 *req)
{
	struct mm_struct *mm = NULL;
	struct pt_trace_config cfg;
	u64 cr3 = 0, pgd = 0, old_derived;
	bool priv = perfmon_capable();
	int ret;

	if (req->reserved)
		return -EINVAL;
	if (req->how != PT_CR3_OFF && !pt_cap(&pt_caps, PT_CAP_CR3_FILTER))
		return -EOPNOTSUPP;
	switch (req->how) {
	case PT_CR3_BY_VALUE:
		/* Any address space, named by a physical address. */
		if (!priv)
			return -EPERM;
		break;
	case PT_CR3_BY_PID:
		ret = pt_cr3_of_pid(req->pid, &pgd, &mm);
		if (ret)
			return ret;
		break;
	case PT_CR3_OFF:
		break;
	default:
		return -EINVAL;
	}
	mutex_lock(&pc->lock);
	cfg = pc->cfg;
	if (req->how == PT_CR3_BY_VALUE)
		cr3 = req->cr3;
	else if (req->how == PT_CR3_BY_PID)
		cr3 = pt_cr3_for(pgd, cfg.ctl);
	if (req->how == PT_CR3_OFF) {
		cfg.ctl &= ~PT_CTL_CR3FILTER;
		cfg.cr3_match = 0;
	} else {
		cfg.ctl |= PT_CTL_CR3FILTER;
		cfg.cr3_match = cr3;
	}
	old_derived = pc->cr3_derived;
	pc->cr3_derived = mm ? cr3 : 0;
	ret = pt_commit_config(pc, &cfg);
	if (ret) {
		pc->cr3_derived = old_derived;
	} else {
		swap(mm, pc->cr3_mm);	/* the old one is dropped below */
		req->cr3 = priv ? cr3 : 0;
	}
	mutex_unlock(&pc->lock);
	if (mm)
		mmdrop(mm);
	return ret;
}

int pt_core_set_cyc(struct pt_cpu *pc, const struct pt_trace_cyc *req)
{
	struct pt_trace_config cfg;
	int ret;

	if (req->reserved || req->enable > 1 || req->threshold > 15)
		return -EINVAL;
	if ((req->enable || req->threshold) &&
	    !pt_cap(&pt_caps, PT_CAP_PSB_CYC))
		return -EOPNOTSUPP;
	mutex_lock(&pc->lock);
	cfg = pc->cfg;
	cfg.ctl &= ~(PT_CTL_CYCEN | PT_CTL_CYCTHRESH_MASK);
	if (req->enable)
		cfg.ctl |= PT_CTL_CYCEN;
	cfg.ctl |= (u64)req->threshold << PT_CTL_CYCTHRESH_SHIFT;
	ret = pt_commit_config(pc, &cfg);
	mutex_unlock(&pc->lock);
	return ret;
}

int pt_core_set_addr(struct pt_cpu *pc, const struct pt_trace_addr *req)
{
	struct pt_trace_config cfg;
	int ret;

	if (req->reserved)
		return -EINVAL;
	ret = pt_rtit_check_range(&pt_caps, req->index, req->cfg, req->start,
				  req->end, pt_virt_bits());
	if (ret)
		return ret;
	mutex_lock(&pc->lock);
	cfg = pc->cfg;
	cfg.ctl &= ~PT_CTL_ADDR_CFG_MASK(req->index);
	cfg.ctl |= (u64)req->cfg << PT_CTL_ADDR_CFG_SHIFT(req->index);
	cfg.addr[req->index].start = req->start;
	cfg.addr[req->index].end = req->end;
	ret = pt_commit_config(pc, &cfg);
	mutex_unlock(&pc->lock);
	return ret;
}

int pt_core_set_bufsize(struct pt_cpu *pc, u64 size)
{
	struct pt_trace_config cfg;
	int ret;

	mutex_lock(&pc->lock);
	cfg = pc->cfg;
	cfg.buffer_size = size;
	ret = pt_commit_config(pc, &cfg);
	mutex_unlock(&pc->lock);
	return ret;
}

/* pc->lock held. */
static int pt_ensure_buffer(struct pt_cpu *pc)
{
	u64 size = pt_cfg_buffer_size(&pc->cfg);
	struct pt_account acct;
	struct pt_buffer *buf;
	int ret;

	if (pc->buf)
		return 0;
	/* The data and the control page, charged to the caller. */
	ret = pt_account_charge(&acct, (size >> PAGE_SHIFT) + 1);
	if (ret)
		return ret;
	buf = pt_buffer_alloc(size, pt_cfg_output(&pc->cfg),
			      cpu_to_node(pc->cpu), &pt_caps);
	if (IS_ERR(buf)) {
		pt_account_uncharge(&acct);
		return PTR_ERR(buf);
	}
	buf->acct = acct;
	pc->buf = buf;
	pc->status_flags |= PT_STATUS_CONFIGURED;
	pt_update_ctrl(pc);
	return 0;
}

/*
 * The mapping is checked against the buffer and counted in one critical
 * section with the replacement check (pt_drop_buffer()): a buffer is
 * never replaced between the two.
 */
struct pt_buffer *pt_core_get_buffer(struct pt_cpu *pc, unsigned long pgoff,
				     unsigned long npages)
{
	struct pt_buffer *buf;
	int ret;

	mutex_lock(&pc->lock);
	ret = pt_ensure_buffer(pc);
	buf = ret ? ERR_PTR(ret) : pc->buf;
	/* The control page, control + data, or the data alone. */
	if (!ret && !((pgoff == 0 && (npages == 1 ||
				      npages == 1 + buf->nr_pages)) ||
		      (pgoff == 1 && npages == buf->nr_pages)))
		buf = ERR_PTR(-EINVAL);
	if (!IS_ERR(buf)) {
		pt_buffer_get(buf);
		atomic_inc(&buf->maps);
	}
	mutex_unlock(&pc->lock);
	return buf;
}

/* ---- Start / stop / status ---- */

int pt_core_start(struct pt_cpu *pc)
{
	struct pt_hw_args a = { .pc = pc };
	bool armed = false;
	u64 t0;
	int ret;

	/* perf's intel_pt holds this CPU (ownership.c): one log line. */
	ret = pt_own_start(pc->cpu);
	if (ret)
		return ret;
	cpus_read_lock();
	mutex_lock(&pc->lock);
	ret = -ENODEV;
	if (!pc->online)
		goto out;
	ret = -EBUSY;
	if (pc->running)
		goto out;
	ret = -EIO;
	if (pt_hw_stuck_on(pc))
		goto out;
	/* Configurations were checked against the boot CPU's caps. */
	ret = -EOPNOTSUPP;
	if (pc->caps_differ)
		goto out;
	/* Its buffer may still be written by someone else: a new open. */
	ret = -EBUSY;
	if (pc->taken_over) {
		pr_notice_ratelimited("CPU %u: the last trace was taken over by another PT owner: close and open /dev/pt%u again to trace\n",
				      pc->cpu, pc->cpu);
		goto out;
	}
	/* Paired with the mutex: pt_core_freeze() stops after setting it. */
	ret = -EAGAIN;
	if (READ_ONCE(pt_frozen))
		goto out;
	/*
	 * The opener may have lost the privilege since configuring.  Without
	 * it, only a process it may trace: a CR3 filter the driver derived
	 * (PT_CR3_BY_PID), never the whole CPU's user space.
	 */
	ret = -EPERM;
	if (!perfmon_capable() &&
	    ((pc->ctl & PT_CTL_NEEDS_PRIV) || !(pc->ctl & PT_CTL_CR3FILTER) ||
	     !pc->cr3_derived || pc->cfg.cr3_match != pc->cr3_derived))
		goto out;
	ret = pt_ensure_buffer(pc);
	if (ret)
		goto out;
	/* From here PMIs may be ours: a failure must disarm. */
	armed = true;
	if (pc->cfg.mode == PT_MODE_STREAM) {
		ret = pt_stream_prepare(pc, &a.base, &a.mask);
		if (ret)
			goto out;
	} else {
		ret = pt_buffer_layout(pc->buf, false);
		ret = ret ?: pt_buffer_ptrs(pc->buf, 0, &a.base, &a.mask);
		if (ret)
			goto out;
		pt_clear_wrap_window(pc->buf);
		/* ToPA: lap PMIs (stream.c); from here they may come. */
		pt_flight_prepare(pc);
	}
	a.ctl = pc->ctl;
	if (pc->buf->output == PT_OUTPUT_TOPA)
		a.ctl |= PT_CTL_TOPA;

	pc->generation++;
	pc->head = 0;
	pc->offset = 0;
	pc->status_flags &= ~(PT_STATUS_WRAPPED | PT_STATUS_HW_STOPPED |
			      PT_STATUS_HW_ERROR | PT_STATUS_TAKEN_OVER);
	t0 = ktime_get_ns();
	ret = smp_call_function_single(pc->cpu, pt_hw_start_ipi, &a, 1);
	pc->start_ns = ktime_get_ns() - t0;
	ret = ret ?: a.ret;
	if (a.vmx)
		pr_notice_ratelimited("CPU %u is in VMX operation and cannot trace there (IA32_VMX_MISC[14]=0): START refused; boot with kvm.enable_virt_at_load=0 or unload kvm_intel\n",
				      pc->cpu);
	if (a.foreign)
		pr_notice_ratelimited("CPU %u: PT is already in use (RTIT_CTL %#llx, TraceEn set), by perf's intel_pt or a hypervisor: START refused; end that perf session and START again\n",
				      pc->cpu, a.found_ctl);
	if (ret)
		goto out;
	pc->hw_ctl = a.ctl | PT_CTL_TRACEEN;
	pc->running = true;
	pc->started_since_open = true;
	pc->starts++;
	pc->status_flags |= PT_STATUS_RUNNING;
	pt_update_ctrl(pc);
out:
	/* Nothing runs: no bit-55 NMI is ours (silicon-review M1). */
	if (ret && armed)
		pt_stream_disarm(pc);
	mutex_unlock(&pc->lock);
	cpus_read_unlock();
	return ret;
}

int pt_core_stop(struct pt_cpu *pc)
{
	int ret = 0;

	cpus_read_lock();
	mutex_lock(&pc->lock);
	if (pc->running)
		ret = pt_stop_locked(pc);
	mutex_unlock(&pc->lock);
	cpus_read_unlock();
	return ret;
}

int pt_core_get_status(struct pt_cpu *pc, struct pt_trace_status *st)
{
	struct pt_hw_args a = { .pc = pc };
	int ret = 0;

	cpus_read_lock();
	mutex_lock(&pc->lock);
	/* Streaming publishes from the PMI; flight pauses to read. */
	if (pc->running && pc->cfg.mode == PT_MODE_STREAM) {
		pt_stream_kick(pc);
		pc->head = READ_ONCE(pc->stream.head);
		pc->offset = pc->head % pc->buf->size;
	} else if (pc->running) {
		a.ctl = pc->hw_ctl;
		ret = smp_call_function_single(pc->cpu, pt_hw_peek_ipi, &a, 1);
		ret = ret ?: a.ret;
		if (!ret)
			pt_account(pc, &a);
		if (a.holder != PT_HW_OURS) {
			pc->status_flags |= PT_STATUS_TAKEN_OVER;
			ret = 0;
		}
	}
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	st->flags = pc->status_flags;
	st->output = pc->buf ? pc->buf->output : PT_OUTPUT_AUTO;
	st->mode = pc->cfg.mode;
	st->buffer_size = pc->buf ? pc->buf->size : pt_cfg_buffer_size(&pc->cfg);
	st->head = pc->head;
	st->offset = pc->offset;
	st->rtit_status = pc->rtit_status;
	st->starts = pc->starts;
	if (pc->cfg.mode == PT_MODE_STREAM && pc->buf) {
		struct pt_stream *s = &pc->stream;

		st->loss_records = READ_ONCE(s->losses);
		st->pmis = READ_ONCE(s->pmis);
		st->stream_bytes = READ_ONCE(s->bytes);
		st->stops = READ_ONCE(s->stops);
		st->lost_ns = READ_ONCE(s->lost_ns);
		st->errors = READ_ONCE(s->errors);
		st->lost_bytes = READ_ONCE(s->lost_bytes);
		if (READ_ONCE(s->stalled))
			st->flags |= PT_STATUS_HW_STOPPED;
		if (READ_ONCE(s->taken_over) ||
		    (READ_ONCE(s->stalled) &&
		     (READ_ONCE(s->loss_flags) & PT_LOSS_TAKEN_OVER)))
			st->flags |= PT_STATUS_TAKEN_OVER;
		else if (READ_ONCE(s->error))
			st->flags |= PT_STATUS_HW_ERROR;
	} else if (pc->buf && pc->stream.flight) {
		/* The flight recorder's lap PMIs (ToPA output). */
		st->pmis = READ_ONCE(pc->stream.pmis);
	}
	mutex_unlock(&pc->lock);
	cpus_read_unlock();
	return ret;
}

/* ---- debugfs: buffer layout per CPU (the ToPA overhead benchmark) ---- */

static int pt_buffers_show(struct seq_file *m, void *v)
{
	unsigned int cpu;

	seq_puts(m, "cpu size output chunks tables overhead start_ns stop_ns\n");
	for_each_possible_cpu(cpu) {
		struct pt_cpu *pc = per_cpu_ptr(&pt_cpus, cpu);
		struct pt_buffer *buf;

		mutex_lock(&pc->lock);
		buf = pc->buf;
		if (buf)
			seq_printf(m, "%u %llu %u %u %u %llu %llu %llu\n", cpu,
				   buf->size, buf->output, buf->nr_chunks,
				   buf->nr_tables, pt_buffer_overhead(buf),
				   pc->start_ns, pc->stop_ns);
		mutex_unlock(&pc->lock);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pt_buffers);

/* Streaming counters per CPU (the status ioctl summarises them). */
static int pt_stream_stats_show(struct seq_file *m, void *v)
{
	unsigned int cpu;

	seq_puts(m, "cpu pmis bytes stops losses errors pad_bytes lost_ns resumes handler_ns handler_max_ns nmis_foreign head stalled lost_bytes watchdog laps late_pmis throttles services\n");
	for_each_possible_cpu(cpu) {
		struct pt_stream *s = &per_cpu_ptr(&pt_cpus, cpu)->stream;

		seq_printf(m, "%u %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %d %llu %llu %llu %llu %llu %llu\n",
			   cpu, READ_ONCE(s->pmis), READ_ONCE(s->bytes),
			   READ_ONCE(s->stops), READ_ONCE(s->losses),
			   READ_ONCE(s->errors), READ_ONCE(s->pad_bytes),
			   READ_ONCE(s->lost_ns), READ_ONCE(s->resumes),
			   READ_ONCE(s->handler_ns),
			   READ_ONCE(s->handler_max_ns),
			   READ_ONCE(s->nmis_foreign), READ_ONCE(s->head),
			   READ_ONCE(s->stalled), READ_ONCE(s->lost_bytes),
			   READ_ONCE(s->watchdog), READ_ONCE(s->laps),
			   READ_ONCE(s->late_pmis), READ_ONCE(s->throttles),
			   READ_ONCE(s->services));
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pt_stream_stats);

int pt_core_autostart(struct pt_cpu *pc)
{
	struct pt_trace_config cfg;
	int ret;

	mutex_lock(&pc->lock);
	cfg = pc->cfg;
	cfg.mode = PT_MODE_STREAM;
	ret = pc->running ? 0 : pt_commit_config(pc, &cfg);
	mutex_unlock(&pc->lock);
	if (ret)
		return ret;
	ret = pt_core_start(pc);
	return ret == -EBUSY ? 0 : ret;	/* raced with another start */
}

/* ---- CPU hotplug ---- */

/*
 * A CPU that comes back does not resume a trace stopped by its offline:
 * the owner sees PT_STATUS_CPU_OFFLINE and the end of the stream, and
 * STARTs again (a new generation) once the CPU is back.
 */
static int pt_cpu_online(unsigned int cpu)
{
	struct pt_cpu *pc = per_cpu_ptr(&pt_cpus, cpu);
	bool differ = !pt_caps_agree();

	if (differ)
		pr_warn("CPU %u: its Intel PT capabilities (CPUID 0x14) differ from the boot CPU's: START refused there (EOPNOTSUPP)\n",
			cpu);
	mutex_lock(&pc->lock);
	pc->caps_differ = differ;
	pc->online = true;
	pc->status_flags &= ~PT_STATUS_CPU_OFFLINE;
	pt_update_ctrl(pc);
	mutex_unlock(&pc->lock);
	return 0;
}

/*
 * Runs on the outgoing CPU, before it stops taking IPIs: stop exactly as
 * PT_TRACE_IOC_STOP would (streaming closes any open gap as a loss
 * record and wakes readers, who drain what is left and then see the end
 * of the stream), and keep the buffer: it may be mapped or being read.
 */
static int pt_cpu_offline(unsigned int cpu)
{
	struct pt_cpu *pc = per_cpu_ptr(&pt_cpus, cpu);

	mutex_lock(&pc->lock);
	if (pc->running)
		pt_stop_locked(pc);
	pc->online = false;
	pc->status_flags |= PT_STATUS_CPU_OFFLINE;
	pt_update_ctrl(pc);
	mutex_unlock(&pc->lock);
	return 0;
}

/* ---- Suspend, hibernation, reboot and kexec ---- */

/*
 * Stop every trace (exactly as PT_TRACE_IOC_STOP: readers drain what is
 * left and then see the end) and refuse START with EAGAIN until resume.
 *  - Suspend to RAM and hibernation power the boot CPU off (the others
 *    go through CPU hotplug, which stops them anyway): its PT MSRs come
 *    back at their reset values, and a trace believed running would
 *    then be accounted from meaningless output pointers.
 *  - Restoring a hibernation image replaces the memory a trace in the
 *    restoring kernel would still be writing.
 *  - kexec enters the new kernel without resetting the CPU: a trace
 *    left enabled would go on writing into memory the new kernel owns
 *    (perf stops its events from a reboot notifier for the same reason).
 * A suspend to idle keeps the CPU state, but the notifier cannot tell
 * it apart, so it stops too.
 */
static void pt_core_freeze(bool frozen)
{
	unsigned int cpu;

	WRITE_ONCE(pt_frozen, frozen);
	if (!frozen)
		return;
	for_each_possible_cpu(cpu)
		pt_core_stop(per_cpu_ptr(&pt_cpus, cpu));
}

static int pt_pm_notify(struct notifier_block *nb, unsigned long action,
			void *data)
{
	switch (action) {
	case PM_SUSPEND_PREPARE:
	case PM_HIBERNATION_PREPARE:
	case PM_RESTORE_PREPARE:
		pt_core_freeze(true);
		break;
	case PM_POST_SUSPEND:
	case PM_POST_HIBERNATION:
	case PM_POST_RESTORE:
		pt_core_freeze(false);
		break;
	}
	return NOTIFY_OK;
}

static struct notifier_block pt_pm_nb = {
	.notifier_call = pt_pm_notify,
};

/* Restart, halt, power off and kexec: frozen for good. */
static int pt_reboot_notify(struct notifier_block *nb, unsigned long action,
			    void *data)
{
	pt_core_freeze(true);
	return NOTIFY_OK;
}

static struct notifier_block pt_reboot_nb = {
	.notifier_call = pt_reboot_notify,
};

int pt_core_init(void)
{
	unsigned int cpu;
	int ret;

	for_each_possible_cpu(cpu) {
		struct pt_cpu *pc = per_cpu_ptr(&pt_cpus, cpu);

		pc->cpu = cpu;
		mutex_init(&pc->lock);
		pt_default_config(&pc->cfg);
		pt_stream_init(pc);
	}
	/* Every faulting MSR access is a driver bug: tests assert 0. */
	debugfs_create_atomic_t("msr_faults", 0444, pt_debugfs_root,
				&pt_msr_faults);
	debugfs_create_file("buffers", 0400, pt_debugfs_root, NULL,
			    &pt_buffers_fops);
	debugfs_create_file("stream", 0400, pt_debugfs_root, NULL,
			    &pt_stream_stats_fops);
	ret = pt_pmi_init();
	if (ret)
		return ret;
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "pt_trace:online",
				pt_cpu_online, pt_cpu_offline);
	if (ret < 0)
		goto err_pmi;
	pt_cpuhp_state = ret;
	ret = register_pm_notifier(&pt_pm_nb);
	if (ret)
		goto err_cpuhp;
	ret = register_reboot_notifier(&pt_reboot_nb);
	if (ret)
		goto err_pm;
	return 0;

err_pm:
	unregister_pm_notifier(&pt_pm_nb);
err_cpuhp:
	cpuhp_remove_state(pt_cpuhp_state);
err_pmi:
	pt_pmi_exit();
	return ret;
}

/*
 * Module exit: the buffers kept on CPUs whose disabling write failed
 * (pt_hw_stuck_on()) stay allocated for good, since the hardware may
 * still write them; nothing refers to them once the module is gone.
 */
static void pt_core_leak_kept(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct pt_cpu *pc = per_cpu_ptr(&pt_cpus, cpu);

		if (!pc->kept)
			continue;
		pr_warn("CPU %u: unloading with the %llu-byte trace buffer kept after a failed disabling write: it stays allocated (leaked)\n",
			cpu, pc->kept->size);
		kmemleak_not_leak(pc->kept);
		pc->kept = NULL;
	}
}

/* Module exit: no file is open (each pins the module), nothing runs. */
void pt_core_exit(void)
{
	unregister_reboot_notifier(&pt_reboot_nb);
	unregister_pm_notifier(&pt_pm_nb);
	cpuhp_remove_state(pt_cpuhp_state);
	pt_pmi_exit();
	pt_core_leak_kept();
}
