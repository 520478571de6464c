/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record (rec_finish.c): the end of the recording and its summary.
 */
#ifndef PT_TRACE_REC_FINISH_H
#define PT_TRACE_REC_FINISH_H

#include <stdio.h>

#include "rec_ctx.h"

/* The loss sums and bytes written of @n recorders. */
void rec_sum(const struct rec_cpu *rcs, int n, struct ptl_sum *sum,
	     uint64_t *bytes);
/* The losses of one CPU or of all, one human line (also parsed by tests). */
void rec_print_losses(const char *who, const struct ptl_sum *s);
/* Stop, read and summarise every CPU: 0 or the exit status. */
int rec_finish(struct rec_cpu *rcs, int n, const struct rec_opts *o,
	       FILE *sb);

#endif /* PT_TRACE_REC_FINISH_H */
