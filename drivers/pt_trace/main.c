// SPDX-License-Identifier: GPL-2.0
/*
 * pt_trace: a driver for Intel Processor Trace.
 *
 * Module load: choose the hardware backend (the CPU's MSRs, or the
 * software model of pt_trace_model.ko when asked for explicitly, see
 * hw.h), enumerate PT by CPUID alone,
 * refuse if PT is absent or already owned, then publish the capabilities
 * in sysfs and bring up the per-CPU tracing core.
 */
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/preempt.h>
#include <linux/smp.h>
#include <linux/pt_trace.h>

#include "bts_caps.h"
#include "caps.h"
#include "chardev.h"
#include "core.h"
#include "hw.h"
#include "ownership.h"
#include "regs.h"
#include "source_pt.h"
#include "sysfs.h"

static char *backend = "hw";
module_param(backend, charp, 0444);
MODULE_PARM_DESC(backend,
		 "hw (default): the CPU's Intel PT; model: pt_trace_model.ko's software model, for testing only");

struct dentry *pt_debugfs_root;

struct pt_load_check {
	atomic_t busy;		/* TraceEn already set */
	atomic_t vmx;		/* in VMX operation where that forbids PT */
};

static void pt_check_trace_en(void *info)
{
	struct pt_load_check *c = info;
	u64 ctl;

	if (!pt_rdmsr(PT_MSR_RTIT_CTL, &ctl) && (ctl & PT_CTL_TRACEEN))
		atomic_inc(&c->busy);
	if (pt_src_vmx_blocks_trace())
		atomic_inc(&c->vmx);
}

/* Another owner (perf's intel_pt, a hypervisor) may already be tracing. */
static int pt_check_not_in_use(void)
{
	struct pt_load_check c = { ATOMIC_INIT(0), ATOMIC_INIT(0) };

	on_each_cpu(pt_check_trace_en, &c, 1);
	if (atomic_read(&c.vmx))
		pr_notice("%d CPU(s) in VMX operation (CR4.VMXE), where this CPU cannot trace (IA32_VMX_MISC[14]=0): START fails there with EBUSY; boot with kvm.enable_virt_at_load=0 or unload kvm_intel to trace\n",
			  atomic_read(&c.vmx));
	if (atomic_read(&c.busy)) {
		pr_err("Intel PT is already enabled (RTIT_CTL.TraceEn=1) on %d CPU(s), probably by perf: not taking it over\n",
		       atomic_read(&c.busy));
		return -EBUSY;
	}
	return 0;
}

static int __init pt_trace_init(void)
{
	struct pt_cpuid_raw raw;
	enum pt_caps_verdict verdict;
	int ret;

	ret = pt_hw_select(backend);
	if (ret)
		return ret;
	/* Before the backend: the model publishes its counters here. */
	pt_debugfs_root = debugfs_create_dir("pt_trace", NULL);
	if (pt_hw->init) {
		ret = pt_hw->init(pt_debugfs_root);
		if (ret)
			goto err_debugfs;
	}

	pt_caps_read_raw(&raw);
	verdict = pt_caps_decode(&raw, &pt_caps);
	if (verdict != PT_CAPS_OK) {
		pr_err("%s: pt_trace needs Intel PT (Broadwell or later; in a VM, passed through by the hypervisor)\n",
		       pt_caps_verdict_str(verdict));
		ret = -ENODEV;
		goto err_hw;
	}

	/* VMX without IA32_VMX_MISC[14]: see caps.h (an unreadable one too). */
	if (pt_caps.vmx) {
		u64 misc = 0;

		/* The same on every CPU; read on one, not migrating meanwhile. */
		preempt_disable();
		pt_rdmsr(PT_MSR_VMX_MISC, &misc);
		preempt_enable();
		pt_caps_set_vmx_misc(&pt_caps, misc);
		if (pt_caps.vmx_blocks_trace)
			pr_info("this CPU cannot trace in VMX operation (IA32_VMX_MISC[14]=0): START fails with EBUSY while a hypervisor has VMX on\n");
	}

	bts_caps_read();

	ret = pt_check_not_in_use();
	if (ret)
		goto err_hw;

	ret = pt_sysfs_init();
	if (ret)
		goto err_hw;

	/* Before the core's cpuhp state: reserved before a CPU traces. */
	pt_own_init();
	bts_own_init();
	ret = pt_core_init();
	if (ret)
		goto err_own;

	ret = pt_chardev_init();
	if (ret)
		goto err_core;

	pr_info("Intel PT family %u model %#x on the %s backend: caps %#x, %u address ranges\n",
		pt_caps.family, pt_caps.model, pt_hw->name, pt_caps.flags,
		pt_caps.num_addr_ranges);
	return 0;

err_core:
	pt_core_exit();
err_own:
	pt_own_exit();
	pt_sysfs_exit();
err_hw:
	if (pt_hw->exit)
		pt_hw->exit();
err_debugfs:
	debugfs_remove_recursive(pt_debugfs_root);
	pt_hw_release();
	return ret;
}

static void __exit pt_trace_exit(void)
{
	pt_chardev_exit();
	pt_core_exit();
	pt_own_exit();
	pt_sysfs_exit();
	if (pt_hw->exit)
		pt_hw->exit();
	debugfs_remove_recursive(pt_debugfs_root);
	pt_hw_release();
}

module_init(pt_trace_init);
module_exit(pt_trace_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Intel Processor Trace driver with per-CPU /dev/ptN devices");
MODULE_AUTHOR("pt_trace developers");
MODULE_VERSION(PT_TRACE_VERSION);
