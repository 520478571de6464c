/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record -- COMMAND (rec_cmd_trace.c): the command's start under the
 * trace, its stops and its end.
 */
#ifndef PT_TRACE_REC_CMD_TRACE_H
#define PT_TRACE_REC_CMD_TRACE_H

#include <stdio.h>
#include <sys/types.h>

#include "rec_bts.h"
#include "rec_ctx.h"

/* A ptrace stop @st of the command @child: served, and it goes on. */
void rec_child_stop(pid_t child, int st, FILE *sb, struct ptt_maps *maps);
/*
 * Spawn @o->cmd, start every device (and @bts, if any) at its exec and
 * let it run: 0 or the exit status (said).
 */
int rec_start_command(struct rec_cpu *rcs, int n, struct rec_opts *o,
		      const struct pt_trace_caps *caps,
		      struct rec_run *run, const int *cpus,
		      struct rec_bts *bts);
/* After the trace: let the command run to its end (--stop-at, -d). */
void rec_finish_command(struct rec_run *run);

#endif /* PT_TRACE_REC_CMD_TRACE_H */
