/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sideband.perf: the records Linux's perf machinery wrote for the traced
 * tasks (mmap2, comm, fork/exit, context switches, lost), kept raw as
 * the kernel wrote them after a small header that says how to read their
 * timestamps.  Documentation/tools.rst ("sideband.perf") is the format;
 * this is its reader (for decode, export, tests) and the header the
 * recorder writes.
 */
#ifndef PT_TRACE_PERFSB_H
#define PT_TRACE_PERFSB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "compiler.h"

#define PTPSB_FILE_NAME		"sideband.perf"
#define PTPSB_TEXT_NAME		"sideband.perf.txt"
#define PTPSB_MAGIC		"PTTPERF\n"
#define PTPSB_VERSION		1

/* ptpsb_header.clock: what the records' time (sample_id) counts. */
#define PTPSB_CLOCK_PERF	0	/* perf's clock; time_* give the TSC */
#define PTPSB_CLOCK_MONOTONIC	1	/* CLOCK_MONOTONIC ns, no exact TSC */

/* ptpsb_header.flags */
#define PTPSB_TIME_ZERO		BIT(0)	/* cap_user_time_zero: exact TSC */
#define PTPSB_SYSTEM_WIDE	BIT(1)	/* per-CPU events, every task */
#define PTPSB_BUILD_ID		BIT(2)	/* mmap2 asked for build-ids */

/* 64 bytes, little-endian, at offset 0; records start at header_size. */
struct ptpsb_header {
	char magic[8];		/* PTPSB_MAGIC */
	uint32_t version;	/* PTPSB_VERSION; a reader refuses newer */
	uint32_t header_size;	/* >= 64; readers skip what they don't know */
	uint64_t sample_type;	/* of every record's sample_id trailer */
	uint32_t flags;		/* PTPSB_* */
	uint32_t clock;		/* PTPSB_CLOCK_* */
	uint64_t time_zero;	/* the mmap page's, when PTPSB_TIME_ZERO */
	uint32_t time_mult;
	uint16_t time_shift;
	uint16_t reserved0;
	uint64_t reserved[2];
};

/* One record, decoded.  Strings point into the loaded file. */
struct ptpsb_event {
	uint32_t type;		/* PERF_RECORD_* */
	uint16_t misc;
	/* sample_id: who and when (all 0 for a record without one) */
	uint32_t pid, tid, cpu;
	uint64_t time;
	/* MMAP/MMAP2: addr, len, pgoff, prot, filename, build-id */
	uint64_t addr, len, pgoff;
	uint32_t prot, mflags;
	uint8_t build_id[20];
	uint8_t build_id_size;	/* 0: none */
	const char *name;	/* MMAP filename or COMM comm */
	/* MMAP/COMM: the task (pid/tid fields of the body) */
	uint32_t bpid, btid;
	/* FORK/EXIT: ppid/ptid; SWITCH_CPU_WIDE: the other task */
	uint32_t ppid, ptid;
	uint64_t lost;		/* LOST: records the ring dropped */
};

struct ptpsb_file {
	uint8_t *buf;
	size_t len;
	struct ptpsb_header hdr;
};

/* 0, or -errno; -EINVAL: not a sideband.perf, -EPROTO: a newer version. */
int ptpsb_load(const char *path, struct ptpsb_file *f);
void ptpsb_free(struct ptpsb_file *f);

/*
 * The record at *pos (start with 0): 1 and *pos advanced, 0 at the end,
 * -EINVAL for a record cut short or malformed.
 */
int ptpsb_next(const struct ptpsb_file *f, size_t *pos,
	       struct ptpsb_event *ev);

/* Bytes of the sample_id trailer a record has under @sample_type. */
size_t ptpsb_id_size(uint64_t sample_type);

/* A record time as TSC: 0, or -ENODATA when the file has no exact way. */
int ptpsb_tsc(const struct ptpsb_header *h, uint64_t time, uint64_t *tsc);

/* One text line (no newline) for @ev, as sideband.perf.txt has them. */
void ptpsb_print(FILE *out, const struct ptpsb_header *h,
		 const struct ptpsb_event *ev);

/* The whole file as text, in time order: 0 or -errno. */
int ptpsb_write_text(const struct ptpsb_file *f, FILE *out);

#endif /* PT_TRACE_PERFSB_H */
