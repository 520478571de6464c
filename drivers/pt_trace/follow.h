/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Following tasks (PT_TRACE_IOC_FOLLOW, follow.c): a device traces its
 * CPU only while a task of its followed set runs there.  The core asks
 * whether the task running now is followed (at START) and the scheduler
 * tracepoints switch the trace on and off through the streaming layer
 * (pt_stream_follow()).
 */
#ifndef _PT_TRACE_FOLLOW_H
#define _PT_TRACE_FOLLOW_H

#include <linux/types.h>

struct pt_cpu;
struct pt_follow;
struct pt_trace_follow;
struct pt_trace_follow_status;

/* PT_TRACE_IOC_FOLLOW: process context, takes pc->lock. */
int pt_follow_set(struct pt_cpu *pc, const struct pt_trace_follow *req);
/* PT_TRACE_IOC_GET_FOLLOW. */
void pt_follow_get(struct pt_cpu *pc, struct pt_trace_follow_status *st);
/* Close: stopped, pc->lock not held. */
void pt_follow_release(struct pt_cpu *pc);
/*
 * In the start IPI (traced CPU, IRQs off), before TraceEn: following,
 * start parked unless the current task is followed (the hardware's
 * start pointers @base and @mask kept for resuming).
 */
void pt_follow_start_ipi(struct pt_cpu *pc, u64 base, u64 mask);
/*
 * The scheduler probes, registered once for the module's lifetime (also
 * for BTS's switch records, bts_src_switch()): 0, or -EOPNOTSUPP when
 * the kernel lacks one of their tracepoints.  Process context.
 */
int pt_follow_probes(void);
/* Module exit: the probes are gone and no probe runs any more. */
void pt_follow_exit(void);

#endif /* _PT_TRACE_FOLLOW_H */
