// SPDX-License-Identifier: GPL-2.0
/*
 * Branch Trace Store in the model (SDM Vol. 3B 18.7.8, 18.4.4.1): while
 * IA32_DEBUGCTL has TR and BTS, each branch is stored as a 24-byte
 * record (from, to, flags) at the DS area's BTS index, which then moves
 * on by one record.  When the index reaches the absolute maximum it
 * wraps to the base with BTINT=0 (a circular buffer); with BTINT=1 the
 * buffer is full and later branches are lost (counted in bts_dropped)
 * until software moves the index back.  With BTINT=1 a PMI is raised
 * when a record moves the index from below the interrupt threshold to
 * or past it.  BTS_OFF_OS drops branches at CPL 0, BTS_OFF_USR those at
 * CPL > 0.  The MSR rules (#GP) are in bts_rules.c.
 *
 * Where branches come from: each tick of the generator (generator.c)
 * stages model_bts_per_tick synthetic branches, half in user mode and
 * half in kernel mode at random (the sampled IP's mode does not matter:
 * filtering must be visible whatever the tests run).  With model_exact
 * the user branches are the stepped ones instead (bts_exact.c, through
 * pt_model_bts_slots() and pt_model_bts_commit()) and the tick's are
 * all kernel branches.
 *
 * Atomicity.  On silicon a record and its index update happen as the
 * branch retires, between instructions: a driver's PMI handler or IPI
 * never sees half of one.  The model stores records from an NMI of its
 * own (a self-NMI sent when a batch is staged): nothing else on the CPU
 * runs inside an NMI, so the driver's PMI handler, its IPIs and its MSR
 * writes see each batch either wholly stored or not at all, and a branch
 * staged before BTS was turned off but stored after is not stored (it
 * retires after the disabling WRMSR, as far as the driver can tell).
 *
 * Memory.  The DS area and the buffer must lie in the kernel's direct
 * map (virt_addr_valid() at both ends of each access: page-allocator
 * or kmalloc memory); anything else is counted in bts_ds_errors and
 * nothing is stored (silicon would fault or write wherever the address
 * points).
 *
 * PTI.  BTS writes through linear addresses while the traced code runs:
 * under PTI the user page tables, which do not map a kernel buffer, are
 * loaded in user mode and also at CPL 0 from a kernel entry to the entry
 * code's CR3 switch (and from the exit code's switch back to the
 * return).  So a record with either end in user space (a user branch,
 * or the interrupt, exception or SYSCALL that enters the kernel from
 * user mode, or the return to it) is counted in bts_pti_faults and
 * stored nowhere (silicon would fault, in user code or in the entry
 * code); a driver must not enable BTS there at all.
 *
 * model_bts_tail (a test knob, 0 by default): silicon stores a record
 * with no interrupt of its own, and the branches right after the WRMSR
 * that turns BTS on are stored like any other, so a threshold PMI can be
 * raised (and taken) before the code that wrote DEBUGCTL has finished.
 * With model_bts_tail=N the tick stores its batch itself, in its hard
 * IRQ (atomic for a driver's IPIs and IRQs-off code, and the PMI is sent
 * after the store), with no NMI of the model's, and each DEBUGCTL write
 * that turns BTS on is followed at once by N kernel branches stored
 * before the write returns: the rest of the writer's code.  A PMI they
 * raise lands inside the writer's bracket, and no later NMI of the
 * model's serves an index left past the threshold (the default's store
 * NMIs would: a driver's handler runs on every NMI).
 *
 * bts_late_pmi (debugfs, write a CPU number; with model_bts_tail only,
 * where records are stored in line): a threshold PMI whose NMI comes
 * late.  At the driver's next DEBUGCTL write on that CPU that turns a
 * BTINT=1 BTS off while the index is below the threshold, the kernel
 * branches that retire before the write are stored first, up to the
 * threshold (bts_late), and the PMI they raise is delivered from
 * irq_work: after the writer's IRQs-off code, which by then may have
 * moved the index back (a switch record's drain, a stop).  Its NMI then
 * finds nothing to do; on silicon the APIC has masked LVTPC on its
 * delivery all the same, and a driver that leaves it masked gets no
 * further PMI on that CPU (counted in pmis_masked).  Writes that find
 * the index at or past the threshold (the driver's own PMI handler)
 * leave it armed.
 */
#include <linux/debugfs.h>
#include <linux/irq_work.h>
#include <linux/kernel.h>
#include <linux/kstrtox.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/smp.h>
#include <linux/mm.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <asm/cpufeature.h>
#include <asm/nmi.h>

