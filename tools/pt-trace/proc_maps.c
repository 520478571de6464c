// SPDX-License-Identifier: GPL-2.0
/*
 * Executable mappings for the sideband (see proc_maps.h): one map= line
 * per mapping with its start, end and file offset as the kernel reports
 * them, so that decode can place each at its real file offset.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc_maps.h"
#include "sideband.h"

/* 1 the first time @line is seen (and remembered), else 0. */
static int ptt_maps_seen(struct ptt_maps *seen, const char *line)
{
	char *copy;
	int i;

	for (i = 0; i < seen->n; i++)
		if (!strcmp(seen->line[i], line))
			return 0;
	copy = strdup(line);
	if (copy && seen->n < PTT_MAX_MAPS)
		seen->line[seen->n++] = copy;
	else
		free(copy);
	return 1;
}

int ptt_maps_each(pid_t pid, int (*fn)(const struct ptt_map *m, void *ctx),
		  void *ctx)
{
	char path[64], line[4096];
	int ret = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (!ret && fgets(line, sizeof(line), f)) {
		struct ptt_map m;
		int n = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &m.start,
			   &m.end, m.perm, &m.pgoff, &n) != 4 || !n ||
		    m.perm[2] != 'x')
			continue;
		line[strcspn(line, "\n")] = 0;
		if (line[n] != '/' && line[n] != '[')
			continue;
		m.path = line + n;
		m.line = line;
		ret = fn(&m, ctx);
	}
	fclose(f);
	return ret;
}

struct ptt_maps_put_ctx {
	FILE *sb;
	struct ptt_maps *seen;
};

static int ptt_maps_put(const struct ptt_map *m, void *ctx)
{
	struct ptt_maps_put_ctx *c = ctx;

	if (ptt_maps_seen(c->seen, m->line))
		ptsb_put(c->sb, "map", "0x%llx 0x%llx 0x%llx %s", m->start,
			 m->end, m->pgoff, m->path);
	return 0;
}

/* Executable mappings of @pid, each written once however often read. */
void ptt_maps_write(FILE *sb, pid_t pid, struct ptt_maps *seen)
{
	struct ptt_maps_put_ctx c = { sb, seen };
	char path[64], line[4096];
	ssize_t len;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	memcpy(line, "exe ", 4);
	len = readlink(path, line + 4, sizeof(line) - 5);
	if (len > 0) {
		line[4 + len] = 0;
		if (ptt_maps_seen(seen, line))
			ptsb_put(sb, "exe", "%s", line + 4);
	}
	ptt_maps_each(pid, ptt_maps_put, &c);
}

void ptt_maps_free(struct ptt_maps *seen)
{
	while (seen->n > 0)
		free(seen->line[--seen->n]);
}
