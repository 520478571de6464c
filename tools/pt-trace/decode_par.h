/* SPDX-License-Identifier: GPL-2.0 */
/*
 * decode --jobs: a stretch of trace cut at PSBs into segments that
 * worker threads decode, each with its own decoder, their output written
 * in the trace's order.
 */
#ifndef PT_TRACE_DECODE_PAR_H
#define PT_TRACE_DECODE_PAR_H

#include <stddef.h>
#include <stdint.h>

#include "outbuf.h"

#define DPAR_MAX_JOBS	64

struct dpar_seg {
	uint64_t start, end;	/* file offsets; a PSB at @start but the first */
	unsigned long idx;
	int last;		/* the stretch's last segment */
	int has_next_ip;	/* the next segment's PSB+ has a FUP */
	uint64_t next_ip;	/* its IP: where this segment's code ends */
};

/*
 * Decode @buf's [@start, @end) with @jobs workers: @seg(@arg, WORKER,
 * SEG) decodes one segment writing to @obs[WORKER] (an outbuf on the
 * output's fd, set up by the caller), and returns 0 or an exit status.
 * Returns 0 or the first non-zero status.
 */
int dpar_run(const uint8_t *buf, uint64_t start, uint64_t end,
	     unsigned int jobs, struct outbuf **obs,
	     int (*seg)(void *arg, unsigned int worker,
			const struct dpar_seg *s),
	     void *arg);

/* Whether @buf[start, end) holds a PIP packet (or its two bytes). */
int dpar_has_pip(const uint8_t *buf, uint64_t start, uint64_t end);

#endif /* PT_TRACE_DECODE_PAR_H */
