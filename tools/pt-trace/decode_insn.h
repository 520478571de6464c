/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One step of the instruction decoder's walk: libipt's time in host time,
 * a decoded instruction (counted, filtered, printed, in the call tree and
 * the timeline) or a decode error as ptxed prints it.
 */
#ifndef PT_TRACE_DECODE_INSN_H
#define PT_TRACE_DECODE_INSN_H

#include <stdint.h>

#include <intel-pt.h>

#include "decode_ctx.h"

/*
 * libipt's time of the decoder in *@tsc, in host time (--guest-tsc);
 * pt_insn_time()'s status.
 */
int decode_time(struct decode_trace *t,
		struct pt_insn_decoder *dec, uint64_t *tsc,
		uint32_t *lost_mtc, uint32_t *lost_cyc);

/*
 * "[OFFSET, IP: WHAT: libipt's error]" as ptxed prints it (@err 0: @what
 * alone), counted, on the timeline, and the call tree restarts.
 */
void decode_error(struct decode_ctx *c, struct decode_trace *t,
		  struct pt_insn_decoder *dec, const char *what,
		  uint64_t ip, int err);

/* One decoded instruction: counted, printed, in the tree and timeline. */
void decode_insn(struct decode_ctx *c, struct decode_trace *t,
		 struct pt_insn_decoder *dec, const struct pt_insn *insn);

#endif /* PT_TRACE_DECODE_INSN_H */
