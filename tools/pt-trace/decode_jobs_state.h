/* SPDX-License-Identifier: GPL-2.0 */
/*
 * decode --jobs: the state one decoder carries from a segment's end to
 * the next one's start (struct decode_carry), whether two such states
 * decode alike, and the state a segment is expected to start in.
 */
#ifndef PT_TRACE_DECODE_JOBS_STATE_H
#define PT_TRACE_DECODE_JOBS_STATE_H

#include <stdint.h>

#include "decode_ctx.h"
#include "decode_par.h"

/*
 * decode --jobs: what a trace's decoder carries from one segment to the
 * next: the trace's state, the host's CR3 the VMX code keeps, and its
 * counts of VM entries and exits without PIP, of which the first
 * DVMX_NO_PIP_WARN are warnings: a piece prints those one decoder
 * prints only when it starts from the count one decoder has.
 */
struct decode_carry {
	struct decode_state st;
	uint64_t host_cr3;	/* the last host PIP's (dvmx_other_side()) */
	uint64_t nr_no_pip, nr_no_exit_pip;
};

/* The state a decoder of @t has now, into @s. */
void decode_state_get(const struct decode_ctx *c,
		      const struct decode_trace *t,
		      struct decode_carry *s);

/* A decoder of @t goes on from state @s. */
void decode_state_set(struct decode_ctx *c, struct decode_trace *t,
		      const struct decode_carry *s);

/*
 * Whether states @ca and @cb decode alike (@pip: the segment's PSB+ has
 * a host's PIP and a FUP).
 */
int decode_state_eq(const struct decode_carry *ca,
		    const struct decode_carry *cb, int pip);

/*
 * The state @s one decoder would have at the start of the segment whose
 * PSB+ is @h, as far as the switch records say.
 */
void decode_predict(struct decode_ctx *c, const struct decode_trace *t,
		    struct decode_state *s, const struct dpar_psb *h);

#endif /* PT_TRACE_DECODE_JOBS_STATE_H */
