/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The bare baselines of make bench (bare_decode.c, bare_insn.c): a whole
 * trace file in memory, as a libipt configuration over it.
 */
#ifndef PTT_BENCH_BARE_LOAD_H
#define PTT_BENCH_BARE_LOAD_H

#include <stdio.h>
#include <stdlib.h>

#include <intel-pt.h>

/* 0, or -1 when @path cannot be read whole. */
static inline int bare_load(const char *path, struct pt_config *config)
{
	unsigned char *buf;
	long len;
	FILE *f = fopen(path, "rb");

	if (!f || fseek(f, 0, SEEK_END))
		return -1;
	len = ftell(f);
	if (len <= 0)
		return -1;
	rewind(f);
	buf = malloc((size_t)len);
	if (!buf || fread(buf, (size_t)len, 1, f) != 1)
		return -1;
	fclose(f);
	pt_config_init(config);
	config->begin = buf;
	config->end = buf + len;
	return 0;
}

#endif /* PTT_BENCH_BARE_LOAD_H */
