/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A trace's loss records in the instruction decoder's walk: the stretches
 * between gaps, each decoded on its own, and each record's line, counts,
 * timeline mark and call-tree restart where it lies.
 */
#ifndef PT_TRACE_DECODE_LOSS_H
#define PT_TRACE_DECODE_LOSS_H

#include <stddef.h>
#include <stdint.h>

#include "decode_ctx.h"
#include "lossfile.h"

/*
 * The end of the stretch that starts at @start: the next loss record past
 * it inside the file, else the end of the file; *@i walks the records.
 */
uint64_t decode_stretch_end(const struct decode_trace *t,
			    uint64_t start, size_t *i);

/* A gap, or bytes dropped while tracing ran, where record @r lies. */
void decode_loss(struct decode_ctx *c, struct decode_trace *t,
		 const struct ptl_record *r);

#endif /* PT_TRACE_DECODE_LOSS_H */
