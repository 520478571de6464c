// SPDX-License-Identifier: GPL-2.0
/*
 * The other agents on a PT CPU, which the driver must live beside on a
 * real machine and which the model otherwise never plays (see
 * Documentation/model.rst, "Other agents").  Each acts only when a test
 * asks for it through debugfs (pt_trace/model/):
 *
 *   foreign   "CPU ACTION": a perf-like owner of PT on CPU.
 *     start   its sched-in: OUTPUT_BASE (its own one-region ToPA table),
 *             OUTPUT_MASK_PTRS, STATUS, then RTIT_CTL with TraceEn, as
 *             perf's pt_config_buffer()/pt_config() write them.  Each
 *             write #GPs where silicon's would (while our TraceEn is 1):
 *             counted in foreign_faults (and gp_faults_test), and the
 *             agent carries on, as perf does after a faulting wrmsrl.
 *     stop    its sched-out (pt_config_stop()): RTIT_CTL = its own value
 *             without TraceEn, a write that is always legal and so
 *             clears our TraceEn too when we trace.
 *     switch  stop then start in one go, IRQs off: a context switch
 *             (sched-out, sched-in) with nothing of ours in between.
 *     clear   clears TraceEn and nothing else in the RTIT_CTL it finds,
 *             as KVM's or a firmware's stop would.
 *     pmi     a bit-55 PMI of its own (perf's PT, a KVM guest's).
 *     off     its handler claims nothing more (no MSR is written).
 *   Its NMI handler runs after the driver's (registered without
 *   NMI_FLAG_FIRST) and, like perf's handle_pmi_common(), acknowledges
 *   all of IA32_PERF_GLOBAL_STATUS; it counts its own PMIs in
 *   foreign_handled, or in foreign_stolen when someone (the driver)
 *   acknowledged bit 55 first.
 *
 *   late_pmi  "CPU WHEN": a ToPA PMI at an inconvenient moment.
 *     stop    at the driver's next TraceEn 1->0 on CPU: bit 55 and the
 *             NMI at once, i.e. inside its stop IPI (or PMI).
 *     after   at that TraceEn 1->0, bit 55 (raised before the disable
 *             completed, as silicon sets it), and the NMI from irq_work:
 *             it comes right after the IPI returns (after the final
 *             stop, when it was one).
 *     guest   as after, and in the same moment a KVM guest's ToPA PMI
 *             (the foreign agent's, counted as its PMIs are): both set
 *             the one bit 55 and arrive as one NMI.  Its handler must
 *             still find the bit (foreign_handled, not foreign_stolen).
 *     start   at the driver's next TraceEn 0->1 on CPU: bit 55 and the
 *             NMI at once, inside its START IPI before it may handle
 *             PMIs, as silicon raises one when the output already sits
 *             at an INT region or PendTopaPMI was set.
 *     every   as stop, at every TraceEn 1->0 until "none": a PMI inside
 *             each service of the driver's (the rate limit must hold).
 *     none    disarms.
 *     now     bit 55 and the NMI now.
 *     masked  bit 55 set and LVTPC masked, no NMI: a PMI whose NMI the
 *             APIC holds back (a PMI of ours delivered while a previous
 *             one was in service).  See unload below.
 *
 *   hw_error  "CPU now": an operational error on CPU now, while it
 *             traces: RTIT_STATUS.Error set and TriggerEn cleared, as
 *             the model's output does on a ToPA error (SDM 36.2.6.2):
 *             no more output, no PMI, TraceEn stays set.  Without
 *             TraceEn, or Stopped or in Error already, nothing changes.
 *             It puts a running trace in its error state at once.
 *
 *   vmx       "CPU on|off": what VMXON/VMXOFF do to PT.  VMXON sets
 *             CR4.VMXE (the model's, which the driver reads through
 *             pt_hw->vmx_on) and, without IA32_VMX_MISC[14], clears
 *             TraceEn (pt.c intel_pt_handle_vmx(): "VMXON will clear
 *             RTIT_CTL.TraceEn"); a write setting TraceEn then #GPs.
 *
 * At unload, a CPU still holding bit 55 gets its NMI (on silicon it
 * comes as soon as anybody unmasks LVTPC, after the driver is gone):
 * the kernel then reports "NMI received for unknown reason", which the
 * VM runner fails on.  A CPU whose LVTPC is still masked is logged: on
 * silicon no further PMI (perf's sampling) would reach it.
 */
