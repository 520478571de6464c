// SPDX-License-Identifier: GPL-2.0
/*
 * The Intel PT trace source (source.h): how the PT MSRs are configured,
 * started, stopped and read back under the shared per-CPU core
 * (core.c).  Its streaming service routine, PMI and flight recorder laps
 * are in stream.c, stream_pmi.c and stream_flight.c.
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
 * buffer.c), so no write can #GP.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <asm/cpufeature.h>
#include <asm/page.h>

#include "buffer.h"
#include "caps.h"
#include "compat.h"
#include "core.h"
#include "follow.h"
#include "hw.h"
#include "ownership.h"
#include "regs.h"
#include "rtit_ctl.h"
#include "source_pt.h"
#include "stream.h"

/* The newest bytes checked for the wrap heuristic (see pt_wrapped()). */
#define PT_WRAP_WINDOW		PAGE_SIZE

/* CR3 bits the PTI user page tables and the user PCID set. */
#define PT_CR3_PTI_USER_PGTABLE	BIT_ULL(12)
#define PT_CR3_PTI_USER_PCID	BIT_ULL(11)

/* The linear-address width ADDRn_A/B are canonical for (LA57: 57). */
static unsigned int pt_virt_bits(void)
{
	return boot_cpu_data.x86_virt_bits;
}

static void pt_src_defaults(struct pt_trace_config *cfg, u64 *ctl)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
	cfg->output = PT_OUTPUT_AUTO;
	cfg->mode = PT_MODE_FLIGHT;
	cfg->ctl = PT_CTL_BRANCHEN | PT_CTL_USER;
	*ctl = cfg->ctl;
	if (pt_caps.quirks & PT_QUIRK_BRANCHEN_ALWAYS_ON)
		*ctl |= PT_CTL_BRANCHEN;
}

enum pt_hw_holder pt_src_hw_holder(struct pt_cpu *pc, u64 ctl)
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
bool pt_src_vmx_blocks_trace(void)
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

