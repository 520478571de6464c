// SPDX-License-Identifier: GPL-2.0
/*
 * The per-CPU tracing core.
 *
 * What every trace source shares (source.h): the per-CPU device state
 * and its lifecycle (open, release, CPU hotplug, suspend and reboot),
 * configuration staging under pt_cpu.lock, the buffer and its control
 * page, the START/STOP/status sequence and debugfs.  Each step that
 * touches hardware is the source's (pc->src, e.g. source_pt.c), always on
 * the traced CPU through smp_call_function_single() and always under
 * pt_cpu.lock.  Configuration only changes while stopped.
 */
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/kmemleak.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/notifier.h>
#include <linux/percpu.h>
#include <linux/reboot.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/suspend.h>
#include <asm/msr.h>
#include <asm/page.h>

#include "buffer.h"
#include "bts_caps.h"
#include "caps.h"
#include "compat.h"
#include "core.h"
#include "follow.h"
#include "hw.h"
#include "vmx_status.h"
#include "pmi.h"
#include "source.h"
#include "stream.h"

static unsigned long long buf_size = 4ULL << 20;
module_param(buf_size, ullong, 0644);
MODULE_PARM_DESC(buf_size,
		 "default per-CPU trace buffer size in bytes (default 4 MiB)");

static DEFINE_PER_CPU(struct pt_cpu, pt_cpus);
/*
 * BTS's devices (source_bts.c), only where the CPU has BTS; allocated
 * rather than per-CPU data, which is scarce for modules.
 */
static struct pt_cpu *bts_cpus;
static enum cpuhp_state pt_cpuhp_state;

struct pt_cpu *pt_core_cpu(unsigned int cpu)
{
	if (cpu >= nr_cpu_ids || !cpu_possible(cpu))
		return NULL;
	return per_cpu_ptr(&pt_cpus, cpu);
}

struct pt_cpu *pt_core_bts_cpu(unsigned int cpu)
{
	if (!bts_cpus || cpu >= nr_cpu_ids || !cpu_possible(cpu))
		return NULL;
	return &bts_cpus[cpu];
}

u64 pt_core_cfg_buffer_size(const struct pt_trace_config *cfg)
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

/* A disabling WRMSR failed on this CPU: see pt_hw_stuck_on(). */
static DEFINE_PER_CPU(bool, pt_hw_stuck);

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
bool pt_core_hw_stuck(void)
{
	return this_cpu_read(pt_hw_stuck);
}

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

/* ---- Bookkeeping ---- */

/* Publish the state in the control page (data_head last, released). */
void pt_core_update_ctrl(struct pt_cpu *pc)
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
	pt_buffer_publish_head(buf, pc->head);
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

/* Stop on the CPU; pc->lock held, CPU online. */
static int pt_stop_locked(struct pt_cpu *pc)
{
	if (!pc->running)
		return 0;
	return pc->src->stop(pc);
}

/*
 * The driver stops a trace on its own (CPU offline, suspend): when, for
 * GET_STATUS, so that a recorder starting it again knows where its gap
 * begins (it polls, and would otherwise know only when it last saw the
 * trace running).  pc->lock held.
 */
static int pt_stop_by_driver(struct pt_cpu *pc)
{
	int ret;

	if (!pc->running)
		return 0;
	ret = pt_stop_locked(pc);
	pc->driver_stop_ns = ktime_get_ns();
	pc->driver_stop_tsc = rdtsc();
	return ret;
}

/* ---- Open / release ---- */

int pt_core_open(struct pt_cpu *pc)
{
	if (test_and_set_bit(PT_CPU_OPEN, &pc->flags))
		return -EBUSY;
	mutex_lock(&pc->lock);
	pc->src->defaults(&pc->cfg, &pc->ctl);
	pc->status_flags = pc->online ? 0 : PT_STATUS_CPU_OFFLINE;
	pc->offset = 0;
	pc->head = 0;
	pc->rtit_status = 0;
	pc->driver_stop_ns = 0;
	pc->driver_stop_tsc = 0;
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
	/*
	 * The session's positions and counters described the buffer just
	 * dropped: the next opener's status and control page start empty
	 * (its new buffer has no loss records to go with a count).
	 */
	pt_stream_clear(pc);
	pt_follow_release(pc);
	pt_core_drop_buffer(pc, buf);
	if (pc->src->release)
		pc->src->release(pc);
	pc->taken_over = false;
	clear_bit(PT_CPU_OPEN, &pc->flags);
}

