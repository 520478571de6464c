/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The traced process's executable mappings, from /proc/PID/maps, as the
 * sideband's exe= and map= lines (Documentation/tools.rst) that decode
 * places in its image.
 */
#ifndef PT_TRACE_PROC_MAPS_H
#define PT_TRACE_PROC_MAPS_H

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
	unsigned long long start, end, pgoff;
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

/* Write @pid's executable file mappings not yet in @seen. */
void ptt_maps_write(FILE *sb, pid_t pid, struct ptt_maps *seen);
void ptt_maps_free(struct ptt_maps *seen);

#endif /* PT_TRACE_PROC_MAPS_H */
