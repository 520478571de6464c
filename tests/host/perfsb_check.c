// SPDX-License-Identifier: GPL-2.0
/*
 * Host test of the recorder's perf sideband without Intel PT: the
 * collector (perf_collect.c) watches a child held before its exec, as
 * record does, while it runs 'sh -c "true; exit 3"'; the reader
 * (tools/lib/perfsb.c) must then find the exec comm records, the fork
 * of the child's child, its exit, and an executable mmap2 of sh.  Then
 * the reader is fed every truncation of the file and records with
 * hostile sizes: it must report an error, never read outside the file.
 * Last, the records record -p synthesizes for a running process: its
 * executable's mmap2 carries the file's build-id, as the kernel's do.
 * Exit 0 pass, 77 skip (perf_event_paranoid), 1 fail.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <linux/types.h>

#include <elfutils/libdwelf.h>
#include <gelf.h>

#include "expect.h"
#include "perf_collect.h"
#include "perfsb.h"

/* Walk every record; the count, or -1 on a malformed one. */
static int walk(const struct ptpsb_file *f)
{
	struct ptpsb_event ev;
	size_t pos = 0;
	int n = 0, r;

	while ((r = ptpsb_next(f, &pos, &ev)) == 1) {
		if (pos > f->len)
			return -2;
		n++;
	}
	return r < 0 ? -1 : n;
}

static void hostile(struct ptpsb_file *f)
{
	size_t full = f->len, cut, at;
	__u16 sizes[] = { 0, 1, 8, 9, 24, 0xffff };
	__u8 *copy = malloc(full);
	unsigned int i;

	if (!copy)
		exit(1);
	memcpy(copy, f->buf, full);
	for (cut = f->hdr.header_size; cut < full; cut++) {
		f->len = cut;
		EXPECT(walk(f) != -2, "cut at %zu: read past the end", cut);
	}
	f->len = full;
	/* every record's size field replaced in turn */
	for (at = f->hdr.header_size; at + 8 <= full;) {
		struct perf_event_header h;

		memcpy(&h, copy + at, sizeof(h));
		for (i = 0; i < ARRAY_SIZE(sizes); i++) {
			memcpy(f->buf, copy, full);
			memcpy(f->buf + at + 6, &sizes[i], 2);
			EXPECT(walk(f) != -2, "size %u at %zu", sizes[i], at);
		}
		if (!h.size)
			break;
		at += h.size;
	}
	memcpy(f->buf, copy, full);
	free(copy);
}

/*
 * pcol_synth_maps() on a child held before its exec (this program): the
 * mmap2 of this executable has its build-id, elfutils' reading of it.
 */
