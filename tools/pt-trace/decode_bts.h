/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pt-trace decode of Branch Trace Store files (cpuN.bts, decode_bts.c):
 * one line per branch, symbolized in the recording's address spaces.
 */
#ifndef PT_TRACE_DECODE_BTS_H
#define PT_TRACE_DECODE_BTS_H

#include <stdint.h>

#include "outbuf.h"

struct decode_aspaces;
struct decode_filter;
struct ptl_file;
struct tl_track;

struct decode_bts_stats {
	uint64_t records;
	uint64_t gaps;		/* loss records (stream mode) */
	uint64_t lost;		/* branches in them */
	uint64_t unknown;	/* gaps of unknown size */
	uint64_t partial;	/* bytes after the last whole record */
	uint64_t unread;	/* --calls: branches no file holds */
	uint64_t switches;	/* the driver's switch records */
	uint64_t hidden;	/* branches of threads --pid/--tid left out */
};

/*
 * Print the records of @buf (a cpuN.bts of CPU @cpu, -1 unknown) and the
 * gaps of @lf (its cpuN.bts.loss, or NULL) where they are; only the
 * counts with @quiet.  @as gives symbols: user addresses in the
 * address space of the process the last switch record names (the
 * recorded command's before one), kernel ones from the recording's
 * kallsyms.  @f's --pid/--tid keep the threads' branches it names.  With @calls the
 * call tree instead of the branches (call_tree.h); with @tl the
 * function spans into that timeline track too (time: two ticks per
 * record, BTS has no time).
 */
void decode_bts(struct decode_aspaces *as, const uint8_t *buf, size_t len,
		int cpu, const struct ptl_file *lf, int quiet, int calls,
		const struct decode_filter *f, struct tl_track *tl,
		struct outbuf *ob, struct decode_bts_stats *st);

#endif /* PT_TRACE_DECODE_BTS_H */