#include <linux/debugfs.h>
#include <linux/gfp.h>
#include <linux/irq_work.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/pt_trace.h>
#include <asm/apic.h>
#include <asm/irq_vectors.h>
#include <asm/nmi.h>

#include "../regs.h"
#include "model.h"

/* The foreign owner's RTIT_CTL: ToPA, branches, user and kernel. */
#define PT_FOREIGN_CTL	(PT_CTL_TOPA | PT_CTL_BRANCHEN | PT_CTL_USER | \
			 PT_CTL_OS)

enum pt_late_when {
	PT_LATE_NONE, PT_LATE_STOP, PT_LATE_AFTER, PT_LATE_GUEST, PT_LATE_START,
	PT_LATE_EVERY
};

struct pt_agent_cpu {
	/* The foreign owner: its table [4 KiB region, END -> table]. */
	struct page *table, *region;
	bool active;			/* its handler claims its PMIs */
	bool pmi_outstanding;		/* raised, its handler not yet run */
	int late;			/* enum pt_late_when, armed */
	struct irq_work late_work;	/* PT_LATE_AFTER */
};

static DEFINE_PER_CPU(struct pt_agent_cpu, pt_agent_cpu);

static atomic_t pt_foreign_pmis, pt_foreign_handled, pt_foreign_stolen,
		  pt_foreign_faults, pt_late_raised;

/* A write of another agent: its #GPs are the test's, not the driver's. */
static void pt_agent_wrmsr(struct pt_model_cpu *st, u32 msr, u64 val)
{
	if (pt_model_do_wrmsr(st, msr, val, true))
		atomic_inc(&pt_foreign_faults);
}

static void pt_foreign_start(struct pt_agent_cpu *ag, struct pt_model_cpu *st)
{
	pt_agent_wrmsr(st, PT_MSR_RTIT_OUTPUT_BASE, page_to_phys(ag->table));
	pt_agent_wrmsr(st, PT_MSR_RTIT_OUTPUT_MASK, PT_MASK_LOWER);
	pt_agent_wrmsr(st, PT_MSR_RTIT_STATUS, 0);
	pt_agent_wrmsr(st, PT_MSR_RTIT_CTL, PT_FOREIGN_CTL | PT_CTL_TRACEEN);
}

static int pt_raise_fn(struct pt_model_cpu *st, struct pt_model_state *s,
		       void *arg)
{
	s->regs.global_status |= PT_GLOBAL_STATUS_TOPA_PMI;
	return 0;
}

void pt_model_pmi_raise(struct pt_model_cpu *st)
{
	pt_model_update(st, pt_raise_fn, NULL, true);
	pt_model_pmi_send(st);
}

struct pt_vmx_arg {
	bool on;
	struct pt_model_out_result out;
};

/* An operational error now (hw_error): as pt_out_do() sets one. */
static int pt_hw_error_fn(struct pt_model_cpu *st, struct pt_model_state *s,
			  void *arg)
{
	struct pt_model_regs *r = &s->regs;

	if ((r->ctl & PT_CTL_TRACEEN) &&
	    !(r->status & (PT_STATUS_ERROR | PT_STATUS_STOPPED))) {
		r->status |= PT_STATUS_ERROR;
		r->status &= ~PT_STATUS_TRIGGEREN;
	}
	return 0;
}

