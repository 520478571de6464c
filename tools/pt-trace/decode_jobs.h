/* SPDX-License-Identifier: GPL-2.0 */
/*
 * decode --jobs on the instruction decoder: a stretch of trace cut into
 * segments that worker threads decode (decode_par.h runs them), with the
 * same listing, call tree, timeline and counts as one decoder.
 */
#ifndef PT_TRACE_DECODE_JOBS_H
#define PT_TRACE_DECODE_JOBS_H

#include <stdint.h>

#include "decode_ctx.h"

/* Whether the stretch [@start, @end) can be decoded in o.jobs threads. */
int decode_par_ok(const struct decode_ctx *c, uint64_t start,
		  uint64_t end);

/* The stretch [@start, @end) in o.jobs threads, listed in order. */
int decode_stretch_par(struct decode_ctx *c, struct decode_trace *t,
		       uint64_t start, uint64_t end);

#endif /* PT_TRACE_DECODE_JOBS_H */
