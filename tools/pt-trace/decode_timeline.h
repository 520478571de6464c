/* SPDX-License-Identifier: GPL-2.0 */
/*
 * decode --timeline on the instruction decoder's traces: the file, its
 * clock and one track per trace (decode_open_timeline()), each CPU's core
 * frequency as a counter track, and a decode --jobs worker's marks run on
 * the trace's tracks (timeline_marks.h).
 */
#ifndef PT_TRACE_DECODE_TIMELINE_H
#define PT_TRACE_DECODE_TIMELINE_H

#include <intel-pt.h>

#include "decode_ctx.h"
#include "sideband.h"
#include "timeline_marks.h"

/* A CBR of @ratio (0: none) on the trace's core frequency track. */
void decode_tl_cbr(struct decode_ctx *c, struct decode_trace *t,
		   struct pt_insn_decoder *dec, unsigned int ratio);

/* decode --timeline --jobs: a worker's mark @k on the trace's timeline. */
void decode_tl_mark(struct decode_ctx *c, struct decode_trace *t,
		    const struct tl_mark *k);

/*
 * The TSC rate: --tsc-hz if given, else the sideband's or the CPU's
 * (ptt_tsc_hz()); @source names which.
 */
void decode_tsc_hz(const struct decode_ctx *c, const struct ptsb *sb,
		   double *hz, const char **source);

/*
 * The --timeline file, named after the recorded command (else @what): 0 or
 * PTT_EXIT_INPUT (said).
 */
int decode_tl_create(struct decode_ctx *c, const struct ptsb *sb,
		     const char *what);

/*
 * The --timeline file of the PT traces @tr: its TSC rate, time 0 and one
 * track per trace; 0 or an exit status (said).
 */
int decode_open_timeline(struct decode_ctx *c, struct decode_trace *tr,
			 const struct ptsb *sb);

#endif /* PT_TRACE_DECODE_TIMELINE_H */
