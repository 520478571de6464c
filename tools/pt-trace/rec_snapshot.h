/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record -S (rec_snapshot.c): DIR/snapshot.K/, one per SIGUSR2 and one at
 * the end.
 */
#ifndef PT_TRACE_REC_SNAPSHOT_H
#define PT_TRACE_REC_SNAPSHOT_H

#include "rec_ctx.h"

/*
 * Open DIR/snapshot.K/cpuN.pt (and --bts's cpuN.bts, run->bts) as each
 * CPU's output, closing the last.
 */
int rec_snapshot_files(struct rec_cpu *rcs, int n, struct rec_run *run,
		       const struct rec_opts *o, int k);
/* On SIGUSR2: every CPU's newest data into the next snapshot. */
int rec_snapshot(struct rec_cpu *rcs, int n, const struct rec_opts *o,
		 struct rec_run *run);

#endif /* PT_TRACE_REC_SNAPSHOT_H */
