/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The instruction decoder's walk over one stretch of a trace, as ptxed
 * walks it (decode_walk()), with pt-trace's checks for code libipt would
 * follow for ever without reading trace, and decode --jobs's segment
 * ends; decode_stretch_one() runs it with a decoder of its own.
 */
#ifndef PT_TRACE_DECODE_WALK_H
#define PT_TRACE_DECODE_WALK_H

#include <stdint.h>

#include "decode_ctx.h"

/* Whether an output or filter uses libipt's time (decode_time()). */
int decode_need_time(const struct decode_ctx *c);

/* The stretch [@start, @end) of @t with a decoder of its own: an exit status. */
int decode_stretch_one(struct decode_ctx *c, struct decode_trace *t,
		       uint64_t start, uint64_t end);

/* decode_looping() starts again: trace was read, or the image changed. */
static inline void decode_loop_reset(struct decode_trace *t)
{
	dloop_reset(&t->loop);
}

#endif /* PT_TRACE_DECODE_WALK_H */