static int pt_vmx_fn(struct pt_model_cpu *st, struct pt_model_state *s,
		     void *arg)
{
	struct pt_vmx_arg *a = arg;
	struct pt_model_regs *r = &s->regs;
	u32 packets = 0;

	memset(&a->out, 0, sizeof(a->out));
	r->vmxe = a->on;
	/* VMXON and VMXOFF leave no current VMCS (pointer all ones). */
	s->vmx.vmcs = 0;
	if (!a->on || (pt_model_prof->vmx_misc & BIT_ULL(14)) ||
	    !(r->ctl & PT_CTL_TRACEEN))
		return 0;
	/* As a TraceEn 1 -> 0 write: the packets held are flushed. */
	pt_model_gen_on_disable(st, s, &a->out, &packets);
	r->ctl &= ~PT_CTL_TRACEEN;
	r->status &= ~PT_STATUS_TRIGGEREN;
	return 0;
}

enum pt_agent_op {
	PT_OP_FOREIGN_START, PT_OP_FOREIGN_STOP, PT_OP_FOREIGN_SWITCH,
	PT_OP_FOREIGN_CLEAR,
	PT_OP_FOREIGN_PMI,
	PT_OP_FOREIGN_OFF, PT_OP_LATE_STOP, PT_OP_LATE_AFTER, PT_OP_LATE_GUEST,
	PT_OP_LATE_START, PT_OP_LATE_EVERY, PT_OP_LATE_NONE,
	PT_OP_LATE_NOW,
	PT_OP_LATE_MASKED, PT_OP_VMX_ON, PT_OP_VMX_OFF, PT_OP_HW_ERROR,
};

static void pt_agent_on_cpu(void *info)
{
	struct pt_agent_cpu *ag = this_cpu_ptr(&pt_agent_cpu);
	struct pt_model_cpu *st = this_cpu_ptr(pt_model_cpus);
	struct pt_vmx_arg vmx = { 0 };
	u64 ctl = 0;

	switch (*(enum pt_agent_op *)info) {
	case PT_OP_FOREIGN_START:
		WRITE_ONCE(ag->active, true);
		pt_foreign_start(ag, st);
		break;
	case PT_OP_FOREIGN_OFF:
		WRITE_ONCE(ag->active, false);
		break;
	case PT_OP_FOREIGN_STOP:
		pt_agent_wrmsr(st, PT_MSR_RTIT_CTL, PT_FOREIGN_CTL);
		break;
	case PT_OP_FOREIGN_SWITCH:
		pt_agent_wrmsr(st, PT_MSR_RTIT_CTL, PT_FOREIGN_CTL);
		pt_foreign_start(ag, st);
		break;
	case PT_OP_FOREIGN_CLEAR:
		pt_model_do_rdmsr(st, PT_MSR_RTIT_CTL, &ctl);
		pt_agent_wrmsr(st, PT_MSR_RTIT_CTL, ctl & ~PT_CTL_TRACEEN);
		break;
	case PT_OP_FOREIGN_PMI:
		WRITE_ONCE(ag->active, true);
		WRITE_ONCE(ag->pmi_outstanding, true);
		atomic_inc(&pt_foreign_pmis);
		pt_model_pmi_raise(st);
		break;
	case PT_OP_LATE_STOP:
		WRITE_ONCE(ag->late, PT_LATE_STOP);
		break;
	case PT_OP_LATE_AFTER:
		WRITE_ONCE(ag->late, PT_LATE_AFTER);
		break;
	case PT_OP_LATE_GUEST:
		WRITE_ONCE(ag->late, PT_LATE_GUEST);
		break;
	case PT_OP_LATE_START:
		WRITE_ONCE(ag->late, PT_LATE_START);
		break;
	case PT_OP_LATE_EVERY:
		WRITE_ONCE(ag->late, PT_LATE_EVERY);
		break;
	case PT_OP_LATE_NONE:
		WRITE_ONCE(ag->late, PT_LATE_NONE);
		break;
	case PT_OP_LATE_NOW:
		atomic_inc(&pt_late_raised);
		pt_model_pmi_raise(st);
		break;
	case PT_OP_LATE_MASKED:
		atomic_inc(&pt_late_raised);
		pt_model_update(st, pt_raise_fn, NULL, true);
		WRITE_ONCE(st->lvtpc_masked, true);
		break;
	case PT_OP_VMX_ON:
	case PT_OP_VMX_OFF:
		vmx.on = *(enum pt_agent_op *)info == PT_OP_VMX_ON;
		pt_model_update(st, pt_vmx_fn, &vmx, true);
		atomic64_add(vmx.out.written, &st->stats.bytes_written);
		atomic64_add(vmx.out.lost, &st->stats.lost_bytes);
		break;
	case PT_OP_HW_ERROR:
		pt_model_update(st, pt_hw_error_fn, NULL, true);
		break;
	}
}

