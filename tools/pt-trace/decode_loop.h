/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The search for a loop that reads no trace, shared by both decoders'
 * walks (decode_looping() in decode_walk.c over libipt's instructions,
 * dblk_looping() in decode_block_loop.c over each block's).
 *
 * Between instructions that may read trace (a conditional branch or a
 * return: TNT bits, which do not move the packet offset; an indirect
 * branch: a TIP, which does; an event) the path depends on the IP alone,
 * so an IP seen again in such a run is a loop libipt would follow for
 * ever: an async event that leaves it would be pending at its IP at the
 * first pass.  A direct call or jump reads no trace, but libipt gives no
 * class for "direct": one at the packet offset the run began at goes on
 * with it.  Brent's cycle search: the IP marked at each power of two of
 * instructions since the run began, found in a few times the loop's
 * length.
 */
#ifndef PT_TRACE_DECODE_LOOP_H
#define PT_TRACE_DECODE_LOOP_H

#include <stdint.h>

/* Both decoders' error line (with the offset and IP) when it finds one. */
#define DECODE_LOOP_MSG \
	"error: a loop that reads no trace (libipt would follow it for ever)"

/* The offset of an instruction that is not a direct call or jump. */
#define DLOOP_NO_OFF	(~0ull)

struct dloop {
	uint64_t off;		/* the packet offset the run began at */
	uint64_t mark;		/* the IP marked */
	unsigned int pow, lam;	/* 0: no run (dloop_reset()) */
};

/* The search starts again: trace was read, or the image changed. */
static inline void dloop_reset(struct dloop *l)
{
	l->pow = 0;
}

/*
 * The next instruction, at @ip: @reads when it may read trace (its
 * class is not ptic_other, or an event is pending after it), @off the
 * packet offset after a direct call or jump, else DLOOP_NO_OFF.  1 when
 * @ip closes a loop.
 */
static inline int dloop_next(struct dloop *l, uint64_t ip, int reads,
			     uint64_t off)
{
	if ((reads || !l->pow) &&
	    (!l->pow || off == DLOOP_NO_OFF || off != l->off)) {
		l->off = off;
		l->mark = ip;
		l->pow = 1;
		l->lam = 0;
		return 0;
	}
	if (ip == l->mark)
		return 1;
	if (++l->lam == l->pow) {
		l->mark = ip;
		l->pow <<= 1;
		l->lam = 0;
	}
	return 0;
}

#endif /* PT_TRACE_DECODE_LOOP_H */
