/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record (rec_sideband.c): sideband.txt's header, TSC and per-CPU lines,
 * and the perf sideband's opening.
 */
#ifndef PT_TRACE_REC_SIDEBAND_H
#define PT_TRACE_REC_SIDEBAND_H

#include <stdio.h>

#include "rec_ctx.h"

/* The recording's header lines: @rc0 mapped, configured as traced. */
void rec_write_header(FILE *sb, const struct rec_opts *o,
		      const struct pt_trace_caps *caps,
		      const struct rec_cpu *rc0);
/* TSC against CLOCK_MONOTONIC on every traced CPU (when: 0 start, 1 end). */
void rec_sample_tsc(struct rec_cpu *rcs, int n, int when);
/* The TSC rate and offsets from rec_sample_tsc()'s samples. */
void rec_write_tsc(FILE *sb, const struct rec_cpu *rcs, int n);
/* One CPU's lines at the end. */
void rec_cpu_sideband(FILE *sb, const struct rec_cpu *rc, int stream);
/* Open perf's side-band records of what is traced (or say why not). */
void rec_perf_open(struct rec_run *run, const int *cpus, int n,
		   const struct rec_opts *o);

#endif /* PT_TRACE_REC_SIDEBAND_H */