/*
 * perf's intel_pt event scheduled in or out on this CPU (perf_pmu.c):
 * what "foreign start"/"stop" do, from perf's own callbacks.
 */
void pt_model_foreign_sched(bool in)
{
	enum pt_agent_op op = in ? PT_OP_FOREIGN_START : PT_OP_FOREIGN_STOP;

	pt_agent_on_cpu(&op);
}

/* The driver cleared TraceEn: a late PMI armed for this moment. */
void pt_model_agents_on_disable(struct pt_model_cpu *st)
{
	struct pt_agent_cpu *ag = per_cpu_ptr(&pt_agent_cpu, st->cpu);

	switch (READ_ONCE(ag->late)) {
	case PT_LATE_START:
		return;		/* armed for the next enable */
	case PT_LATE_EVERY:
		/* Every disable, until "none": one inside each service. */
		atomic_inc(&pt_late_raised);
		pt_model_pmi_raise(st);
		return;
	}
	switch (xchg(&ag->late, PT_LATE_NONE)) {
	case PT_LATE_STOP:
		atomic_inc(&pt_late_raised);
		pt_model_pmi_raise(st);
		break;
	case PT_LATE_GUEST:
		/* A guest's PMI in the same bit, before ours is delivered. */
		WRITE_ONCE(ag->active, true);
		WRITE_ONCE(ag->pmi_outstanding, true);
		atomic_inc(&pt_foreign_pmis);
		fallthrough;
	case PT_LATE_AFTER:
		/* Raised before the disable completed, delivered late. */
		pt_model_update(st, pt_raise_fn, NULL, true);
		irq_work_queue(&ag->late_work);
		break;
	}
}

/* The driver set TraceEn: a late PMI armed for this moment. */
void pt_model_agents_on_enable(struct pt_model_cpu *st)
{
	struct pt_agent_cpu *ag = per_cpu_ptr(&pt_agent_cpu, st->cpu);

	if (READ_ONCE(ag->late) != PT_LATE_START ||
	    cmpxchg(&ag->late, PT_LATE_START, PT_LATE_NONE) != PT_LATE_START)
		return;
	atomic_inc(&pt_late_raised);
	pt_model_pmi_raise(st);
}

static void pt_late_work_fn(struct irq_work *w)
{
	atomic_inc(&pt_late_raised);
	pt_model_pmi_send(this_cpu_ptr(pt_model_cpus));
}

/* perf's handler, after ours: acknowledges all of GLOBAL_STATUS. */
static int pt_foreign_nmi(unsigned int type, struct pt_regs *regs)
{
	struct pt_agent_cpu *ag = this_cpu_ptr(&pt_agent_cpu);
	struct pt_model_cpu *st = this_cpu_ptr(pt_model_cpus);
	u64 gs = 0;

	if (!READ_ONCE(ag->active))
		return NMI_DONE;
	pt_model_do_rdmsr(st, PT_MSR_PERF_GLOBAL_STATUS, &gs);
	if (gs) {
		pt_model_do_wrmsr(st, PT_MSR_PERF_GLOBAL_STATUS_RESET, gs, true);
		WRITE_ONCE(st->lvtpc_masked, false);
	}
	if (READ_ONCE(ag->pmi_outstanding)) {
		WRITE_ONCE(ag->pmi_outstanding, false);
		atomic_inc(gs & PT_GLOBAL_STATUS_TOPA_PMI ?
			     &pt_foreign_handled : &pt_foreign_stolen);
		return NMI_HANDLED;
	}
	return gs ? NMI_HANDLED : NMI_DONE;
}

