/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The traced process's executable mappings, from /proc/PID/maps, as the
 * sideband's exe= and map= lines (Documentation/tools.rst) that decode
 * places in its image; each file's GNU build-id on a map.build_id= line
 * of its own after its map= line, so that decode can tell a file that
 * changed since (a reader of map= lines that predates the key sees the
 * same map= lines as before).
 */
#ifndef PT_TRACE_PROC_MAPS_H
#define PT_TRACE_PROC_MAPS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define PTT_MAX_MAPS	4096

/* Lines already in the sideband (maps are read at exec and at exit). */
struct ptt_maps {
	char *line[PTT_MAX_MAPS];
	int n;
};

/* One executable mapping of /proc/PID/maps. */
struct ptt_map {
	unsigned long long start, end, pgoff, ino;
	char perm[8];
	const char *path;	/* a file, or "[vdso]"-style special */
	const char *line;	/* the whole line, no newline */
};

/*
 * Call @fn for each executable mapping of @pid with a path or a [name];
 * stop at the first nonzero return, which is returned (-errno when
 * the maps cannot be read).
 */
int ptt_maps_each(pid_t pid, int (*fn)(const struct ptt_map *m, void *ctx),
		  void *ctx);

/*
 * Write @pid's executable file mappings not yet in @seen: a map= line
 * each, and after that of a file with a build-id (build_id.c's
 * bid_read()) map.build_id=START HEX.
 */
void ptt_maps_write(FILE *sb, pid_t pid, struct ptt_maps *seen);
void ptt_maps_free(struct ptt_maps *seen);

struct ptsb;

/* A map= line read back, with the build-id its map.build_id= gives. */
struct ptt_map_rec {
	unsigned long long start, end, pgoff;
	const char *path;	/* in the sideband's entry */
	uint8_t build_id[20];
	size_t build_id_size;	/* 0: none recorded (older recordings) */
};

/*
 * 1 when entry @i of @sb is a map= line, parsed into @m: its build-id
 * is that of a map.build_id= entry right after it with the same START;
 * else 0.
 */
int ptt_map_parse(const struct ptsb *sb, size_t i, struct ptt_map_rec *m);

#endif /* PT_TRACE_PROC_MAPS_H */
