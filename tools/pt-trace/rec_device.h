/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record (rec_device.c): open, configure, target and start /dev/ptN on
 * every traced CPU.
 */
#ifndef PT_TRACE_REC_DEVICE_H
#define PT_TRACE_REC_DEVICE_H

#include <stdio.h>

#include "rec_ctx.h"

/* Open and configure every CPU's device: 0 or the exit status (said). */
int rec_open_all(struct rec_cpu *rcs, int n, const struct rec_opts *o,
		 struct pt_trace_caps *caps);
/*
 * Program the target on every CPU, write the sideband's header and
 * start them all: 0 or the exit status (said).
 */
int rec_start_all(struct rec_cpu *rcs, int n, struct rec_opts *o,
		  const struct pt_trace_caps *caps, FILE *sb);

#endif /* PT_TRACE_REC_DEVICE_H */
