// SPDX-License-Identifier: GPL-2.0
/*
 * Executable mappings for the sideband (see proc_maps.h): one map= line
 * per mapping with its start, end and file offset as the kernel reports
 * them, so that decode can place each at its real file offset, and the
 * file's build-id, so that decode can tell another build at that path.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build_id.h"
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

		if (sscanf(line, "%llx-%llx %7s %llx %*s %llu %n", &m.start,
			   &m.end, m.perm, &m.pgoff, &m.ino, &n) != 5 || !n ||
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
	pid_t pid;
	struct ptt_maps *seen;
};

static int ptt_maps_put(const struct ptt_map *m, void *ctx)
{
	struct ptt_maps_put_ctx *c = ctx;
	char hex[41];
	uint8_t id[20];
	int n, i;

	if (!ptt_maps_seen(c->seen, m->line))
		return 0;
	ptsb_put(c->sb, "map", "0x%llx 0x%llx 0x%llx %s", m->start, m->end,
		 m->pgoff, m->path);
	if (m->path[0] != '/')
		return 0;	/* [vdso]: decode has the recording's copy */
	/*
	 * The mapped file's own (map_files), else the path's while it is
	 * the mapped inode: none for a file replaced since it was mapped.
	 */
	n = bid_read(c->pid, m->start, m->end, m->path, m->ino, id);
	if (n <= 0)
		return 0;
	for (i = 0; i < n; i++)
		sprintf(hex + 2 * i, "%02x", id[i]);
	ptsb_put(c->sb, "map.build_id", "0x%llx %s", m->start, hex);
	return 0;
}

/* Executable mappings of @pid, each written once however often read. */
void ptt_maps_write(FILE *sb, pid_t pid, struct ptt_maps *seen)
{
	struct ptt_maps_put_ctx c = { sb, pid, seen };
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

/* The value of lower-case hex digit @c, or -1. */
static int ptt_hex_digit(char c)
{
	static const char digits[] = "0123456789abcdef";
	const char *p = c ? strchr(digits, c) : NULL;

	return p ? (int)(p - digits) : -1;
}

int ptt_map_parse(const struct ptsb *sb, size_t i, struct ptt_map_rec *m)
{
	const char *v, *hex;
	unsigned long long start;
	size_t len, k;
	int n = 0, hi, lo;

	if (i >= sb->n || strcmp(sb->ent[i].key, "map"))
		return 0;
	v = sb->ent[i].val;
	if (sscanf(v, "%lli %lli %lli %n", &m->start, &m->end, &m->pgoff,
		   &n) != 3 || !n)
		return 0;
	m->path = v + n;
	m->build_id_size = 0;
	if (i + 1 >= sb->n || strcmp(sb->ent[i + 1].key, "map.build_id"))
		return 1;
	/* START HEX: lower-case hex, at most 20 bytes, as written */
	v = sb->ent[i + 1].val;
	n = 0;
	if (sscanf(v, "%lli %n", &start, &n) != 1 || !n || start != m->start)
		return 1;
	hex = v + n;
	len = strlen(hex);
	if (!len || len % 2 || len > 2 * sizeof(m->build_id))
		return 1;
	for (k = 0; k < len / 2; k++) {
		hi = ptt_hex_digit(hex[2 * k]);
		lo = ptt_hex_digit(hex[2 * k + 1]);
		if (hi < 0 || lo < 0)
			return 1;
		m->build_id[k] = (uint8_t)(hi << 4 | lo);
	}
	m->build_id_size = len / 2;
	return 1;
}