/* ---- Configuration ---- */

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
int pt_core_commit_config(struct pt_cpu *pc, const struct pt_trace_config *cfg)
{
	u64 ctl, size;
	int ret;

	if (pc->running)
		return -EBUSY;
	ret = pc->src->check_config(pc, cfg, &ctl);
	if (ret)
		return ret;
	size = pt_core_cfg_buffer_size(cfg);
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

	if (pc->src->config_hooks) {
		ret = pc->src->config_hooks(cfg);
		if (ret)
			return ret;
	}
	mutex_lock(&pc->lock);
	/*
	 * GET_CONFIG hides a physical address from the unprivileged: the
	 * 0 it shows, set back, means the CR3 the driver derived.
	 */
	if ((c.ctl & PT_CTL_CR3FILTER) && !c.cr3_match && !perfmon_capable())
		c.cr3_match = pc->cr3_derived;
	ret = pt_core_commit_config(pc, &c);
	mutex_unlock(&pc->lock);
	return ret;
}

void pt_core_get_config(struct pt_cpu *pc, struct pt_trace_config *cfg)
{
	mutex_lock(&pc->lock);
	*cfg = pc->cfg;
	cfg->ctl = pc->ctl;	/* as programmed (BDM106 shows BranchEn) */
	cfg->buffer_size = pt_core_cfg_buffer_size(&pc->cfg);
	mutex_unlock(&pc->lock);
	/* A physical address: only for the perfmon-capable (as perf). */
	if (!perfmon_capable())
		cfg->cr3_match = 0;
}

int pt_core_set_bufsize(struct pt_cpu *pc, u64 size)
{
	struct pt_trace_config cfg;
	int ret;

	mutex_lock(&pc->lock);
	cfg = pc->cfg;
	cfg.buffer_size = size;
	ret = pt_core_commit_config(pc, &cfg);
	mutex_unlock(&pc->lock);
	return ret;
}

/* pc->lock held. */
static int pt_ensure_buffer(struct pt_cpu *pc)
{
	u64 size = pt_core_cfg_buffer_size(&pc->cfg);
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
	pt_core_update_ctrl(pc);
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

	/*
	 * A streaming START resets the ring and its control page: it waits
	 * for a read(2) that is copying from the last session, whose release
	 * of data_tail would otherwise land in the new one and hide its
	 * first bytes (the lock is held only while copying; taken before the
	 * hotplug lock, so a copy held by a page fault holds no CPU up).
	 */
	if (mutex_lock_interruptible(&pc->stream.read_lock))
		return -ERESTARTSYS;
	/*
	 * Reserved under the hotplug lock held to the end of START: else the
	 * CPU could go down (dropping the reservation) and come back up with
	 * perf's intel_pt on it between the check and the enabling write.
	 */
	cpus_read_lock();
	/*
	 * Running already: EBUSY before the reservation (held already,
	 * ownership_bts.c).  STARTs are serialised by read_lock, so none
	 * can start the device between this check and the one below.
	 */
	mutex_lock(&pc->lock);
	ret = pc->running ? -EBUSY : 0;
	mutex_unlock(&pc->lock);
	/* perf holds this CPU's hardware (ownership.c): one log line. */
	ret = ret ?: pc->src->reserve(pc->cpu);
	if (ret) {
		cpus_read_unlock();
		mutex_unlock(&pc->stream.read_lock);
		return ret;
	}
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
		pr_notice_ratelimited("CPU %u: the last trace was taken over by another %s owner: close and open /dev/%s%u again to trace\n",
				      pc->cpu, pc->src->label, pc->src->name,
				      pc->cpu);
		goto out;
	}
	/* Paired with the mutex: pt_core_freeze() stops after setting it. */
	ret = -EAGAIN;
	if (READ_ONCE(pt_frozen))
		goto out;
	/* The opener may have lost the privilege since configuring. */
	ret = pc->src->may_start(pc);
	if (ret)
		goto out;
	ret = pt_ensure_buffer(pc);
	if (ret)
		goto out;
	/* From here PMIs may be ours: a failure must disarm. */
	armed = true;
	ret = pc->src->prepare(pc, &a);
	if (ret)
		goto out;

	pc->generation++;
	pc->head = 0;
	pc->offset = 0;
	pc->status_flags &= ~(PT_STATUS_WRAPPED | PT_STATUS_HW_STOPPED |
			      PT_STATUS_HW_ERROR | PT_STATUS_TAKEN_OVER);
	t0 = ktime_get_ns();
	ret = pc->src->start(pc, &a);
	pc->start_ns = ktime_get_ns() - t0;
	if (ret)
		goto out;
	pc->running = true;
	pc->started_since_open = true;
	pc->starts++;
	pc->status_flags |= PT_STATUS_RUNNING;
	pt_core_update_ctrl(pc);
