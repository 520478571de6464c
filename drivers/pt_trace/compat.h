/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Differences between the kernels pt_trace builds for (6.1 to 6.12), found
 * by Kbuild probing the headers (see Kbuild) rather than by version
 * numbers, so a distribution backport is picked up too.
 */
#ifndef _PT_TRACE_COMPAT_H
#define _PT_TRACE_COMPAT_H

#include <linux/mm.h>

#ifndef PT_HAVE_VM_FLAGS_SET
/* Before 6.3, vm_flags was written directly. */
static inline void vm_flags_set(struct vm_area_struct *vma, unsigned long flags)
{
	vma->vm_flags |= flags;
}

static inline void vm_flags_clear(struct vm_area_struct *vma,
				  unsigned long flags)
{
	vma->vm_flags &= ~flags;
}
#endif

#endif /* _PT_TRACE_COMPAT_H */
