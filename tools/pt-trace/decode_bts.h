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
struct ptl_file;
struct tl_track;

struct decode_bts_stats {
	uint64_t records;
	uint64_t gaps;		/* loss records (stream mode) */
	uint64_t lost;		/* branches in them */
	uint64_t unknown;	/* gaps of unknown size */
	uint64_t partial;	/* bytes after the last whole record */
	uint64_t unread;	/* --calls: branches no file holds */
};

/*
 * Print the records of @buf (a cpuN.bts of CPU @cpu, -1 unknown) and the
 * gaps of @lf (its cpuN.bts.loss, or NULL) where they are; only the
 * counts with @quiet.  @as gives symbols: user addresses in the
 * recorded command's address space (BTS records say nothing of the
 * process), kernel ones from the recording's kallsyms.  With @calls the
 * call tree instead of the branches (call_tree.h); with @tl the
 * function spans into that timeline track too (time: two ticks per
 * record, BTS has no time).
 */
void decode_bts(struct decode_aspaces *as, const uint8_t *buf, size_t len,
		int cpu, const struct ptl_file *lf, int quiet, int calls,
		struct tl_track *tl, struct outbuf *ob,
		struct decode_bts_stats *st);

#endif /* PT_TRACE_DECODE_BTS_H */
