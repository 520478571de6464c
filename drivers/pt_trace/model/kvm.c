// SPDX-License-Identifier: GPL-2.0
/*
 * KVM's handling of IA32_DEBUGCTL around a guest's run, played when a
 * test asks (debugfs kvm_agent, "CPU on|off"): what a PMI that arrives
 * while a guest runs does to the host's DEBUGCTL, the MSR that holds
 * BTS's enable bits (arch/x86/kvm/x86.c vcpu_enter_guest(),
 * arch/x86/kvm/vmx/vmx.c vmx_vcpu_run(), as read in Debian's 6.1.192
 * source):
 *  1. IRQs off, before VM entry, KVM snapshots the host's DEBUGCTL
 *     (since "KVM: x86: Snapshot the host's DEBUGCTL after disabling
 *     IRQs"; before that fix, at vcpu load, which an IPI could outdate);
 *  2. VM exit clears IA32_DEBUGCTL (SDM Vol. 3C, "Loading Host
 *     Control Registers, Debug Registers, MSRs": "IA32_DEBUGCTL MSR is
 *     cleared to 00000000H");
 *  3. an NMI (a PMI) that caused the exit, or came after it, is handled
 *     at once with IRQs still off (vmx_do_nmi_irqoff()): the host's NMI
 *     handlers, the driver's among them, find DEBUGCTL 0;
 *  4. then KVM writes the snapshot back (update_debugctlmsr()), undoing
 *     whatever those handlers did to DEBUGCTL.  IRQs come on only after.
 * While "on" for a CPU, each PMI the model raises there from hard-IRQ
 * context (the generator's tick: a PEBS threshold, a ToPA region, a BTS
 * threshold with model_bts_tail) is delivered so: snapshot, DEBUGCTL 0,
 * the NMI sent and waited for, the snapshot written back when it is not
 * zero.  A PMI raised in NMI context (the model's BTS store NMIs) is
 * sent as usual: NMIs do not nest.  Reading the file gives a line per
 * online CPU: "cpuN window on|off pmis P bts_restored R",
 * R counting the write-backs that turned TR/BTS on again.
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/irqflags.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/seq_file.h>
#include <linux/smp.h>
#include <asm/nmi.h>

#include "../bts_regs.h"
#include "model.h"

struct pt_kvm_window {
	bool on;
	u64 pmis;		/* PMIs delivered inside the window */
	u64 bts_restored;	/* write-backs that set TR/BTS again */
	unsigned long nmis;	/* NMIs seen on this CPU */
};

static DEFINE_PER_CPU(struct pt_kvm_window, pt_kvm_window);

/* Counts every NMI on the CPU: the window waits for its own. */
static int pt_kvm_nmi(unsigned int type, struct pt_regs *regs)
{
	struct pt_kvm_window *w = this_cpu_ptr(&pt_kvm_window);

	WRITE_ONCE(w->nmis, w->nmis + 1);
	return NMI_DONE;
}

/*
 * The PMI's NMI, sent as inside KVM's IRQs-off window when the test
 * asked for it on this CPU; false when it was not (the caller sends it).
 */
bool pt_model_kvm_pmi(struct pt_model_cpu *st)
{
	struct pt_kvm_window *w;
	unsigned long seen;
	u64 host = 0;
	int i;

	if (in_nmi() || !irqs_disabled() || st->cpu != smp_processor_id())
		return false;
	w = this_cpu_ptr(&pt_kvm_window);
	if (!READ_ONCE(w->on))
		return false;
	pt_model_do_rdmsr(st, BTS_MSR_DEBUGCTL, &host);
	pt_model_do_wrmsr(st, BTS_MSR_DEBUGCTL, 0, true);
	seen = READ_ONCE(w->nmis);
	pt_model_nmi_self();
	/* Delivered at once on silicon; TCG takes it at a block's end. */
	for (i = 0; i < 20000 && READ_ONCE(w->nmis) == seen; i++)
		udelay(1);
	WRITE_ONCE(w->pmis, w->pmis + 1);
	if (!host)
		return true;
	pt_model_do_wrmsr(st, BTS_MSR_DEBUGCTL, host, true);
	if (host & (BTS_DEBUGCTL_TR | BTS_DEBUGCTL_BTS))
		WRITE_ONCE(w->bts_restored, w->bts_restored + 1);
	return true;
}

static ssize_t pt_kvm_write(struct file *f, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	char name[PT_AGENT_NAME];
	struct pt_kvm_window *w;
	unsigned int cpu;
	int ret;

	ret = pt_model_agent_args(ubuf, len, &cpu, name);
	if (ret)
		return ret;
	w = per_cpu_ptr(&pt_kvm_window, cpu);
	if (strcmp(name, "on") && strcmp(name, "off"))
		return -EINVAL;
	WRITE_ONCE(w->on, !strcmp(name, "on"));
	return len;
}

static int pt_kvm_show(struct seq_file *m, void *v)
{
	int cpu;

	for_each_online_cpu(cpu) {
		struct pt_kvm_window *w = per_cpu_ptr(&pt_kvm_window, cpu);

		seq_printf(m, "cpu%d window %s pmis %llu bts_restored %llu\n",
			   cpu, READ_ONCE(w->on) ? "on" : "off",
			   READ_ONCE(w->pmis), READ_ONCE(w->bts_restored));
	}
	return 0;
}

static int pt_kvm_open(struct inode *inode, struct file *f)
{
	return single_open(f, pt_kvm_show, NULL);
}

static const struct file_operations pt_kvm_fops = {
	.owner = THIS_MODULE,
	.open = pt_kvm_open,
	.read = seq_read,
	.write = pt_kvm_write,
	.llseek = seq_lseek,
	.release = single_release,
};

int pt_model_kvm_init(struct dentry *dir)
{
	int ret;

	ret = register_nmi_handler(NMI_LOCAL, pt_kvm_nmi, 0, "pt_model_kvm");
	if (ret)
		return ret;
	debugfs_create_file("kvm_agent", 0600, dir, NULL, &pt_kvm_fops);
	return 0;
}

/* After the generator stopped: no PMI is raised in a window any more. */
void pt_model_kvm_exit(void)
{
	unregister_nmi_handler(NMI_LOCAL, "pt_model_kvm");
}
