/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record --bts (rec_bts_ring.c): the BTS recorders' rings, files and end.
 */
#ifndef PT_TRACE_REC_BTS_RING_H
#define PT_TRACE_REC_BTS_RING_H

#include <stdio.h>

#include "rec_bts.h"
#include "rec_ctx.h"

/* A BTS recorder per CPU, its branches and mode as PT's. */
int rec_bts_open_all(struct rec_bts **out, const struct rec_cpu *rcs,
		     int n, const struct rec_opts *o);
/* Each /dev/btsN as a struct rec_cpu in @run, mapped, with its files. */
int rec_bts_rings_open(struct rec_run *run, const struct rec_bts *b,
		       int n, const char *outdir, int stream);
/* STOP, the last read, the loss file's end, sideband and summary. */
int rec_bts_ring_finish(struct rec_cpu *rc, const struct rec_opts *o,
			FILE *sb);

#endif /* PT_TRACE_REC_BTS_RING_H */
