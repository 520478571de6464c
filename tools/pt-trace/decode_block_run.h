/* SPDX-License-Identifier: GPL-2.0 */
/*
 * decode --block-decoder from the command: what it does not go with, and
 * each trace through libipt's block decoder (decode_block.h).
 */
#ifndef PT_TRACE_DECODE_BLOCK_RUN_H
#define PT_TRACE_DECODE_BLOCK_RUN_H

#include "decode_aspace.h"
#include "decode_ctx.h"
#include "decode_stats.h"

/* What --block-decoder does not go with, refused: 0, or 1 (said). */
int decode_block_refused(const struct decode_ctx *c);

/*
 * --block-decoder: each trace whole with libipt's block decoder, its
 * counts into its stats (a line each with -q and several traces) and
 * @total; an exit status (said).
 */
int decode_blocks(struct decode_ctx *c, struct decode_trace *tr,
		  const struct das_file *files, int nfile,
		  struct decode_stats *total);

#endif /* PT_TRACE_DECODE_BLOCK_RUN_H */