out:
	/* Nothing runs: no bit-55 NMI is ours (silicon-review M1). */
	if (ret && armed)
		pc->src->disarm(pc);
	mutex_unlock(&pc->lock);
	cpus_read_unlock();
	mutex_unlock(&pc->stream.read_lock);
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
	int ret = 0;

	cpus_read_lock();
	mutex_lock(&pc->lock);
	if (pc->running)
		ret = pc->src->refresh(pc);
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	st->flags = pc->status_flags;
	st->output = pc->buf ? pc->buf->output : PT_OUTPUT_AUTO;
	st->mode = pc->cfg.mode;
	st->buffer_size = pc->buf ? pc->buf->size : pt_core_cfg_buffer_size(&pc->cfg);
	st->head = pc->head;
	st->offset = pc->offset;
	st->rtit_status = pc->rtit_status;
	st->starts = pc->starts;
	st->vmx = pt_vmx_status(pc->cpu);
	st->driver_stop_ns = pc->driver_stop_ns;
	st->driver_stop_tsc = pc->driver_stop_tsc;
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

	seq_puts(m, "cpu pmis bytes stops losses errors pad_bytes lost_ns resumes handler_ns handler_max_ns nmis_foreign head stalled lost_bytes watchdog laps late_pmis throttles services deferred\n");
	for_each_possible_cpu(cpu) {
		struct pt_stream *s = &per_cpu_ptr(&pt_cpus, cpu)->stream;

		seq_printf(m, "%u %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %d %llu %llu %llu %llu %llu %llu %llu\n",
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
			   READ_ONCE(s->services), READ_ONCE(s->deferred));
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pt_stream_stats);

int pt_core_autostart(struct pt_cpu *pc)
{
	struct pt_trace_config cfg, old;
	int ret;

	mutex_lock(&pc->lock);
	old = pc->cfg;
	cfg = old;
	cfg.mode = PT_MODE_STREAM;
	ret = pc->running ? 0 : pt_core_commit_config(pc, &cfg);
	mutex_unlock(&pc->lock);
	if (ret)
		return ret;
	ret = pt_core_start(pc);
	if (!ret)
		return 0;
	mutex_lock(&pc->lock);
	if (pc->running) {
		ret = 0;	/* raced with another start: read that trace */
	} else if (!pc->started_since_open) {
		/*
		 * Nothing started (perf holds PT here: EBUSY; the CPU went
		 * offline): the error, not an empty stream, and the staged
		 * configuration as the caller left it.
		 */
		pt_core_commit_config(pc, &old);
	}
	mutex_unlock(&pc->lock);
	return ret;
}

/* ---- CPU hotplug ---- */

/*
 * A CPU that comes back does not resume a trace stopped by its offline:
 * the owner sees PT_STATUS_CPU_OFFLINE and the end of the stream, and
 * STARTs again (a new generation) once the CPU is back.
 */
static void pt_cpu_online_one(struct pt_cpu *pc)
{
	bool differ;

	if (!pc)
		return;
	differ = !pc->src->cpu_agrees(pc->cpu);
	mutex_lock(&pc->lock);
	pc->caps_differ = differ;
	pc->online = true;
	pc->status_flags &= ~PT_STATUS_CPU_OFFLINE;
	pt_core_update_ctrl(pc);
	mutex_unlock(&pc->lock);
}

static int pt_cpu_online(unsigned int cpu)
{
	pt_cpu_online_one(per_cpu_ptr(&pt_cpus, cpu));
	pt_cpu_online_one(pt_core_bts_cpu(cpu));
	return 0;
}