/* TraceEn is 0 here (we stopped, or never started), unless stuck. */
void pt_src_hw_restore(struct pt_cpu *pc)
{
	struct pt_hw_saved *sv = &pc->saved;
	unsigned int n;

	if (!sv->valid)
		return;
	sv->valid = false;
	/* TraceEn is still set: each write would #GP (SDM 36.2.7.2). */
	if (pt_core_hw_stuck())
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
	if (pt_src_vmx_blocks_trace()) {
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
	/* Following: TraceEn only while a followed task runs here. */
	pt_follow_start_ipi(a->pc, a->base, a->mask);
	ret = ret ?: pt_wrmsr(PT_MSR_RTIT_CTL, a->ctl |
			      (a->pc->stream.parked ? 0 : PT_CTL_TRACEEN));
	if (!ret)
		a->pc->stream.follow_on = a->pc->follow;
	if (!ret && cfg->mode == PT_MODE_STREAM)
		pt_stream_started(a->pc, a->ctl | PT_CTL_TRACEEN);
	else if (!ret && a->pc->stream.flight)
		pt_flight_started(a->pc, a->ctl | PT_CTL_TRACEEN);
	if (ret)
		pt_src_hw_restore(a->pc);
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

/*
 * Ours, TraceEn off by our hand, is ours too: parked while following, or
 * left off for good by a pause that found Error or Stopped (hw_on clear:
 * the recorder does not run, and no other agent stopped it).
 */
static enum pt_hw_holder pt_hw_holder_following(struct pt_cpu *pc, u64 ctl)
{
	enum pt_hw_holder h = pt_src_hw_holder(pc, ctl);

	return h == PT_HW_CLEARED &&
	       (pc->stream.parked || !pc->stream.hw_on) ? PT_HW_OURS : h;
}

static void pt_hw_stop_ipi(void *info)
{
	struct pt_hw_args *a = info;
	enum pt_hw_holder h = pt_hw_holder_following(a->pc, a->ctl);

	a->pc->stream.follow_on = false;
	a->holder = h;
	/* Another agent's state: not one write more (design.rst). */
	if (h == PT_HW_FOREIGN) {
		a->ret = 0;
		return;
	}
	pt_hw_pause(a, false);
	pt_flight_end(a->pc);
	pt_src_hw_restore(a->pc);
}

/*
 * A status while recording: the pointers are only reliable and the data
 * only in memory with TraceEn off (SDM 36.2.7.7), so pause briefly, as
 * perf's snapshot does, and go on where it stopped.
 */
static void pt_hw_peek_ipi(void *info)
{
	struct pt_hw_args *a = info;

	a->holder = pt_hw_holder_following(a->pc, a->ctl);
	if (a->holder != PT_HW_OURS) {
		a->ret = -EAGAIN;	/* nothing of ours to read */
		return;
	}
	pt_hw_pause(a, true);
	if (a->ret)
		a->status = PT_STATUS_ERROR;
	pt_flight_resume(a->pc, a->status, a->base, a->mask);
}

/*
 * Hybrid parts: each CPU's CPUID 0x14 must be the boot CPU's, which the
 * driver validated configurations against (pt_caps).  cpuhp online, on
 * the CPU itself.
 */
static bool pt_src_cpu_agrees(unsigned int cpu)
{
	struct pt_cpuid_raw raw;

	pt_caps_read_raw(&raw);
	if (!memcmp(raw.leaf14, pt_caps.raw.leaf14, sizeof(raw.leaf14)))
		return true;
	pr_warn("CPU %u: its Intel PT capabilities (CPUID 0x14) differ from the boot CPU's: START refused there (EOPNOTSUPP)\n",
		cpu);
	return false;
}

/*
 * Did the flight recorder wrap?  In a ToPA ring of at least
 * PT_FLIGHT_LAP_PMI_MIN the PMI of the INT on the last region counts
 * the laps (stream_flight.c).  Smaller rings and single range have no INT (an NMI
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
	pt_core_update_ctrl(pc);
}

/* Stop on the CPU; pc->lock held, CPU online, running. */
static int pt_src_stop(struct pt_cpu *pc)
{
	struct pt_hw_args a = { .pc = pc, .ctl = pc->hw_ctl };
	u64 t0 = ktime_get_ns();
	int ret;

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
		pt_core_update_ctrl(pc);
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

static void pt_src_get_caps(struct pt_cpu *pc, struct pt_trace_caps *c)
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
 * May the caller trace @task without CAP_PERFMON?  The same thread group,
 * or what ptrace(2) would allow with real credentials (ptrace_may_access()
 * is not exported): the target's real, effective and saved uids and gids
 * all the caller's, a dumpable mm, and (commoncap's check) the same user
 * namespace with permitted capabilities that the caller's include; or
 * CAP_SYS_PTRACE in the target's user namespace.  Stricter than ptrace
 * where an LSM (Yama) would refuse more: a foreign process must also be
 * a descendant of the caller, as under Yama's default ptrace_scope=1.
 */
bool pt_src_may_trace(struct task_struct *task, struct mm_struct *mm)
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
	     get_dumpable(mm) == SUID_DUMP_USER &&
	     me->user_ns == tc->user_ns &&
	     cap_issubset(tc->cap_permitted, me->cap_permitted);
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
 * A process lives on when its leader thread exits alone (pthread_exit()
 * in main(); the leader stays a zombie until the last thread exits): its
 * pid still names it, but the leader has no mm any more.  Any thread of
 * the group that has one stands for the process then.
 */
struct mm_struct *pt_src_group_mm(struct task_struct **taskp)
{
	struct task_struct *task = *taskp, *t;
	struct mm_struct *mm = get_task_mm(task);

	if (mm || (task->flags & PF_KTHREAD))
		return mm;
	rcu_read_lock();
	for_each_thread(task, t) {
		mm = get_task_mm(t);
		if (mm) {
			get_task_struct(t);
			break;
		}
	}
	rcu_read_unlock();
	if (mm) {
		put_task_struct(task);
		*taskp = t;
	}
	return mm;
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
	mm = pt_src_group_mm(&task);
	if (!mm) {
		put_task_struct(task);
		return -EINVAL;		/* a kernel thread, or exited */
	}
	if (!perfmon_capable() && !pt_src_may_trace(task, mm))
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

int pt_src_set_cr3(struct pt_cpu *pc, struct pt_trace_cr3 *req)
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
	ret = pt_core_commit_config(pc, &cfg);
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

int pt_src_set_cyc(struct pt_cpu *pc, const struct pt_trace_cyc *req)
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
	ret = pt_core_commit_config(pc, &cfg);
	mutex_unlock(&pc->lock);
	return ret;
}

int pt_src_set_addr(struct pt_cpu *pc, const struct pt_trace_addr *req)
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
	ret = pt_core_commit_config(pc, &cfg);
	mutex_unlock(&pc->lock);
	return ret;
}

/* Check a whole configuration (source.h); nothing is committed. */
static int pt_src_check_config(struct pt_cpu *pc,
			       const struct pt_trace_config *cfg, u64 *ctl)
{
	u64 size = pt_core_cfg_buffer_size(cfg);
	int ret;

	ret = pt_rtit_ctl_compose(cfg, &pt_caps, pt_virt_bits(), ctl);
	if (ret)
		return ret;
	/* Tracing the kernel is a privilege, whatever the node's mode. */
	if ((*ctl & PT_CTL_NEEDS_PRIV) && !perfmon_capable())
		return -EPERM;
	/* ... and so is a CR3 the driver did not derive (see pt_src_may_trace()). */
	if ((*ctl & PT_CTL_CR3FILTER) && !perfmon_capable() &&
	    (!pc->cr3_derived || cfg->cr3_match != pc->cr3_derived))
		return -EPERM;
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
	return 0;
}

/*
 * The opener may have lost the privilege since configuring.  Without
 * it, only a process it may trace: a CR3 filter the driver derived
 * (PT_CR3_BY_PID) or a followed set (FOLLOW checked it), never the
 * whole CPU's user space.
 */
static int pt_src_may_start(struct pt_cpu *pc)
{
	if (!perfmon_capable() &&
	    ((pc->ctl & PT_CTL_NEEDS_PRIV) ||
	     ((pc->ctl & PT_CTL_CR3FILTER) ?
	      pc->cfg.cr3_match != pc->cr3_derived || !pc->cr3_derived :
	      !pc->follow)))
		return -EPERM;
	return 0;
}

/* Buffer layout, pointers and RTIT_CTL for a START (TraceEn off). */
static int pt_src_prepare(struct pt_cpu *pc, struct pt_hw_args *a)
{
	int ret;

	if (pc->cfg.mode == PT_MODE_STREAM) {
		ret = pt_stream_prepare(pc, &a->base, &a->mask);
		if (ret)
			return ret;
	} else {
		ret = pt_buffer_layout(pc->buf, false);
		ret = ret ?: pt_buffer_ptrs(pc->buf, 0, &a->base, &a->mask);
		if (ret)
			return ret;
		pt_clear_wrap_window(pc->buf);
		/* ToPA: lap PMIs (stream_flight.c); from here they may come. */
		pt_flight_prepare(pc);
	}
	a->ctl = pc->ctl;
	if (pc->buf->output == PT_OUTPUT_TOPA)
		a->ctl |= PT_CTL_TOPA;
	return 0;
}

static int pt_src_start(struct pt_cpu *pc, struct pt_hw_args *a)
{
	int ret;

	ret = smp_call_function_single(pc->cpu, pt_hw_start_ipi, a, 1);
	ret = ret ?: a->ret;
	if (a->vmx)
		pr_notice_ratelimited("CPU %u is in VMX operation and cannot trace there (IA32_VMX_MISC[14]=0): START refused; boot with kvm.enable_virt_at_load=0 or unload kvm_intel\n",
				      pc->cpu);
	if (a->foreign)
		pr_notice_ratelimited("CPU %u: PT is already in use (RTIT_CTL %#llx, TraceEn set), by perf's intel_pt or a hypervisor: START refused; end that perf session and START again\n",
				      pc->cpu, a->found_ctl);
	if (!ret)
		pc->hw_ctl = a->ctl | PT_CTL_TRACEEN;
	return ret;
}

/* Streaming publishes from the PMI; flight pauses to read. */
static int pt_src_refresh(struct pt_cpu *pc)
{
	struct pt_hw_args a = { .pc = pc };
	int ret;

	if (pc->cfg.mode == PT_MODE_STREAM) {
		pt_stream_kick(pc);
		pc->head = READ_ONCE(pc->stream.head);
		pc->offset = pc->head % pc->buf->size;
		return 0;
	}
	a.ctl = pc->hw_ctl;
	ret = smp_call_function_single(pc->cpu, pt_hw_peek_ipi, &a, 1);
	ret = ret ?: a.ret;
	if (!ret)
		pt_account(pc, &a);
	if (a.holder != PT_HW_OURS) {
		pc->status_flags |= PT_STATUS_TAKEN_OVER;
		ret = 0;
	}
	return ret;
}

const struct pt_source_ops pt_source_pt = {
	.name = "pt",
	.label = "PT",
	.defaults = pt_src_defaults,
	.check_config = pt_src_check_config,
	.may_start = pt_src_may_start,
	.prepare = pt_src_prepare,
	.start = pt_src_start,
	.disarm = pt_stream_disarm,
	.stop = pt_src_stop,
	.refresh = pt_src_refresh,
	.nmi = pt_stream_nmi,
	.cpu_agrees = pt_src_cpu_agrees,
	.get_caps = pt_src_get_caps,
	.reserve = pt_own_start,
};
