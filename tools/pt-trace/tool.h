/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every pt-trace subcommand shares: exit codes, error reporting,
 * number parsing and whole-file loading.
 */
#ifndef PT_TRACE_TOOL_H
#define PT_TRACE_TOOL_H

#include <stddef.h>
#include <stdint.h>

#include "compiler.h"

/* Exit codes, documented in Documentation/tools.rst. */
#define PTT_EXIT_OK		0	/* done */
#define PTT_EXIT_USAGE		1	/* bad command line */
#define PTT_EXIT_INPUT		2	/* unreadable or unusable input file */
#define PTT_EXIT_DEVICE		3	/* /dev/ptN missing, busy or refused */
#define PTT_EXIT_NO_PT		4	/* this machine has no Intel PT */
#define PTT_EXIT_INTERNAL	5	/* out of memory, library failure */
#define PTT_EXIT_INTERRUPTED	130	/* stopped by a signal before the end */

extern const char *ptt_prog;

void ptt_err(const char *fmt, ...) __printf(1, 2);
void ptt_warn(const char *fmt, ...) __printf(1, 2);

/*
 * decode --jobs: a thread's messages kept in memory, to be written when
 * its piece's output is, and dropped with it when the piece is decoded
 * again.  ptt_msgs_to() sends this thread's ptt_err() and ptt_warn() to
 * @m (NULL: stderr) and returns where they went before.
 */
struct ptt_msgs {
	char *buf;
	size_t len, cap;
};

struct ptt_msgs *ptt_msgs_to(struct ptt_msgs *m);

/* Parse a number in C syntax (0x.., 0.., decimal); 0 on success. */
int ptt_parse_u64(const char *s, uint64_t *val);
int ptt_parse_u32(const char *s, uint32_t *val);
/* "A-B", two such numbers with A <= B (an address range); 0 on success. */
int ptt_parse_range(const char *s, uint64_t *a, uint64_t *b);

/* CLOCK_MONOTONIC in seconds (the recorder's timers). */
double ptt_now(void);

/* Write all @n bytes (retrying short writes and EINTR); 0 or -errno. */
int ptt_write_all(int fd, const void *p, size_t n);

/* Read a whole file into malloc'ed memory; 0 or -errno. */
int ptt_load_file(const char *path, uint8_t **buf, size_t *len);
/*
 * @path mapped read-only (decode: the trace stays in the page cache,
 * whatever its size, not in the process's memory); ptt_unmap_file()
 * with the same length undoes it.  Should the file get shorter while
 * mapped, touching past its end exits with PTT_EXIT_INPUT and a message
 * naming it (not SIGBUS's crash).
 */
int ptt_map_file(const char *path, uint8_t **buf, size_t *len);
void ptt_unmap_file(uint8_t *buf, size_t len);
/*
 * Bytes [@from, @to) of a mapped file are done with: out of the process's
 * memory (read again from the file if touched again).
 */
void ptt_file_drop(uint8_t *buf, size_t from, size_t to);
/*
 * A mapped file read front to back, now at @off: every PTT_DROP_EVERY
 * bytes of progress, what lies more than PTT_DROP_KEEP behind @off is
 * dropped.  *@dropped_to (0 at the start) is where the last drop ended.
 * Returns the offset before which a call does nothing (for a hot loop).
 */
#define PTT_DROP_KEEP	(1024u * 1024)
#define PTT_DROP_EVERY	(4 * PTT_DROP_KEEP)
size_t ptt_file_drop_behind(const void *buf, size_t *dropped_to, size_t off);
/* The first line of a sysfs file into @buf, or "" when unreadable. */
const char *ptt_sysfs_line(const char *path, char *buf, size_t len);
/* The N of a recording's cpuN@suffix (".pt", ".bts") file, or -1. */
int ptt_file_cpu(const char *path, const char *suffix);

/* The subcommands. */
int cmd_record(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_decode(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_contexts(int argc, char **argv);

#endif /* PT_TRACE_TOOL_H */
