/* SPDX-License-Identifier: GPL-2.0 */
/*
 * decode --block-decoder: the search for a loop that reads no trace
 * (decode_loop.h) run over each block's instructions as the instruction
 * decoder's walk runs it over libipt's (decode_looping()), so that both
 * stop their listings at the same instruction.
 */
#ifndef PT_TRACE_DECODE_BLOCK_LOOP_H
#define PT_TRACE_DECODE_BLOCK_LOOP_H

#include <stdint.h>

#include <intel-pt.h>

#include "decode_loop.h"

/* What the search knows of a block besides its instructions. */
struct dblk_at {
	uint64_t pre, post;	/* the packet offsets before and after it */
	int pending;		/* an event is pending after it */
	/* its last instruction's: libipt's, else decoded; ptic_error: unknown */
	enum pt_insn_class cls;
};

/*
 * The search at the start of @block (libipt's step gave it, with
 * instructions): whether it must see them one by one (dblk_looping()),
 * else it is done with the block.
 */
int dblk_loop_block(struct dloop *l, const struct pt_block *block,
		    const struct dblk_at *at);

/*
 * The search at @insn of the block @at tells of, decoded by
 * decode_block.c (with a class), @last of it or not: 1 when @insn
 * closes a loop.
 */
int dblk_looping(struct dloop *l, const struct dblk_at *at,
		 const struct pt_insn *insn, int last);

#endif /* PT_TRACE_DECODE_BLOCK_LOOP_H */