static const struct {
	const char *name;
	enum pt_agent_op op;
} pt_agent_ops[] = {
	{ "start", PT_OP_FOREIGN_START }, { "stop", PT_OP_FOREIGN_STOP },
	{ "clear", PT_OP_FOREIGN_CLEAR }, { "switch", PT_OP_FOREIGN_SWITCH },
	{ "pmi", PT_OP_FOREIGN_PMI }, { "off", PT_OP_FOREIGN_OFF },
	{ "late_stop", PT_OP_LATE_STOP }, { "late_after", PT_OP_LATE_AFTER },
	{ "late_guest", PT_OP_LATE_GUEST }, { "late_start", PT_OP_LATE_START },
	{ "late_every", PT_OP_LATE_EVERY }, { "late_none", PT_OP_LATE_NONE },
	{ "late_now", PT_OP_LATE_NOW }, { "late_masked", PT_OP_LATE_MASKED },
	{ "vmx_on", PT_OP_VMX_ON }, { "vmx_off", PT_OP_VMX_OFF },
	{ "error_now", PT_OP_HW_ERROR },
};

int pt_model_agent_args(const char __user *ubuf, size_t len,
			unsigned int *cpu, char name[PT_AGENT_NAME])
{
	char *buf;
	int n;

	if (len >= 32)
		return -EINVAL;
	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	n = sscanf(buf, "%u %23s", cpu, name);
	kfree(buf);
	if (n != 2 || *cpu >= nr_cpu_ids || !cpu_online(*cpu))
		return -EINVAL;
	return 0;
}

/* "CPU ACTION"; @prefix picks the file's group of actions. */
static ssize_t pt_agent_write(const char __user *ubuf, size_t len,
			      const char *prefix)
{
	char name[PT_AGENT_NAME], full[32];
	enum pt_agent_op op;
	unsigned int cpu, i;
	int ret;

	ret = pt_model_agent_args(ubuf, len, &cpu, name);
	if (ret)
		return ret;
	/* No VMXON on a CPU without VMX (CPUID.1:ECX[5]). */
	if (!strcmp(prefix, "vmx_") && !(pt_model_prof->leaf1.ecx & BIT(5)))
		return -EOPNOTSUPP;
	snprintf(full, sizeof(full), "%s%s", prefix, name);
	for (i = 0; i < ARRAY_SIZE(pt_agent_ops); i++)
		if (!strcmp(full, pt_agent_ops[i].name))
			break;
	if (i == ARRAY_SIZE(pt_agent_ops))
		return -EINVAL;
	op = pt_agent_ops[i].op;
	ret = smp_call_function_single(cpu, pt_agent_on_cpu, &op, 1);
	return ret ? ret : len;
}

static ssize_t pt_foreign_write(struct file *f, const char __user *ubuf,
				size_t len, loff_t *ppos)
{
	return pt_agent_write(ubuf, len, "");
}

static ssize_t pt_late_write(struct file *f, const char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	return pt_agent_write(ubuf, len, "late_");
}

static ssize_t pt_vmx_write(struct file *f, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	return pt_agent_write(ubuf, len, "vmx_");
}

static ssize_t pt_hw_error_write(struct file *f, const char __user *ubuf,
				 size_t len, loff_t *ppos)
{
	return pt_agent_write(ubuf, len, "error_");
}

static const struct file_operations pt_foreign_fops = {
	.owner = THIS_MODULE,
	.write = pt_foreign_write,
};

