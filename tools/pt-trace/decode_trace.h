/* SPDX-License-Identifier: GPL-2.0 */
/*
 * decode's PT traces: each one loaded (its file, loss records, CPU, TSC
 * offset and switch records) and decoded stretch by stretch between its
 * gaps, each stretch by one decoder or in decode --jobs's threads.
 */
#ifndef PT_TRACE_DECODE_TRACE_H
#define PT_TRACE_DECODE_TRACE_H

#include "decode_ctx.h"
#include "sideband.h"

/* Trace @t decoded, stretch by stretch: an exit status. */
int decode_trace(struct decode_ctx *c, struct decode_trace *t);

/*
 * The c->ntraces traces @paths mapped, with their loss records, CPUs and
 * switch records, into @tr: an exit status (said).
 */
int decode_load_traces(struct decode_ctx *c, struct decode_trace *tr,
		       char **paths, const struct ptsb *sb);

#endif /* PT_TRACE_DECODE_TRACE_H */
