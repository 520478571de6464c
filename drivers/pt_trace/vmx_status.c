// SPDX-License-Identifier: GPL-2.0
/*
 * The VMX situation of one CPU for GET_STATUS (pt_trace_status.vmx): what
 * the CPU allows (VMX, IA32_VMX_MISC[14], read once at load into
 * pt_caps) and what holds now on that CPU (CR4.VMXE; whether guests run
 * there with PT on in VMX non-root, which only a backend that plays the
 * hypervisor can say: on silicon that is KVM's, so UNKNOWN).  The state
 * is a CPU's own, so it is asked on that CPU.
 */
#include <linux/cpumask.h>
#include <linux/pt_trace.h>
#include <linux/smp.h>

#include "caps.h"
#include "hw.h"
#include "vmx_status.h"

static void pt_vmx_status_ipi(void *arg)
{
	u32 *v = arg;

	if (!pt_hw->vmx_on())
		return;
	*v |= PT_STATUS_VMX_ON;
	if (!pt_hw->vmx_guests_traced)
		*v |= PT_STATUS_VMX_GUESTS_UNKNOWN;
	else if (pt_hw->vmx_guests_traced())
		*v |= PT_STATUS_VMX_GUESTS_TRACED;
}

u32 pt_vmx_status(unsigned int cpu)
{
	u32 v = 0;

	if (!pt_caps.vmx)
		return 0;
	v = PT_STATUS_VMX_PRESENT;
	if (!pt_caps.vmx_blocks_trace)
		v |= PT_STATUS_VMX_TRACE_OK;
	/* An offline CPU is in no VMX operation (its device says OFFLINE). */
	if (cpu_online(cpu))
		smp_call_function_single(cpu, pt_vmx_status_ipi, &v, 1);
	return v;
}