static const struct file_operations pt_late_fops = {
	.owner = THIS_MODULE,
	.write = pt_late_write,
};

static const struct file_operations pt_vmx_fops = {
	.owner = THIS_MODULE,
	.write = pt_vmx_write,
};

static const struct file_operations pt_hw_error_fops = {
	.owner = THIS_MODULE,
	.write = pt_hw_error_write,
};

void pt_model_agents_free(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct pt_agent_cpu *ag = per_cpu_ptr(&pt_agent_cpu, cpu);

		if (ag->table)
			__free_page(ag->table);
		if (ag->region)
			__free_page(ag->region);
		ag->table = NULL;
		ag->region = NULL;
	}
}

int pt_model_agents_init(struct dentry *dir)
{
	int cpu, ret;

	for_each_possible_cpu(cpu) {
		struct pt_agent_cpu *ag = per_cpu_ptr(&pt_agent_cpu, cpu);
		u64 *t;

		memset(ag, 0, sizeof(*ag));
		init_irq_work(&ag->late_work, pt_late_work_fn);
		ag->table = alloc_page(GFP_KERNEL | __GFP_ZERO);
		ag->region = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!ag->table || !ag->region) {
			pt_model_agents_free();
			return -ENOMEM;
		}
		/* Entry 0: one 4 KiB region (size 0); entry 1: END -> self. */
		t = page_address(ag->table);
		t[0] = page_to_phys(ag->region);
		t[1] = page_to_phys(ag->table) | PT_TOPA_END;
	}
	ret = register_nmi_handler(NMI_LOCAL, pt_foreign_nmi, 0,
				   "pt_model_foreign");
	if (ret) {
		pt_model_agents_free();
		return ret;
	}
	debugfs_create_file("foreign", 0200, dir, NULL, &pt_foreign_fops);
	debugfs_create_file("late_pmi", 0200, dir, NULL, &pt_late_fops);
	debugfs_create_file("vmx", 0200, dir, NULL, &pt_vmx_fops);
	debugfs_create_file("hw_error", 0200, dir, NULL, &pt_hw_error_fops);
	debugfs_create_atomic_t("foreign_pmis", 0444, dir, &pt_foreign_pmis);
	debugfs_create_atomic_t("foreign_handled", 0444, dir,
				&pt_foreign_handled);
	debugfs_create_atomic_t("foreign_stolen", 0444, dir,
				&pt_foreign_stolen);
	debugfs_create_atomic_t("foreign_faults", 0444, dir,
				&pt_foreign_faults);
	debugfs_create_atomic_t("late_pmis_raised", 0444, dir,
				&pt_late_raised);
	return 0;
}

/*
 * After the driver is gone (its exit ran): what a CPU still holds is
 * what silicon would deliver to nobody.  The debugfs files are removed
 * already, so no hook runs meanwhile.  The foreign table is freed by
 * pt_model_agents_free(), once the generator has stopped.
 */
void pt_model_agents_exit(void)
{
	int cpu;

	unregister_nmi_handler(NMI_LOCAL, "pt_model_foreign");
	for_each_online_cpu(cpu) {
		struct pt_agent_cpu *ag = per_cpu_ptr(&pt_agent_cpu, cpu);
		struct pt_model_cpu *st = pt_model_cpu_ptr(cpu);
		const struct pt_model_regs *r = &READ_ONCE(st->active)->regs;

		irq_work_sync(&ag->late_work);
		if (READ_ONCE(st->lvtpc_masked))
			pr_info("model: CPU %d: LVTPC left masked at unload: on silicon no further PMI (perf sampling) reaches this CPU\n",
				cpu);
		if (r->global_status & PT_GLOBAL_STATUS_TOPA_PMI) {
			pr_info("model: CPU %d: ToPA PMI (bit 55) still pending at unload: its NMI comes now, as on silicon once LVTPC is unmasked\n",
				cpu);
			apic->send_IPI_mask(cpumask_of(cpu), NMI_VECTOR);
		}
	}
}
