/* SPDX-License-Identifier: GPL-2.0 */
/*
 * decode FILE.bts...: the command's side of Branch Trace Store files, the
 * branches of each listed (decode_bts.h), with their timeline and counts.
 */
#ifndef PT_TRACE_DECODE_BTS_FILES_H
#define PT_TRACE_DECODE_BTS_FILES_H

#include "decode_ctx.h"
#include "sideband.h"

/* decode of the BTS files @paths: an exit status (said). */
int decode_bts_files(struct decode_ctx *c, char **paths,
		     const struct ptsb *sb);

#endif /* PT_TRACE_DECODE_BTS_FILES_H */
