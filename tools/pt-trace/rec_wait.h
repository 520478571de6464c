/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record (rec_wait.c): the loop that runs while the devices trace.
 */
#ifndef PT_TRACE_REC_WAIT_H
#define PT_TRACE_REC_WAIT_H

#include "rec_ctx.h"

/* --stop-at: has a trace unit stopped in the range?  (-1: no) */
int rec_stopped_cpu(struct rec_cpu *rcs, int n);
/*
 * Wait for the end: command exit, duration, or a signal; drain
 * meanwhile.  0, or -errno after a message.
 */
int rec_wait(struct rec_cpu *rcs, int n, const struct rec_opts *o,
	     struct rec_run *run);

#endif /* PT_TRACE_REC_WAIT_H */
