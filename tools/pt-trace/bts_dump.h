/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pt-trace dump of a Branch Trace Store file (cpuN.bts, bts_dump.c):
 * one line per 24-byte record, from -> to and flags, with symbols when
 * ELF images or a kallsyms copy are given.
 */
#ifndef PT_TRACE_BTS_DUMP_H
#define PT_TRACE_BTS_DUMP_H

#include <stddef.h>

#include "outbuf.h"

#define BTS_DUMP_MAX_ELF	64

struct bts_dump_opts {
	const char *elf[BTS_DUMP_MAX_ELF];	/* FILE[:BASE] */
	size_t nelf;
	const char *kallsyms;			/* a copy of /proc/kallsyms */
	int stats;				/* counts, not records */
};

/* Is @path a BTS file (its name ends in .bts)? */
int bts_dump_is_bts(const char *path);
/* Dump @path into @ob: PTT_EXIT_OK, _INPUT or _INTERNAL (said why). */
int bts_dump(const char *path, const struct bts_dump_opts *o,
	     struct outbuf *ob);

#endif /* PT_TRACE_BTS_DUMP_H */
