// SPDX-License-Identifier: GPL-2.0
/*
 * pt-trace info's VMX lines: what a trace of this machine holds of its
 * guests, from the driver's /sys/kernel/pt_trace/vmx/ and kvm_intel's
 * pt_mode (SDM Vol. 3C 36.5.2; design.rst "Tracing with KVM"), with a
 * warning naming the remedy wherever trace would be lost without one; and
 * the same facts, with KVM's per-vCPU TSC offset and scaling ratio, in a
 * recording's sideband.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "ptdev.h"
#include "sideband.h"

#include "tool.h"
#include "vmx_info.h"

#define SYSFS_VMX	"/sys/kernel/pt_trace/vmx/"
#define KVM_PT_MODE	"/sys/module/kvm_intel/parameters/pt_mode"
#define KVM_DEBUGFS	"/sys/kernel/debug/kvm"

/* kvm_intel's pt_mode 1 (host_guest): what a user loses, and the remedy. */
#define PT_MODE_1_LOSS	"kvm_intel pt_mode=1 (host_guest): KVM switches the PT MSRs at VM entry and exit, so guest code is missing from our traces (TIP.PGD at each entry); load kvm_intel with pt_mode=0 to trace guests too"

/*
 * kvm_intel's pt_mode file; PTT_KVM_PT_MODE names another (a test's fake
 * one: no kvm_intel in the test VMs).
 */
static const char *vmx_kvm_pt_mode(void)
{
	const char *e = getenv("PTT_KVM_PT_MODE");

	return e && e[0] ? e : KVM_PT_MODE;
}

/*
 * KVM's debugfs directory; PTT_KVM_DEBUGFS names another (a test's fake
 * one: there is no KVM in the test VMs).
 */
static const char *vmx_kvm_debugfs(void)
{
	const char *e = getenv("PTT_KVM_DEBUGFS");

	return e && e[0] ? e : KVM_DEBUGFS;
}

struct vmx_sysfs {
	char vmx[8], in_vmx[8], on[256], mode[16];
};

/* 0, or -1 with an older driver (no vmx/ directory). */
static int vmx_sysfs_read(struct vmx_sysfs *v)
{
	if (!ptt_sysfs_line(SYSFS_VMX "vmx", v->vmx, sizeof(v->vmx))[0])
		return -1;
	ptt_sysfs_line(SYSFS_VMX "trace_in_vmx", v->in_vmx, sizeof(v->in_vmx));
	ptt_sysfs_line(SYSFS_VMX "cpus_on", v->on, sizeof(v->on));
	if (!ptt_sysfs_line(vmx_kvm_pt_mode(), v->mode, sizeof(v->mode))[0])
		strcpy(v->mode, "-");	/* kvm_intel not loaded */
	return 0;
}

void vmx_info_print(void)
{
	struct vmx_sysfs v;
	char *vmx = v.vmx, *in_vmx = v.in_vmx, *on = v.on, *mode = v.mode;

	if (vmx_sysfs_read(&v))
		return;		/* an older driver */
	if (strcmp(vmx, "1")) {
		printf("  %-22s none\n", "vmx");
		return;
	}
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
		ptt_warn(PT_MODE_1_LOSS);
	else if (!strcmp(mode, "0"))
		printf("  %-22s guests are traced too (PIP.NR, VMCS packets)\n",
		       "");
}

/*
 * Before a recording starts: pt_mode=1 would leave the guests out of it
 * with nothing in the trace but a TIP.PGD per VM entry, so say so (info
 * says it too, but a user who records need not have run info).
 */
void vmx_info_record_warn(void)
{
	struct vmx_sysfs v;

	if (!vmx_sysfs_read(&v) && !strcmp(v.vmx, "1") &&
	    !strcmp(v.in_vmx, "1") && !strcmp(v.mode, "1"))
		ptt_warn(PT_MODE_1_LOSS);
}

/*
 * Before a recording starts, per CPU (configured with @ctl): guests that
 * run there with PT on are traced too, and without OS=1 the trace has no
 * PIP at all (SDM Table 36-50), so nothing tells their code from the
 * host's: say so once.  Guests are traced where the driver knows it
 * (GUESTS_TRACED, the model) or where VMX is on and kvm_intel's
 * pt_mode is 0 (system).
 */
