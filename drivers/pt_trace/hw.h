/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hardware-operations interface: the only way the driver reaches the
 * PT hardware.  Two backends implement it: hw_msr.c (the CPU's MSRs, the
 * default) and the software model in model/ (module parameter
 * backend=model, for testing where no CPU has PT).  Everything above this
 * interface is the same code on both.
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

struct pt_cpuid_regs {
	u32 eax, ebx, ecx, edx;
};

struct pt_hw_ops {
	const char *name;
	unsigned int backend;		/* PT_BACKEND_* (uapi) */
	/* Bring the backend up/down; called once at module load/unload. */
	int (*init)(void);
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
	 * Optional.  Bytes of trace the calling CPU produced but could not
	 * write (output stopped or in error), a running count since load.
	 * Silicon keeps no such count (NULL); the model does, so streaming
	 * can put exact byte counts in its loss records.  NMI-safe.
	 */
	u64 (*lost_bytes)(void);
};

extern const struct pt_hw_ops *pt_hw;
extern const struct pt_hw_ops pt_hw_msr_ops;
extern const struct pt_hw_ops pt_model_ops;

int pt_hw_select(const char *name);

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
/* The two sequences every stop and every pointer read share. */
int pt_hw_disable(u64 ctl);
int pt_hw_read_output(u64 *status, u64 *base, u64 *mask);

#endif /* _PT_TRACE_HW_H */
