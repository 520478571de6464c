// SPDX-License-Identifier: GPL-2.0
/*
 * The one place every PT MSR access passes through, and the choice of the
 * backend behind it (see hw.h).
 */
#include <linux/atomic.h>
#include <linux/errno.h>
#include <linux/printk.h>
#include <linux/string.h>
#include <linux/pt_trace.h>

#include "hw.h"

const struct pt_hw_ops *pt_hw = &pt_hw_msr_ops;

/* Failed accesses: each is a #GP the driver should have prevented. */
atomic_t pt_msr_faults = ATOMIC_INIT(0);

int pt_hw_select(const char *name)
{
	if (!strcmp(name, "hw"))
		pt_hw = &pt_hw_msr_ops;
	else if (!strcmp(name, "model"))
		pt_hw = &pt_model_ops;
	else
		return -EINVAL;
	return 0;
}

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