static void synth_build_id(const char *dir, const int *cpus, int ncpus)
{
	char why[512], path[4200], sub[4096];
	const void *want = NULL;
	struct ptpsb_event ev;
	struct ptpsb_file f;
	int p[2], fd, found = 0;
	ssize_t wn = 0;
	struct pcol pc;
	size_t pos = 0;
	pid_t child;
	/* libelf's Elf * (checkpatch refuses the CamelCase name) */
	__typeof__(elf_begin(0, ELF_C_NULL, NULL)) elf;

	snprintf(sub, sizeof(sub), "%.4000s/synth", dir);
	mkdir(sub, 0755);
	fd = open("/proc/self/exe", O_RDONLY);
	elf_version(EV_CURRENT);
	elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	if (elf)
		wn = dwelf_elf_gnu_build_id(elf, &want);
	EXPECT(wn == 20, "this program has no 20-byte build-id (%zd)", wn);
	if (pipe(p))
		exit(1);
	child = fork();
	if (child == 0) {
		char c;

		close(p[1]);
		_exit(read(p[0], &c, 1) == 1 ? 0 : 1);
	}
	close(p[0]);
	if (pcol_open(&pc, cpus, ncpus, child, sub, why, sizeof(why))) {
		EXPECT(0, "pcol_open: %s", why);
	} else {
		FILE *sb;

		pcol_synth_maps(&pc, child);
		snprintf(path, sizeof(path), "%s/sb.txt", sub);
		sb = fopen(path, "w");
		EXPECT(sb && pcol_close(&pc, sub, sb) == 0, "pcol_close (synth)");
		if (sb)
			fclose(sb);
	}
	if (write(p[1], "g", 1) != 1)
		exit(1);
	close(p[1]);
	waitpid(child, NULL, 0);
	snprintf(path, sizeof(path), "%s/%s", sub, PTPSB_FILE_NAME);
	if (fails || ptpsb_load(path, &f)) {
		EXPECT(0, "load %s", path);
		return;
	}
	while (ptpsb_next(&f, &pos, &ev) == 1)
		if (ev.type == PERF_RECORD_MMAP2 && ev.bpid == (uint32_t)child &&
		    strstr(ev.name, "perfsb_check")) {
			found++;
			EXPECT(ev.build_id_size == 20 && want &&
			       !memcmp(ev.build_id, want, 20),
			       "synthesized mmap2 of %s: build-id size %u, not this file's",
			       ev.name, ev.build_id_size);
		}
	EXPECT(found >= 1, "no synthesized mmap2 of this program");
	ptpsb_free(&f);
	elf_end(elf);
	if (fd >= 0)
		close(fd);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	int p[2], cpus[256], ncpus, i, st, comm_sh = 0, comm_true = 0;
	int forks = 0, exits = 0, sh_maps = 0;
	char why[512], path[4096];
	struct ptpsb_event ev;
	struct ptpsb_file f;
	struct pcol pc;
	size_t pos = 0;
	pid_t child;
	FILE *sb;

	ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpus > 256)
		ncpus = 256;
	for (i = 0; i < ncpus; i++)
		cpus[i] = i;
	if (pipe(p))
		return 1;
	child = fork();
	if (child == 0) {
		char c;

		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(127);
		execl("/bin/sh", "sh", "-c", "/bin/true; exit 3", (char *)NULL);
		_exit(127);
	}
	close(p[0]);
	if (pcol_open(&pc, cpus, ncpus, child, dir, why, sizeof(why))) {
		close(p[1]);
		waitpid(child, NULL, 0);
		printf("SKIP: %s\n", why);
		return 77;
	}
	if (write(p[1], "g", 1) != 1)
		return 1;
	close(p[1]);
	waitpid(child, &st, 0);
	EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 3, "child status %#x", st);
	snprintf(path, sizeof(path), "%s/sb.txt", dir);
	sb = fopen(path, "w");
	EXPECT(pcol_close(&pc, dir, sb) == 0, "pcol_close");
	fclose(sb);

	snprintf(path, sizeof(path), "%s/%s", dir, PTPSB_FILE_NAME);
	EXPECT(ptpsb_load(path, &f) == 0, "load %s", path);
	if (fails)
		return 1;
	while (ptpsb_next(&f, &pos, &ev) == 1) {
		if (ev.type == PERF_RECORD_COMM &&
		    (ev.misc & PERF_RECORD_MISC_COMM_EXEC)) {
			comm_sh += !strcmp(ev.name, "sh") && ev.bpid == (uint32_t)child;
			comm_true += !strcmp(ev.name, "true");
		}
		forks += ev.type == PERF_RECORD_FORK && ev.ppid == (uint32_t)child;
		exits += ev.type == PERF_RECORD_EXIT;
		sh_maps += ev.type == PERF_RECORD_MMAP2 &&
			   ev.bpid == (uint32_t)child && (ev.prot & 4) &&
			   (strstr(ev.name, "/sh") || strstr(ev.name, "dash") ||
			    strstr(ev.name, "bash"));
	}
	EXPECT(comm_sh == 1, "%d exec comm records of sh", comm_sh);
	EXPECT(forks >= 1 || comm_true == 0, "no fork record from sh (%d)", forks);
	EXPECT(exits >= 1, "no exit records");
	EXPECT(sh_maps >= 1, "no executable mmap2 of the shell");
	EXPECT(walk(&f) > 0, "walk");
	hostile(&f);
	synth_build_id(dir, cpus, ncpus);
	printf("%d records, sh exec %d, true exec %d, forks %d, exits %d, sh maps %d, clock %s%s\n",
	       walk(&f), comm_sh, comm_true, forks, exits, sh_maps,
	       f.hdr.clock ? "monotonic" : "perf",
	       f.hdr.flags & PTPSB_TIME_ZERO ? " (exact TSC)" : "");
	ptpsb_free(&f);
	return fails ? 1 : 0;
}
