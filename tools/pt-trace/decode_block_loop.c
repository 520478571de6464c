// SPDX-License-Identifier: GPL-2.0
/*
 * decode --block-decoder: the loop search (decode_loop.h) over each
 * block's instructions.  The instruction decoder's walk asks at each
 * instruction (decode_looping()); a block gives its last instruction's
 * class (not always: decode_block.c then decodes it), the packet offset
 * after it and the status after it, and the instructions before it can
 * only be ptic_other, ptwrite, or a direct call or jump libipt followed
 * without reading trace.
 */
#include "decode_block_loop.h"

/*
 * The search at @insn, as decode_looping() at the same instruction:
 * dblk_at's class for the last one, decode_block.c's for the others;
 * the offset after the block for the last, for the others the one
 * before (no trace is read inside a block).
 */
int dblk_looping(struct dloop *l, const struct dblk_at *at,
		 const struct pt_insn *insn, int last)
{
	enum pt_insn_class cls = insn->iclass;
	uint64_t off = at->pre;
	int pending = 0;

	if (last) {
		cls = at->cls;
		off = at->post;
		pending = at->pending;
	}
	if (pending || (cls != ptic_call && cls != ptic_jump))
		off = DLOOP_NO_OFF;
	return dloop_next(l, insn->ip, cls != ptic_other || pending, off);
}

/*
 * Whether the search must see a block's instructions one by one: not
 * where the last one starts it again anyway (an event pending after it,
 * a class that reads trace, a call or jump at an offset that is neither
 * the run's nor the one before the block, which may have started it
 * again; an unknown class, where it starts again after the block).  A
 * loop among the instructions before would have come round again
 * instead of reaching it: none is found there.  Most blocks end so, and
 * with -q their instructions are not decoded.
 */
static int dblk_loop_walks(const struct dloop *l, const struct dblk_at *at)
{
	if (at->pending)
		return 0;
	switch (at->cls) {
	case ptic_other:
		return 1;
	case ptic_call:
	case ptic_jump:
		return at->post != DLOOP_NO_OFF &&
		       (at->post == at->pre || at->post == l->off);
	default:
		return 0;
	}
}

int dblk_loop_block(struct dloop *l, const struct pt_block *block,
		    const struct dblk_at *at)
{
	uint64_t off = DLOOP_NO_OFF;

	if (dblk_loop_walks(l, at))
		return 1;
	dloop_reset(l);
	if (at->cls == ptic_error)
		return 0;	/* from the next instruction on */
	/* dblk_looping() at the last instruction alone: a new run there */
	if (!at->pending && (at->cls == ptic_call || at->cls == ptic_jump))
		off = at->post;
	dloop_next(l, block->end_ip, 1, off);
	return 0;
}
