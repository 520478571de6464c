/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hardware-operations interface: the only way the driver reaches the
 * PT hardware.  Two backends implement it: hw_msr.c (the CPU's MSRs, the
 * default, built into pt_trace.ko) and the software model in model/,
 * which is its own module, pt_trace_model.ko, for testing where no CPU
 * has PT.  Everything above this interface is the same code on both.
 *
 * Registration.  A backend module exports its ops, GPL-only, under a
 * name this header declares (pt_model_hw_ops).  Only module parameter
 * backend=model makes the driver look for it: pt_hw_select() takes the
 * ops with symbol_get(), asking modprobe for pt_trace_model first when it
 * is not loaded, and fails the load with one log line naming the module
 * when it cannot be found.  symbol_get() pins the backend module until
 * pt_hw_release() at the driver's unload, so the backend cannot vanish
 * under the driver, and the backend depends on no driver symbol: load
 * order is pt_trace_model.ko, then pt_trace.ko backend=model; unload the
 * other way round.  The production module never references the model.
 *
 * All MSR accesses go through pt_rdmsr()/pt_wrmsr() below; the driver
 * never calls rdmsr/wrmsr itself.  They act on the calling CPU, may be
 * called with interrupts off and from NMI context, and return 0 or -EIO
 * (a #GP, exactly like rdmsrl_safe()/wrmsrl_safe()).
 */
#ifndef _PT_TRACE_HW_H
#define _PT_TRACE_HW_H

#include <linux/atomic.h>
#include <linux/types.h>

struct dentry;

struct pt_cpuid_regs {
	u32 eax, ebx, ecx, edx;
};

struct pt_hw_ops {
	const char *name;
	unsigned int backend;		/* PT_BACKEND_* (uapi) */
	/*
	 * Bring the backend up/down; called once at the driver's load and
	 * unload.  @debugfs: the driver's debugfs directory, where the
	 * backend may put its own files (removed by exit).
	 */
	int (*init)(struct dentry *debugfs);
	void (*exit)(void);
	/*
	 * CPUID on the calling CPU.  The model answers the leaves that
	 * describe PT (0, 1, 7, 0x14, 0x15) from its profile.
	 */
	void (*cpuid)(u32 leaf, u32 subleaf, struct pt_cpuid_regs *r);
	int (*rdmsr)(u32 msr, u64 *val);
	int (*wrmsr)(u32 msr, u64 val);
	/*
	 * End of a PMI: re-enable delivery of the next one (on silicon,
	 * unmask the local APIC's LVTPC entry, which the PMI masked).
	 * NMI context.
	 */
	void (*pmi_rearm)(void);
	/*
	 * Is the calling CPU in VMX operation (CR4.VMXE)?  On silicon CR4
	 * itself: any hypervisor, not only KVM, may have done VMXON.  The
	 * model answers from its vmx hook.  NMI-safe.
	 */
	bool (*vmx_on)(void);
	/*
	 * Optional.  Do guests run on the calling CPU with PT on in VMX
	 * non-root (their code in the trace)?  Silicon cannot say (NULL):
	 * only the hypervisor knows when it enters a guest and how it set
	 * PT up.  The model answers from model_vmx.  IRQs off.
	 */
	bool (*vmx_guests_traced)(void);
	/*
	 * Optional.  Bytes of trace the calling CPU produced but could not
	 * write (output stopped or in error), a running count since load.
	 * Silicon keeps no such count (NULL); the model does, so streaming
	 * can put exact byte counts in its loss records.  NMI-safe.
	 */
	u64 (*lost_bytes)(void);
};

extern const struct pt_hw_ops *pt_hw;
extern const struct pt_hw_ops pt_hw_msr_ops;
/* Exported by pt_trace_model.ko; only ever reached through symbol_get(). */
extern const struct pt_hw_ops pt_model_hw_ops;

/* backend=NAME: 0, or an error already logged; undone by pt_hw_release(). */
int pt_hw_select(const char *name);
void pt_hw_release(void);

/* Count of PT MSR accesses that faulted (each one a driver bug). */
extern atomic_t pt_msr_faults;

static inline void pt_cpuid(u32 leaf, u32 subleaf, struct pt_cpuid_regs *r)
{
	pt_hw->cpuid(leaf, subleaf, r);
}

/* False when the backend cannot count what it failed to write. */
static inline bool pt_hw_lost_bytes(u64 *bytes)
{
	if (!pt_hw->lost_bytes)
		return false;
	*bytes = pt_hw->lost_bytes();
	return true;
}

int pt_rdmsr(u32 msr, u64 *val);
int pt_wrmsr(u32 msr, u64 val);
/*
 * The two sequences every stop and every pointer read share.  A
 * disabling write that fails calls pt_hw_note_stuck() (core.c) on that
 * CPU: the hardware may still write its buffer, which is never freed.
 */
int pt_hw_disable(u64 ctl);
void pt_hw_note_stuck(void);
int pt_hw_read_output(u64 *status, u64 *base, u64 *mask);

#endif /* _PT_TRACE_HW_H */
