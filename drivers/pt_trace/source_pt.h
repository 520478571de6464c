/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Intel PT source (source_pt.c): what its streaming code (stream*.c),
 * the module's load (main.c) and the PT-only ioctls (chardev.c) reach.
 */
#ifndef _PT_TRACE_SOURCE_PT_H
#define _PT_TRACE_SOURCE_PT_H

#include <linux/types.h>
#include <linux/pt_trace.h>

#include "source.h"

struct mm_struct;
struct pt_cpu;
struct task_struct;

/* PT_TRACE_IOC_SET_CR3, _SET_CYC, _SET_ADDR. */
int pt_src_set_cr3(struct pt_cpu *pc, struct pt_trace_cr3 *req);
int pt_src_set_cyc(struct pt_cpu *pc, const struct pt_trace_cyc *req);
int pt_src_set_addr(struct pt_cpu *pc, const struct pt_trace_addr *req);

/*
 * May the caller trace @task (whose mm is @mm) without CAP_PERFMON?
 * abi.rst, "Privileges" (also FOLLOW's rule, follow.c).
 */
bool pt_src_may_trace(struct task_struct *task, struct mm_struct *mm);

/*
 * The mm of *@taskp's process (get_task_mm()), from another of its
 * threads when *@taskp has none (a leader that exited alone); *@taskp
 * then becomes that thread (its reference moved).  NULL: a kernel
 * thread, or the whole process is exiting.
 */
struct mm_struct *pt_src_group_mm(struct task_struct **taskp);

/*
 * On the traced CPU with IRQs off, after the final stop: write back the
 * PT MSRs saved at START.
 */
void pt_src_hw_restore(struct pt_cpu *pc);
/*
 * Who holds the PT MSRs of the calling CPU now, against our RTIT_CTL
 * @ctl (without TraceEn) and pc's buffer: exactly ours with TraceEn,
 * ours with TraceEn cleared by someone else (VMXON, KVM), or another
 * agent's (RTIT_CTL or OUTPUT_BASE not ours).  Traced CPU, IRQs off.
 */
enum pt_hw_holder pt_src_hw_holder(struct pt_cpu *pc, u64 ctl);
/* True when VMX operation forbids setting TraceEn on this CPU now. */
bool pt_src_vmx_blocks_trace(void);

#endif /* _PT_TRACE_SOURCE_PT_H */