#include "../bts_regs.h"
#include "model.h"

static unsigned int pt_model_bts_per_tick = 16;
module_param_named(model_bts_per_tick, pt_model_bts_per_tick, uint, 0644);
MODULE_PARM_DESC(model_bts_per_tick,
		 "model: BTS branches per generator tick (1..64, default 16)");

static unsigned int pt_model_bts_tail;
module_param_named(model_bts_tail, pt_model_bts_tail, uint, 0644);
MODULE_PARM_DESC(model_bts_tail,
		 "model: 0 (default) BTS stored from an NMI of the model's; N (1..64) stored in the tick, and N kernel branches stored right after a DEBUGCTL write that turns BTS on");

static void pt_bts_store(struct pt_model_cpu *st,
			 const struct pt_model_bts_branch *br, unsigned int n);
static bool pt_bts_store_quiet(struct pt_model_cpu *st,
			       const struct pt_model_bts_branch *br,
			       unsigned int n);

/* User-mode branches land in this synthetic text range. */
#define PT_BTS_USER_TEXT	0x400000ULL

bool pt_model_debugctl_bts(u64 debugctl)
{
	return (debugctl & (BTS_DEBUGCTL_TR | BTS_DEBUGCTL_BTS)) ==
	       (BTS_DEBUGCTL_TR | BTS_DEBUGCTL_BTS);
}

bool pt_model_bts_on(const struct pt_model_regs *r)
{
	return pt_model_debugctl_bts(r->debugctl);
}

static u64 pt_bts_lfsr(struct pt_model_bts *b)
{
	return pt_model_xorshift(&b->lfsr, 0x2545f4914f6cdd1dULL);
}

struct pt_model_bts_branch *pt_model_bts_slots(struct pt_model_cpu *st)
{
	return READ_ONCE(st->bts.staged) ? NULL : st->bts.br;
}

void pt_model_bts_commit(struct pt_model_cpu *st, unsigned int n)
{
	struct pt_model_bts *b = &st->bts;

	n = min_t(unsigned int, n, PT_MODEL_BTS_STAGE);
	if (!n)
		return;
	/* The NMI reads br only after it sees staged (pairs with its rmb). */
	smp_wmb();
	WRITE_ONCE(b->staged, n);
	atomic_inc(&b->nmis_owed);
	pt_model_nmi_self();
}

/* @n synthetic branches at @kip (kernel) or in the user text range. */
static void pt_bts_fill(struct pt_model_cpu *st, struct pt_model_bts_branch *br,
			unsigned int n, u64 kip, bool kernel_only)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		u64 x = pt_bts_lfsr(&st->bts);

		br[i].kernel = (x & 1) || kernel_only;
		if (br[i].kernel) {
			br[i].from = kip + ((x >> 8) & 0xff0);
			br[i].to = kip + ((x >> 20) & 0xff0);
		} else {
			br[i].from = PT_BTS_USER_TEXT + ((x >> 8) & 0xfff0);
			br[i].to = PT_BTS_USER_TEXT + ((x >> 24) & 0xfff0);
		}
	}
}

void pt_model_bts_tick(struct pt_model_cpu *st, u64 ip, bool user)
{
	unsigned int n = clamp(READ_ONCE(pt_model_bts_per_tick), 1U,
			       (unsigned int)PT_MODEL_BTS_STAGE);
	u64 kip = user ? (u64)_THIS_IP_ : ip;
	struct pt_model_bts_branch *br;

	if (!pt_model_bts_on(&READ_ONCE(st->active)->regs))
		return;
	br = pt_model_bts_slots(st);
	if (!br)
		return;
	/* Exact mode steps the user branches (bts_exact.c). */
	pt_bts_fill(st, br, n, kip, pt_model_bts_exact(st));
	if (READ_ONCE(pt_model_bts_tail))
		pt_bts_store(st, br, n);	/* hard IRQ: no NMI of ours */
	else
		pt_model_bts_commit(st, n);
}

void pt_model_bts_started(struct pt_model_cpu *st)
{
	unsigned int n = min_t(unsigned int, READ_ONCE(pt_model_bts_tail),
			       PT_MODEL_BTS_STAGE);
	struct pt_model_bts_branch *br;
	unsigned long flags;

	if (!n)
		return;
	/* The writer's IRQs-off code, as a tick would find it. */
	local_irq_save(flags);
	br = pt_model_bts_slots(st);
	if (br) {
		pt_bts_fill(st, br, n, (u64)_RET_IP_, true);
		pt_bts_store(st, br, n);
		atomic64_add(n, &st->stats.bts_tail);
	}
	local_irq_restore(flags);
}

