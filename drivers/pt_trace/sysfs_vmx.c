// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/pt_trace/vmx/: the VMX situation, so that a user who runs
 * guests knows what a trace of this machine can hold (design.rst,
 * "Tracing with KVM"):
 *   vmx           1 when the CPU has VMX (CPUID.1:ECX[5]);
 *   trace_in_vmx  1 when PT may run in VMX operation (IA32_VMX_MISC[14]);
 *                 with 0, nothing is traced on a CPU while VMX is on;
 *   cpus_on       the online CPUs in VMX operation now (CR4.VMXE), as a
 *                 CPU list; each is asked on its own CPU.
 * KVM's pt_mode is kvm_intel's to say (/sys/module/kvm_intel/parameters/
 * pt_mode); pt-trace info puts the three together.
 */
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/gfp.h>
#include <linux/kobject.h>
#include <linux/smp.h>
#include <linux/sysfs.h>

#include "caps.h"
#include "hw.h"
#include "sysfs.h"

static ssize_t vmx_show(struct kobject *kobj, struct kobj_attribute *attr,
			char *buf)
{
	return sysfs_emit(buf, "%d\n", pt_caps.vmx);
}

static ssize_t trace_in_vmx_show(struct kobject *kobj,
				 struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", pt_caps.vmx && !pt_caps.vmx_blocks_trace);
}

static void pt_vmx_probe(void *mask)
{
	if (pt_hw->vmx_on())
		cpumask_set_cpu(smp_processor_id(), mask);
}

static ssize_t cpus_on_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	cpumask_var_t on;
	ssize_t n;

	if (!zalloc_cpumask_var(&on, GFP_KERNEL))
		return -ENOMEM;
	if (pt_caps.vmx) {
		cpus_read_lock();
		on_each_cpu(pt_vmx_probe, on, 1);
		cpus_read_unlock();
	}
	n = sysfs_emit(buf, "%*pbl\n", cpumask_pr_args(on));
	free_cpumask_var(on);
	return n;
}

static struct kobj_attribute pt_vmx_attr = __ATTR_RO(vmx);
static struct kobj_attribute pt_trace_in_vmx_attr = __ATTR_RO(trace_in_vmx);
static struct kobj_attribute pt_cpus_on_attr = __ATTR_RO(cpus_on);

static struct attribute *pt_vmx_attrs[] = {
	&pt_vmx_attr.attr,
	&pt_trace_in_vmx_attr.attr,
	&pt_cpus_on_attr.attr,
	NULL,
};

const struct attribute_group pt_sysfs_vmx_group = {
	.name = "vmx",
	.attrs = pt_vmx_attrs,
};
