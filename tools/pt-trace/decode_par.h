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

/* What a PSB+ holds that says where and when the code is. */
struct dpar_psb {
	int has_ip;		/* a FUP: tracing is on, the code goes on at @ip */
	uint64_t ip;
	int has_tsc;		/* a TSC packet: the time from there on */
	uint64_t tsc;
	int has_pip;		/* a PIP: the CR3 from there on */
	int pip_nr;		/* its NR: in a guest */
	int has_vmcs;		/* a VMCS packet: the guest's VMCS */
};

struct dpar_seg {
	uint64_t start, end;	/* file offsets; a PSB at @start but the first */
	unsigned long idx;
	int last;		/* the stretch's last segment */
	struct dpar_psb psb;	/* its own PSB+ (not for the first) */
	struct dpar_psb next;	/* the next segment's (not for the last) */
};

/*
 * What decode does with the segments.  A segment's decoder starts in a
 * state (whose code runs, ...) that the segments before it leave; a
 * worker cannot wait for them, so it starts in the state it expects
 * (@seg with again 0), and when the segment's turn to be written comes
 * (every segment before it written and @accept'ed) @stands says whether
 * that was the state the segment before left: if not, its output is
 * dropped and @seg decodes it again (again 1) in that state.
 */
struct dpar_ops {
	/*
	 * The stretch's @n segments, before any is decoded: 0, or 1 when
	 * the stretch is to be decoded in one piece (dpar_run() then
	 * returns DPAR_SERIAL), or an exit status.
	 */
	int (*prepare)(void *arg, const struct dpar_seg *segs,
		       unsigned long n);
	/*
	 * Decode one segment writing to @obs[WORKER] (an outbuf on the
	 * output's fd, set up by the caller): 0 or an exit status.
	 */
	int (*seg)(void *arg, unsigned int worker, const struct dpar_seg *s,
		   int again);
	int (*stands)(void *arg, const struct dpar_seg *s);
	/*
	 * When @stands returns DPAR_REST: decode [@start, @end), the rest
	 * of the stretch from that segment on, in this thread, writing as
	 * it goes to @obs[WORKER]; the other segments' output is dropped.
	 */
	int (*rest)(void *arg, unsigned int worker, uint64_t start,
		    uint64_t end);
	/* @s is written: the state it left is the next one's */
	void (*accept)(void *arg, const struct dpar_seg *s);
	/*
	 * Optional: write @s's output @buf (@len bytes) to @fd, in its
	 * turn (instead of as it is): 0 or -errno.
	 */
	int (*emit)(void *arg, const struct dpar_seg *s, int fd,
		    const char *buf, size_t len);
	void *arg;
};

#define DPAR_SERIAL	1000
#define DPAR_REST	2

/*
 * Decode @buf's [@start, @end) with @jobs workers through @ops.  Returns
 * 0, DPAR_SERIAL (nothing done), or the first non-zero status.  @buf is
 * a ptt_map_file() mapping: a large stretch's scans drop what they read.
 */
int dpar_run(const uint8_t *buf, uint64_t start, uint64_t end,
	     unsigned int jobs, struct outbuf **obs,
	     const struct dpar_ops *ops);

/*
 * Whether @buf[start, end) holds a VMCS packet or a PIP with NR set (or
 * their bytes): VMX non-root code, whose context decode does not carry
 * from one segment to the next yet.  @buf as for dpar_run().
 */
int dpar_has_vmx(const uint8_t *buf, uint64_t start, uint64_t end);

#endif /* PT_TRACE_DECODE_PAR_H */
