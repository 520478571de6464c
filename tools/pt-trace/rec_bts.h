/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record --bts (rec_bts.c): a Branch Trace Store recorder on each
 * recorded CPU beside its PT trace, in PT's mode: DIR/cpuN.bts (and
 * DIR/cpuN.bts.loss), read, drained and restarted after a CPU hotplug
 * by rec_bts_ring.c as PT's traces.
 */
#ifndef PT_TRACE_REC_BTS_H
#define PT_TRACE_REC_BTS_H

#include <stdint.h>
#include <stdio.h>

struct rec_bts {
	int cpu;
	int fd;
	uint64_t size;		/* buffer bytes */
};

/*
 * Open and configure /dev/btsN: PT_MODE_FLIGHT or PT_MODE_STREAM (with
 * @watermark, 0: the driver's default), @size bytes (0: the driver's
 * default), kernel and/or user branches.  0, or the exit status after a
 * message saying what to do.
 */
int rec_bts_open(struct rec_bts *b, int cpu, uint64_t size, int kernel,
		 int user, uint32_t mode, uint32_t watermark);
int rec_bts_start(struct rec_bts *b);
/* The driver stopped CPU @cpu's BTS before the end (@stopped): say so. */
void rec_bts_stopped(FILE *sb, int cpu, int stopped);
void rec_bts_close(struct rec_bts *b);

#endif /* PT_TRACE_REC_BTS_H */
