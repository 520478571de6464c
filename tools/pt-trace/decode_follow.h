/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whose code runs on a trace's CPU as libipt's decoder goes on (the
 * instruction decoder's, or the block decoder's with --block-decoder):
 * the sideband's switch records placed by the decoder's time, the
 * enables and PSB+s that mark a switch more exactly, PIPs (a process's
 * CR3, learned from the switches), execs, and the decoder's events that
 * carry all of these (decode_events()).
 */
#ifndef PT_TRACE_DECODE_FOLLOW_H
#define PT_TRACE_DECODE_FOLLOW_H

#include <stdint.h>

#include <intel-pt.h>

#include "decode_aspace.h"
#include "decode_ctx.h"

/* CR3 @cr3 is switch record @s's process, from now on. */
void decode_learn_cr3(struct decode_ctx *c, uint64_t cr3,
		      const struct das_switch *s);

/*
 * The switch records' run at the decoder's time entered: whether it was
 * another (the image may have changed).
 */
int decode_follow(struct decode_ctx *c, struct decode_trace *t,
		  struct pt_insn_decoder *dec);

/*
 * decode_follow() for --block-decoder: before a block, whether the
 * image changed.
 */
int decode_follow_blk(struct decode_ctx *c, struct decode_trace *t,
		      struct pt_block_decoder *dec);

/*
 * The block decoder's event @ev, taken as decode_events() takes the
 * instruction decoder's (the process it says runs; no VMX context).
 */
void decode_event_blk(struct decode_ctx *c, struct decode_trace *t,
		      struct pt_block_decoder *dec, const struct pt_event *ev);

/* The trace's stop time where a loss record says it stopped before the end. */
void decode_stop_early(struct decode_trace *t);

/* The pending events taken; returns the decoder's status after them. */
int decode_events(struct decode_ctx *c, struct decode_trace *t,
		  struct pt_insn_decoder *dec, int status);

#endif /* PT_TRACE_DECODE_FOLLOW_H */
