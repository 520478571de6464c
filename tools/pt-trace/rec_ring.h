/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record (rec_ring.c): reading a device's ring into DIR/cpuN.pt (or
 * cpuN.bts) and its gaps into the loss file beside it.
 */
#ifndef PT_TRACE_REC_RING_H
#define PT_TRACE_REC_RING_H

#include "rec_ctx.h"

/* Stream mode: take what is new, note losses, hand the space back. */
int rec_drain(struct rec_cpu *rc);
/* Flight mode: the newest min(head, size) bytes, oldest first. */
int rec_flight_read(struct rec_cpu *rc);
/* Loss records the driver counted and never let us read: lapped. */
void rec_count_lapped(struct rec_cpu *rc);
/* "PT" or "BTS": the trace @rc records, in messages. */
const char *rec_src(const struct rec_cpu *rc);
/* @rc's loss file: created now in stream mode, else at its first gap. */
int rec_loss_open(struct rec_cpu *rc, const char *outdir, int stream,
		  int keep_old);
/* The loss record of a gap the driver's stop left, up to @ns/@tsc. */
int rec_gap(struct rec_cpu *rc, const struct rec_opts *o,
	    int restart, uint64_t ns, uint64_t tsc);
/* DIR/cpuN.pt (not with -S) and the loss files of every CPU. */
int rec_create_outputs(struct rec_cpu *rcs, int n,
		       const struct rec_opts *o);

#endif /* PT_TRACE_REC_RING_H */