void vmx_info_record_cpu_warn(int fd, int cpu, uint64_t ctl)
{
	static int said;
	struct pt_trace_status st;
	struct vmx_sysfs v;
	int guests;

	if (said || (ctl & PT_CTL_OS) || ptdev_get_status(fd, &st) ||
	    st.size < PT_TRACE_STATUS_SIZE_VER1 || !(st.vmx & PT_STATUS_VMX_ON))
		return;
	guests = (st.vmx & PT_STATUS_VMX_GUESTS_TRACED) ||
		 ((st.vmx & PT_STATUS_VMX_GUESTS_UNKNOWN) &&
		  !vmx_sysfs_read(&v) && !strcmp(v.mode, "0"));
	if (!guests)
		return;
	said = 1;
	ptt_warn("CPU %d runs guests with PT on, so their code is in this trace too, but without kernel tracing (OS=0: -u) no PIP is written and decode cannot tell guest code from the host's; record without -u to keep them apart (decode --host-only, --guest-only)",
		 cpu);
}

/*
 * START failed with @err on @cpu (device @fd): when it is EBUSY because
 * the CPU is in VMX operation, where it cannot trace (IA32_VMX_MISC[14]=0;
 * the driver refuses, abi.rst), the reason and the remedy; else NULL.
 */
const char *vmx_info_start_why(int fd, int cpu, int err)
{
	static char buf[320];
	struct pt_trace_status st;
	const uint32_t mask = PT_STATUS_VMX_PRESENT | PT_STATUS_VMX_TRACE_OK |
			      PT_STATUS_VMX_ON;

	if (err != -EBUSY || ptdev_get_status(fd, &st) ||
	    st.size < PT_TRACE_STATUS_SIZE_VER1 ||
	    (st.vmx & mask) != (PT_STATUS_VMX_PRESENT | PT_STATUS_VMX_ON))
		return NULL;
	snprintf(buf, sizeof(buf),
		 "CPU %d is in VMX operation (KVM), where it cannot trace (IA32_VMX_MISC[14]=0): unload kvm_intel or boot with kvm.enable_virt_at_load=0, or leave the CPU out of -C",
		 cpu);
	return buf;
}

/*
 * One vCPU's TSC offset and scaling ratio from KVM's debugfs
 * (kvm/PID-FD/vcpuN/tsc-offset, tsc-scaling-ratio and its frac bits),
 * readable by root.  Which VMCS a vCPU uses is not said there: the
 * decoder's --guest-tsc takes the VMCS from the trace.
 */
static void vmx_vcpu_sideband(FILE *sb, const char *vm, const char *vcpu)
{
	char path[1024], off[32], ratio[32], bits[8];

	const char *kvm = vmx_kvm_debugfs();

	snprintf(path, sizeof(path), "%s/%s/%s/tsc-offset", kvm, vm, vcpu);
	if (!ptt_sysfs_line(path, off, sizeof(off))[0])
		return;
	snprintf(path, sizeof(path), "%s/%s/%s/tsc-scaling-ratio", kvm, vm,
		 vcpu);
	ptt_sysfs_line(path, ratio, sizeof(ratio));
	snprintf(path, sizeof(path), "%s/%s/%s/tsc-scaling-ratio-frac-bits",
		 kvm, vm, vcpu);
	ptt_sysfs_line(path, bits, sizeof(bits));
	ptsb_put(sb, "kvm.vcpu", "%s/%s tsc_offset=%s tsc_ratio=%s frac_bits=%s",
		 vm, vcpu, off, ratio[0] ? ratio : "-", bits[0] ? bits : "-");
}

void vmx_info_sideband(FILE *sb)
{
	struct vmx_sysfs v;
	struct dirent *d, *e;
	DIR *kvm, *vm;
	char path[1024];

	if (vmx_sysfs_read(&v))
		return;
	ptsb_put(sb, "vmx", "%s", v.vmx);
	ptsb_put(sb, "vmx.trace_in_vmx", "%s", v.in_vmx);
	ptsb_put(sb, "vmx.cpus_on", "%s", v.on);
	ptsb_put(sb, "kvm.pt_mode", "%s", v.mode);
	kvm = opendir(vmx_kvm_debugfs());
	if (!kvm)
		return;
	while ((d = readdir(kvm))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", vmx_kvm_debugfs(),
			 d->d_name);
		vm = opendir(path);
		if (!vm)
			continue;
		while ((e = readdir(vm)))
			if (!strncmp(e->d_name, "vcpu", 4))
				vmx_vcpu_sideband(sb, d->d_name, e->d_name);
		closedir(vm);
	}
	closedir(kvm);
}
