/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recorder's sideband file: what a decoder needs besides the raw
 * trace (CPU identity, timing ratios, the traced process's memory map,
 * loss records).  Plain "key=value" lines, '#' comments; a key may repeat
 * (one "map=" per mapping, one "loss=" per gap).  See
 * Documentation/tools.rst for the keys.
 */
#ifndef PT_TRACE_SIDEBAND_H
#define PT_TRACE_SIDEBAND_H

#include <stdint.h>
#include <stdio.h>

#include "compiler.h"

#define PTSB_FILE_NAME		"sideband.txt"
#define PTSB_MAGIC		"pt-trace-sideband=1"

struct ptsb_entry {
	char *key;
	char *val;
};

struct ptsb {
	struct ptsb_entry *ent;
	size_t n;
};

/* 0, or -errno; a file without the magic first line is -EINVAL. */
int ptsb_read(const char *path, struct ptsb *sb);
void ptsb_free(struct ptsb *sb);

/* The first value of @key, or NULL. */
const char *ptsb_get(const struct ptsb *sb, const char *key);
/* 0 when @key is present and a number. */
int ptsb_get_u64(const struct ptsb *sb, const char *key, uint64_t *val);
/* Walk repeated keys: start with *pos = 0; NULL at the end. */
const char *ptsb_next(const struct ptsb *sb, const char *key, size_t *pos);

/* Writing: ptsb_create() writes the magic line. */
FILE *ptsb_create(const char *path);
void ptsb_put(FILE *f, const char *key, const char *fmt, ...)
	__printf(3, 4);

#endif /* PT_TRACE_SIDEBAND_H */
