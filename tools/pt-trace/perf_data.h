/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A writer of perf.data files (perf's on-disk format, see the Linux
 * tree's tools/perf/Documentation/perf.data-file-format.txt): the file
 * header, one event attribute with its id, the data section of records,
 * and the build-id feature section.  What records to write is the
 * caller's (cmd_export.c).
 */
#ifndef PT_TRACE_PERF_DATA_H
#define PT_TRACE_PERF_DATA_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/perf_event.h>

/* Record types only perf's tools write (tools/perf/util/event.h). */
#define PDW_RECORD_AUXTRACE_INFO	70
#define PDW_RECORD_AUXTRACE		71
#define PDW_AUXTRACE_INTEL_PT		1

/* What every record's sample_id trailer holds (sample_id_all). */
#define PDW_SAMPLE_TYPE	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
			 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | \
			 PERF_SAMPLE_IDENTIFIER)
#define PDW_TRAILER_SIZE	32

struct pdw {
	FILE *f;
	const char *path;
	uint64_t data_offset;
	uint64_t data_size;
	uint64_t id;		/* the attribute's id, in every trailer */
	int error;		/* first errno */
	/* HEADER_BUILD_ID's entries, written after the data at the end */
	uint8_t *build_ids;
	size_t build_ids_len;
};

/* The sample_id trailer: who and when a record is. */
struct pdw_who {
	uint32_t pid, tid;
	uint64_t time;		/* perf time, ns */
	uint32_t cpu;
};

/*
 * Create @path with @attr (sample_type must be PDW_SAMPLE_TYPE, with
 * sample_id_all) under id @id.  0 or -errno.
 */
int pdw_open(struct pdw *w, const char *path,
	     const struct perf_event_attr *attr, uint64_t id);

/*
 * Append a record: @body after a header of @type/@misc, then, when @who
 * is given, the trailer.  @len is a multiple of 8.
 */
void pdw_record(struct pdw *w, uint32_t type, uint16_t misc,
		const void *body, size_t len, const struct pdw_who *who);

/* Append raw bytes (the data after an AUXTRACE record), 8-aligned with zeros. */
void pdw_bytes(struct pdw *w, const void *data, size_t len);

/*
 * Add a HEADER_BUILD_ID entry: the file @name (a path, or
 * "[kernel.kallsyms]") has the build-id @id of @size bytes (at most 20);
 * @misc PERF_RECORD_MISC_KERNEL for the kernel and its modules, else
 * PERF_RECORD_MISC_USER.  perf buildid-list lists these; perf script
 * looks each file up by them (~/.debug, /usr/lib/debug/.build-id).
 */
void pdw_build_id(struct pdw *w, uint16_t misc, const uint8_t *id,
		  size_t size, const char *name);

/* Fill in the header (and the feature sections) and close; 0 or -errno (the first error). */
int pdw_close(struct pdw *w);

#endif /* PT_TRACE_PERF_DATA_H */
