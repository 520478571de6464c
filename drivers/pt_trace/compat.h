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

/* LAM (6.4+, CONFIG_ADDRESS_MASKING): the CR3 bits a process runs with. */
#ifdef PT_HAVE_MM_LAM_CR3_MASK
#include <asm/mmu_context.h>

static inline u64 pt_mm_lam_cr3_bits(struct mm_struct *mm)
{
	return mm_lam_cr3_mask(mm);
}
#else
static inline u64 pt_mm_lam_cr3_bits(struct mm_struct *mm)
{
	return 0;
}
#endif

#endif /* _PT_TRACE_COMPAT_H */
