/* SPDX-License-Identifier: GPL-2.0 */
/*
 * decode's counts of a trace and of all traces (-q's "# N instructions"
 * line, ptxed's --stat lines), and the command's end: the listing's write
 * error, and what it says when not one instruction was decoded.
 */
#ifndef PT_TRACE_DECODE_STATS_H
#define PT_TRACE_DECODE_STATS_H

#include <stdint.h>

#include "outbuf.h"

struct decode_stats {
	uint64_t insns;
	uint64_t blocks;	/* --block-decoder's */
	uint64_t shown;		/* through the filters */
	uint64_t syncs;		/* PSBs the decoder synchronised at */
	uint64_t bytes;		/* trace bytes */
	uint64_t errors;
	uint64_t nomap;		/* errors that are "no memory mapped" */
	uint64_t events;
	uint64_t gaps;		/* loss records that are gaps */
	uint64_t gap_bytes;	/* their known bytes */
	uint64_t gap_unknown;	/* gaps of unknown size */
	uint64_t gap_ns;	/* time not traced */
	uint64_t dropped;	/* bytes dropped while tracing ran */
	uint64_t dropped_errors; /* errors in stretches that dropped bytes */
	uint64_t lapped;	/* records nobody read: position unknown */
	int have_loss;
};

/* @s's counts added to @sum. */
void decode_sum(struct decode_stats *sum, const struct decode_stats *s);

/*
 * "# [WHAT: ]N instructions, N events, N errors" and the loss counts,
 * one line into @ob.
 */
void decode_print_stats(struct outbuf *ob, const char *what,
			const struct decode_stats *s);

/*
 * @ret, or PTT_EXIT_INPUT (said) when the listing could not be written
 * (not for a reader that went away, EPIPE).
 */
int decode_write_error(const struct outbuf *ob, int ret);

/* Says on stderr why not one instruction came out (see @s). */
void decode_nothing(const struct decode_stats *s);

#endif /* PT_TRACE_DECODE_STATS_H */
