/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recorder's loss file, DIR/cpuN.loss: one line per gap the driver
 * recorded in a streaming trace (struct pt_trace_loss), with the file
 * offset in cpuN.pt where it lies.  Text, so that awk and grep read it as
 * easily as the dump does:
 *
 *   pt-trace-loss 1
 *   cpu N
 *   # seq stream_pos file_offset bytes start_ns end_ns start_tsc end_tsc flags
 *   loss SEQ POS OFFSET BYTES|- START_NS END_NS START_TSC END_TSC FLAGS
 *   lapped FIRST_SEQ COUNT
 *   end RECORDS LAPPED
 *
 * Numbers are decimal.  BYTES is '-' when the driver did not know them
 * (PT_LOSS_BYTES_KNOWN clear).  FLAGS are names joined by ',' (hw_stop,
 * no_space, hw_error, bytes_known, dropped, unknown bits as 0x..) or
 * '-'; restart and cpu_offline are the recorder's (PTL_FLAG_*).  A
 * 'dropped' record is bytes lost while tracing ran: POS is where
 * that run began and the span is the run's, not time without trace.  A
 * 'lapped' line says that records FIRST_SEQ.. were overwritten in the
 * control page before the recorder read them: their position and size
 * are unknown.  'end' is written last: the driver's record count at the
 * end and how many of them were lapped.  Unknown keywords are skipped.
 * See Documentation/tools.rst.
 */
#ifndef PT_TRACE_LOSSFILE_H
#define PT_TRACE_LOSSFILE_H

#include <stdint.h>
#include <stdio.h>

#include "compiler.h"

#define PTL_MAGIC		"pt-trace-loss 1"

/*
 * Flags of the recorder's own records, never the driver's (PT_LOSS_* are
 * the low bits): the driver stopped the trace (its CPU went offline, a
 * suspend) and the recorder STARTed it again at this offset ("restart"),
 * or the trace was still stopped at the end (no "restart"); "cpu_offline"
 * when the recorder saw the CPU offline meanwhile.
 */
#define PTL_FLAG_CPU_OFFLINE	BIT(30)
#define PTL_FLAG_RESTART	BIT(31)
#define PTL_SUFFIX		".loss"

struct ptl_record {
	uint64_t seq;
	uint64_t pos;		/* stream position (bytes since START) */
	uint64_t offset;	/* offset in the .pt file */
	uint64_t bytes;		/* valid when bytes_known */
	uint64_t start_ns, end_ns;
	uint64_t start_tsc, end_tsc;
	uint32_t flags;		/* PT_LOSS_* */
	int bytes_known;
};

struct ptl_file {
	struct ptl_record *rec;
	size_t n;
	int cpu;		/* -1 when the file does not say */
	uint64_t lapped;	/* records overwritten before being read */
	int complete;		/* the 'end' line was there */
	uint64_t end_records;	/* from 'end': the driver's count */
};

/* Totals over the records of one file (or CPU). */
struct ptl_sum {
	uint64_t records;	/* records read */
	uint64_t known_bytes;	/* sum of the known byte counts */
	uint64_t unknown;	/* records whose bytes are unknown */
	uint64_t lost_ns;	/* time not traced (gaps, not drops) */
	uint64_t lapped;
};

/* Writing. */
FILE *ptl_create(const char *path, int cpu);
void ptl_write(FILE *f, const struct ptl_record *r);
void ptl_write_lapped(FILE *f, uint64_t first_seq, uint64_t count);
void ptl_write_end(FILE *f, uint64_t records, uint64_t lapped);
void ptl_add(struct ptl_sum *sum, const struct ptl_record *r);

/* "hw_stop,no_space" into buf (at least 64 bytes). */
const char *ptl_flags_str(uint32_t flags, char *buf, size_t len);

/*
 * One record in words, as dump and decode print it after "OFFSET: loss: "
 * ("4096 bytes lost, 2.000000 ms not traced (record 0, ...)"); @buf of
 * PTL_DESCRIBE_MAX bytes holds any record.
 */
#define PTL_DESCRIBE_MAX	512
const char *ptl_describe(const struct ptl_record *r, char *buf, size_t len);

/*
 * Read a loss file: 0, or -errno (-EINVAL: not a loss file, or a
 * malformed line; *line is its number).  Records are sorted by offset.
 */
int ptl_read(const char *path, struct ptl_file *lf, int *line);
void ptl_free(struct ptl_file *lf);
void ptl_sum_file(const struct ptl_file *lf, struct ptl_sum *sum);

/* DIR/cpuN.pt -> DIR/cpuN.loss (malloc'ed), NULL without memory. */
char *ptl_path_for(const char *trace_path);

#endif /* PT_TRACE_LOSSFILE_H */