/*
 * Runs on the outgoing CPU, before it stops taking IPIs: stop exactly as
 * PT_TRACE_IOC_STOP would (streaming closes any open gap as a loss
 * record and wakes readers, who drain what is left and then see the end
 * of the stream), and keep the buffer: it may be mapped or being read.
 */
static void pt_cpu_offline_one(struct pt_cpu *pc)
{
	if (!pc)
		return;
	mutex_lock(&pc->lock);
	pt_stop_by_driver(pc);
	pc->online = false;
	pc->status_flags |= PT_STATUS_CPU_OFFLINE;
	pt_core_update_ctrl(pc);
	mutex_unlock(&pc->lock);
	if (pc->src->offline)
		pc->src->offline(pc);
}

static int pt_cpu_offline(unsigned int cpu)
{
	pt_cpu_offline_one(pt_core_bts_cpu(cpu));
	pt_cpu_offline_one(per_cpu_ptr(&pt_cpus, cpu));
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
static void pt_core_freeze_one(struct pt_cpu *pc)
{
	cpus_read_lock();
	mutex_lock(&pc->lock);
	pt_stop_by_driver(pc);
	mutex_unlock(&pc->lock);
	cpus_read_unlock();
}

static void pt_core_freeze(bool frozen)
{
	unsigned int cpu;

	WRITE_ONCE(pt_frozen, frozen);
	if (!frozen)
		return;
	for_each_possible_cpu(cpu) {
		pt_core_freeze_one(per_cpu_ptr(&pt_cpus, cpu));
		if (bts_cpus)
			pt_core_freeze_one(&bts_cpus[cpu]);
	}
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

static void pt_core_init_cpu(struct pt_cpu *pc, unsigned int cpu,
			     const struct pt_source_ops *src)
{
	pc->cpu = cpu;
	pc->src = src;
	mutex_init(&pc->lock);
	pc->src->defaults(&pc->cfg, &pc->ctl);
	pt_stream_init(pc);
}

/* BTS devices where the CPU has BTS (bts_caps.h); none is no error. */
static int pt_core_init_bts(void)
{
	unsigned int cpu;

	if (!bts_present(&bts_caps))
		return 0;
	bts_cpus = kcalloc(nr_cpu_ids, sizeof(*bts_cpus), GFP_KERNEL);
	if (!bts_cpus)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		pt_core_init_cpu(&bts_cpus[cpu], cpu, &pt_source_bts);
	return bts_src_init(bts_cpus, nr_cpu_ids);
}

static void pt_core_exit_bts(void)
{
	if (!bts_cpus)
		return;
	bts_src_exit(bts_cpus, nr_cpu_ids);
	kfree(bts_cpus);
	bts_cpus = NULL;
}

int pt_core_init(void)
{
	unsigned int cpu;
	int ret;

	for_each_possible_cpu(cpu)
		pt_core_init_cpu(per_cpu_ptr(&pt_cpus, cpu), cpu,
				 &pt_source_pt);
	ret = pt_core_init_bts();
	if (ret)
		goto err_bts;
	/* Every faulting MSR access is a driver bug: tests assert 0. */
	debugfs_create_atomic_t("msr_faults", 0444, pt_debugfs_root,
				&pt_msr_faults);
	debugfs_create_file("buffers", 0400, pt_debugfs_root, NULL,
			    &pt_buffers_fops);
	debugfs_create_file("stream", 0400, pt_debugfs_root, NULL,
			    &pt_stream_stats_fops);
	ret = pt_pmi_init();
	if (ret)
		goto err_bts;
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
err_bts:
	pt_core_exit_bts();
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

	for (cpu = 0; cpu < 2 * nr_cpu_ids; cpu++) {
		struct pt_cpu *pc = cpu < nr_cpu_ids ? pt_core_cpu(cpu) :
				    pt_core_bts_cpu(cpu - nr_cpu_ids);

		if (!pc || !pc->kept)
			continue;
		pr_warn("CPU %u: unloading with the %llu-byte trace buffer kept after a failed disabling write: it stays allocated (leaked)\n",
			pc->cpu, pc->kept->size);
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
	pt_follow_exit();
	pt_core_leak_kept();
	pt_core_exit_bts();
}
