// SPDX-License-Identifier: GPL-2.0
/*
 * The one place every PT MSR access passes through, to the backend
 * pt_hw_select() chose (hw_backend.c, hw.h).
 */
#include <linux/atomic.h>
#include <asm/barrier.h>
#include <linux/errno.h>
#include <linux/printk.h>
#include <linux/pt_trace.h>

#include "hw.h"
#include "regs.h"

const struct pt_hw_ops *pt_hw = &pt_hw_msr_ops;

/* Failed accesses: each is a #GP the driver should have prevented. */
atomic_t pt_msr_faults = ATOMIC_INIT(0);

int pt_rdmsr(u32 msr, u64 *val)
{
	int ret = pt_hw->rdmsr(msr, val);

	if (unlikely(ret))
		atomic_inc(&pt_msr_faults);
	return ret;
}

int pt_wrmsr(u32 msr, u64 val)
{
	int ret = pt_hw->wrmsr(msr, val);

	if (unlikely(ret))
		atomic_inc(&pt_msr_faults);
	return ret;
}

/*
 * TraceEn 1 -> 0 with the rest of @ctl unchanged.  The disabling WRMSR
 * flushes the packets the hardware still holds (SDM 36.2.7.2); the store
 * fence makes them visible before anyone reads the buffer.
 */
int pt_hw_disable(u64 ctl)
{
	int ret = pt_wrmsr(PT_MSR_RTIT_CTL, ctl & ~PT_CTL_TRACEEN);

	/* The hardware may still be writing: its buffer must outlive it. */
	if (unlikely(ret))
		pt_hw_note_stuck();
	/* The flushed packets before any read of the buffer or its head. */
	wmb();
	return ret;
}

/* Where the output stands: RTIT_STATUS and the two output pointers. */
int pt_hw_read_output(u64 *status, u64 *base, u64 *mask)
{
	int ret = pt_rdmsr(PT_MSR_RTIT_STATUS, status);

	ret = ret ?: pt_rdmsr(PT_MSR_RTIT_OUTPUT_BASE, base);
	return ret ?: pt_rdmsr(PT_MSR_RTIT_OUTPUT_MASK, mask);
}