static bool pt_bts_mem_ok(u64 addr, size_t len)
{
	return virt_addr_valid((void *)(unsigned long)addr) &&
	       virt_addr_valid((void *)(unsigned long)(addr + len - 1));
}

/* The kernel's half of the canonical address space (PTI's rule above). */
static bool pt_bts_kernel_ip(u64 ip)
{
	return (s64)ip < 0;
}

static bool pt_bts_filtered(u64 debugctl, const struct pt_model_bts_branch *b)
{
	return b->kernel ? debugctl & BTS_DEBUGCTL_OFF_OS :
			   debugctl & BTS_DEBUGCTL_OFF_USR;
}

/*
 * Store @br[0..n) as the DS area says: in the model's NMI, or (with
 * model_bts_tail) in the tick or right after a DEBUGCTL write.  True if
 * a record reached the interrupt threshold: a PMI is raised (the caller
 * sends it).
 */
static bool pt_bts_store_quiet(struct pt_model_cpu *st,
			       const struct pt_model_bts_branch *br,
			       unsigned int n)
{
	const struct pt_model_regs *r = &READ_ONCE(st->active)->regs;
	struct bts_ds_area *area;
	struct bts_ds_area ds;
	u64 ctl = r->debugctl, idx, old;
	bool pmi = false;
	unsigned int i;

	if (!pt_model_bts_on(r))
		return false;
	area = (struct bts_ds_area *)(unsigned long)r->ds_area;
	if (!pt_bts_mem_ok(r->ds_area, sizeof(ds))) {
		atomic64_inc(&st->stats.bts_ds_errors);
		return false;
	}
	memcpy(&ds, area, sizeof(ds));
	if (!pt_model_bts_layout_ok(&ds)) {
		atomic64_inc(&st->stats.bts_ds_errors);
		return false;
	}
	idx = ds.bts_index;
	old = idx;
	for (i = 0; i < n; i++) {
		const struct pt_model_bts_branch *b = &br[i];
		struct bts_record rec = { b->from, b->to, 0 };

		if (pt_bts_filtered(ctl, b)) {
			atomic64_inc(&st->stats.bts_filtered);
			continue;
		}
		if (boot_cpu_has(X86_FEATURE_PTI) &&
		    (!b->kernel || !pt_bts_kernel_ip(b->from) ||
		     !pt_bts_kernel_ip(b->to))) {
			atomic64_inc(&st->stats.bts_pti_faults);
			continue;
		}
		if (idx >= ds.bts_max) {
			/* Only with BTINT=1: circular buffers wrapped below. */
			atomic64_inc(&st->stats.bts_dropped);
			continue;
		}
		if (!pt_bts_mem_ok(idx, sizeof(rec))) {
			atomic64_inc(&st->stats.bts_ds_errors);
			break;
		}
		memcpy((void *)(unsigned long)idx, &rec, sizeof(rec));
		atomic64_inc(&st->stats.bts_records);
		idx += BTS_RECORD_SIZE;
		if ((ctl & BTS_DEBUGCTL_BTINT) && old < ds.bts_thresh &&
		    idx >= ds.bts_thresh)
			pmi = true;
		if (idx >= ds.bts_max && !(ctl & BTS_DEBUGCTL_BTINT))
			idx = ds.bts_base;
		old = idx;
	}
	if (idx != ds.bts_index)
		WRITE_ONCE(area->bts_index, idx);
	if (pmi)
		atomic64_inc(&st->stats.bts_pmis);
	return pmi;
}

static void pt_bts_store(struct pt_model_cpu *st,
			 const struct pt_model_bts_branch *br, unsigned int n)
{
	if (pt_bts_store_quiet(st, br, n))
		pt_model_pmi_send(st);
}

/* How far below the interrupt threshold the index is (bytes), or 0. */
static u64 pt_bts_to_threshold(const struct pt_model_regs *r)
{
	const struct bts_ds_area *area;

	if (!pt_bts_mem_ok(r->ds_area, sizeof(*area)))
		return 0;
	area = (const struct bts_ds_area *)(unsigned long)r->ds_area;
	if (!pt_model_bts_layout_ok(area) ||
	    READ_ONCE(area->bts_index) >= area->bts_thresh)
		return 0;
	return area->bts_thresh - READ_ONCE(area->bts_index);
}

