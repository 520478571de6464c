/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record (rec_sym_range.c): --filter and --stop-at SYMBOLs into address
 * ranges of the target.
 */
#ifndef PT_TRACE_REC_SYM_RANGE_H
#define PT_TRACE_REC_SYM_RANGE_H

#include <stdio.h>

#include "rec_ctx.h"

/* The option that names a symbol of range kind @cfg. */
const char *rec_sym_opt(uint32_t cfg);
/* -p PID: every symbol's range in its mappings; 0 or the exit status. */
int rec_resolve_syms(struct rec_opts *o, FILE *sb);
/*
 * A COMMAND at its exec stop: every symbol's range, waiting for the
 * libraries that hold them where needed; 0 or the exit status.
 */
int rec_resolve_cmd_syms(struct rec_opts *o, struct rec_run *run);

#endif /* PT_TRACE_REC_SYM_RANGE_H */
