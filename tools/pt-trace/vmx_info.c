// SPDX-License-Identifier: GPL-2.0
/*
 * pt-trace info's VMX lines: what a trace of this machine holds of its
 * guests, from the driver's /sys/kernel/pt_trace/vmx/ and kvm_intel's
 * pt_mode (SDM Vol. 3C 36.5.2; design.rst "Tracing with KVM"), with a
 * warning naming the remedy wherever trace would be lost without one.
 */
#include <stdio.h>
#include <string.h>

#include "tool.h"
#include "vmx_info.h"

#define SYSFS_VMX	"/sys/kernel/pt_trace/vmx/"
#define KVM_PT_MODE	"/sys/module/kvm_intel/parameters/pt_mode"

void vmx_info_print(void)
{
	char vmx[8], in_vmx[8], on[256], mode[16];

	if (!ptt_sysfs_line(SYSFS_VMX "vmx", vmx, sizeof(vmx))[0])
		return;		/* an older driver */
	ptt_sysfs_line(SYSFS_VMX "trace_in_vmx", in_vmx, sizeof(in_vmx));
	ptt_sysfs_line(SYSFS_VMX "cpus_on", on, sizeof(on));
	if (strcmp(vmx, "1")) {
		printf("  %-22s none\n", "vmx");
		return;
	}
	if (!ptt_sysfs_line(KVM_PT_MODE, mode, sizeof(mode))[0])
		strcpy(mode, "-");	/* kvm_intel not loaded */
	printf("  %-22s trace in VMX operation %s, on now: %s, kvm_intel pt_mode %s\n",
	       "vmx", strcmp(in_vmx, "1") ? "no" : "yes", on[0] ? on : "none",
	       mode);
	if (strcmp(in_vmx, "1")) {
		if (on[0])
			ptt_warn("CPUs %s are in VMX operation, where this CPU cannot trace (IA32_VMX_MISC[14]=0): START fails there; unload kvm_intel or boot with kvm.enable_virt_at_load=0",
				 on);
		return;
	}
	if (!strcmp(mode, "1"))
		ptt_warn("kvm_intel pt_mode=1 (host_guest): KVM switches the PT MSRs at VM entry and exit, so guest code is missing from our traces (TIP.PGD at each entry); load kvm_intel with pt_mode=0 to trace guests too");
	else if (!strcmp(mode, "0"))
		printf("  %-22s guests are traced too (PIP.NR, VMCS packets)\n",
		       "");
}
