/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recorder's reading of mapped files' GNU build-ids (elfutils), for
 * the mmap2 records of sideband.perf that carry none: those the recorder
 * synthesizes for a running process (record -p), and the kernel's own
 * where it gave none (Linux before 5.12, or when it could not read the
 * note).  With a build-id in every record decode can tell a binary that
 * changed since the recording, and export --perf can name it to perf.
 */
#ifndef PT_TRACE_BUILD_ID_H
#define PT_TRACE_BUILD_ID_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* What was read, by the file's identity in the kernel's mmap2 record. */
struct bid_cache {
	struct bid_entry *v;
	size_t n;
	uint64_t filled;	/* records given a build-id */
	uint64_t unread;	/* executable file mappings left without */
};

/*
 * The build-id of the file @pid maps at [@start, @end) from @path: read
 * through /proc/PID/map_files/ while that mapping exists and we may read
 * it (the path may name another file by now), else from @path, taken
 * only when its inode is @ino (@ino 0: any).  Its size (at most 20), 0
 * for an ELF file without one, -errno when no such file could be read.
 */
int bid_read(pid_t pid, uint64_t start, uint64_t end, const char *path,
	     uint64_t ino, uint8_t id[20]);

/*
 * The perf record @rec of @size bytes (header, body, sample_id): if it
 * is an executable MMAP2 of a file without a build-id, give it the file's
 * (as the kernel writes one, PERF_RECORD_MISC_MMAP_BUILD_ID in place of
 * the device and inode) when bid_read() finds it.  1 when it did so.
 */
int bid_fill_mmap2(struct bid_cache *c, uint8_t *rec, size_t size);

void bid_cache_free(struct bid_cache *c);

#endif /* PT_TRACE_BUILD_ID_H */