void pt_model_bts_writing(struct pt_model_cpu *st, u64 val)
{
	const struct pt_model_regs *r = &READ_ONCE(st->active)->regs;
	struct pt_model_bts_branch *br;
	unsigned long flags;
	bool pmi = false;
	u64 left;

	if (!READ_ONCE(st->bts.late) || !READ_ONCE(pt_model_bts_tail) ||
	    !pt_model_bts_on(r) || !(r->debugctl & BTS_DEBUGCTL_BTINT) ||
	    pt_model_debugctl_bts(val))
		return;
	local_irq_save(flags);
	left = pt_bts_to_threshold(r);
	br = pt_model_bts_slots(st);
	while (left && br && !pmi) {
		unsigned int n = min_t(u64, DIV_ROUND_UP(left, BTS_RECORD_SIZE),
				       PT_MODEL_BTS_STAGE);
		u64 before = atomic64_read(&st->stats.bts_records);

		pt_bts_fill(st, br, n, (u64)_RET_IP_, true);
		pmi = pt_bts_store_quiet(st, br, n);
		before = atomic64_read(&st->stats.bts_records) - before;
		atomic64_add(before, &st->stats.bts_late);
		/* Filtered out (BTS_OFF_OS): nothing reaches it. */
		if (!before)
			break;
		left = pt_bts_to_threshold(r);
	}
	if (pmi) {
		WRITE_ONCE(st->bts.late, false);
		irq_work_queue(&st->bts.late_work);
	}
	local_irq_restore(flags);
}

static void pt_bts_late_fn(struct irq_work *w)
{
	pt_model_pmi_send(this_cpu_ptr(pt_model_cpus));
}

static ssize_t pt_bts_late_write(struct file *f, const char __user *ubuf,
				 size_t len, loff_t *ppos)
{
	unsigned int cpu;
	int ret;

	ret = kstrtouint_from_user(ubuf, len, 0, &cpu);
	if (ret)
		return ret;
	if (cpu >= nr_cpu_ids || !cpu_possible(cpu))
		return -EINVAL;
	WRITE_ONCE(pt_model_cpu_ptr(cpu)->bts.late, true);
	return len;
}

static const struct file_operations pt_bts_late_fops = {
	.owner = THIS_MODULE,
	.write = pt_bts_late_write,
	.llseek = noop_llseek,
};

/* bts_selftest: the CPU whose BTS PMIs it takes, as a driver would. */
static int pt_bts_claim_cpu = -1;
atomic_t pt_model_bts_pmis_claimed = ATOMIC_INIT(0);

void pt_model_bts_claim_pmis(int cpu)
{
	WRITE_ONCE(pt_bts_claim_cpu, cpu);
}

static int pt_model_bts_nmi(unsigned int type, struct pt_regs *regs)
{
	struct pt_model_cpu *st = this_cpu_ptr(pt_model_cpus);
	unsigned int n = READ_ONCE(st->bts.staged);

	if (READ_ONCE(pt_bts_claim_cpu) == st->cpu &&
	    READ_ONCE(st->lvtpc_masked)) {
		atomic_inc(&pt_model_bts_pmis_claimed);
		WRITE_ONCE(st->lvtpc_masked, false);
		if (!n)
			return NMI_HANDLED;
	}
	if (!n && !atomic_read(&st->bts.nmis_owed))
		return NMI_DONE;
	if (n) {
		/* br is read after staged (pairs with the producer's wmb). */
		smp_rmb();
		pt_bts_store(st, st->bts.br, n);
		WRITE_ONCE(st->bts.staged, 0);
	}
	atomic_add_unless(&st->bts.nmis_owed, -1, 0);
	return NMI_HANDLED;
}

int pt_model_bts_init(struct dentry *dir)
{
	int cpu, ret;

	for_each_possible_cpu(cpu)
		init_irq_work(&pt_model_cpu_ptr(cpu)->bts.late_work,
			      pt_bts_late_fn);
	ret = register_nmi_handler(NMI_LOCAL, pt_model_bts_nmi, 0,
				   "pt_model_bts");
	if (ret)
		return ret;
	pt_model_bts_selftest_init(dir);
	debugfs_create_file("bts_late_pmi", 0200, dir, NULL,
			    &pt_bts_late_fops);
	return 0;
}

void pt_model_bts_exit(void)
{
	int cpu;

	unregister_nmi_handler(NMI_LOCAL, "pt_model_bts");
	for_each_possible_cpu(cpu)
		irq_work_sync(&pt_model_cpu_ptr(cpu)->bts.late_work);
}
