// SPDX-License-Identifier: GPL-2.0
/*
 * Mapped files' build-ids at record time (see build_id.h).  A file is
 * read once per identity (device, inode, generation as the kernel's
 * mmap2 record gives them): a system-wide recording maps libc many
 * times.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <elfutils/libdwelf.h>
#include <gelf.h>

#include "build_id.h"

/* Files remembered; past that each is read again (correct, slower). */
#define BID_CACHE_MAX	4096

struct bid_entry {
	uint32_t maj, min;
	uint64_t ino, gen;
	uint8_t id[20];
	uint8_t size;		/* 0: an ELF file without a build-id */
};

/* The mmap2 body's fields (include/uapi/linux/perf_event.h). */
#define BID_OFF_PID	0
#define BID_OFF_ADDR	8
#define BID_OFF_LEN	16
#define BID_OFF_MAJ	32	/* or build_id_size, without the misc flag */
#define BID_OFF_MIN	36
#define BID_OFF_INO	40
#define BID_OFF_GEN	48
#define BID_OFF_PROT	56
#define BID_OFF_NAME	64

static int bid_from_fd(int fd, uint8_t id[20])
{
	/* libelf's Elf * (checkpatch refuses the CamelCase name) */
	__typeof__(elf_begin(0, ELF_C_NULL, NULL)) elf;
	const void *p;
	ssize_t n = -ENOEXEC;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF) {
		n = dwelf_elf_gnu_build_id(elf, &p);
		if (n > 0 && n <= 20)
			memcpy(id, p, (size_t)n);
		else
			n = 0;
	}
	elf_end(elf);
	return (int)n;
}

int bid_read(pid_t pid, uint64_t start, uint64_t end, const char *path,
	     uint64_t ino, uint8_t id[20])
{
	char mf[96];
	struct stat st;
	int fd, n;

	snprintf(mf, sizeof(mf), "/proc/%d/map_files/%llx-%llx", (int)pid,
		 (unsigned long long)start, (unsigned long long)end);
	fd = open(mf, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		/*
		 * Replaced since it was mapped (a new build is a new file):
		 * its build-id would hide the change from decode.  Only the
		 * inode is compared: btrfs and overlayfs report another
		 * st_dev than the superblock's the kernel records.
		 */
		if (ino && (fstat(fd, &st) || st.st_ino != ino)) {
			close(fd);
			return -ESTALE;
		}
	}
	n = bid_from_fd(fd, id);
	close(fd);
	return n;
}

static uint64_t bid_get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t bid_get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static const struct bid_entry *bid_lookup(const struct bid_cache *c,
					  const struct bid_entry *k)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->v[i].ino == k->ino && c->v[i].maj == k->maj &&
		    c->v[i].min == k->min && c->v[i].gen == k->gen)
			return &c->v[i];
	return NULL;
}

static void bid_remember(struct bid_cache *c, const struct bid_entry *e)
{
	struct bid_entry *n;

	if (c->n >= BID_CACHE_MAX)
		return;
	n = realloc(c->v, (c->n + 1) * sizeof(*n));
	if (!n)
		return;
	c->v = n;
	c->v[c->n++] = *e;
}

int bid_fill_mmap2(struct bid_cache *c, uint8_t *rec, size_t size)
{
	struct perf_event_header h;
	uint8_t *body = rec + sizeof(h);
	const struct bid_entry *hit;
	struct bid_entry e;
	const char *path;
	int n;

	if (size < sizeof(h) + BID_OFF_NAME + 2)
		return 0;
	memcpy(&h, rec, sizeof(h));
	if (h.type != PERF_RECORD_MMAP2 ||
	    (h.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) ||
	    !(bid_get32(body + BID_OFF_PROT) & PROT_EXEC))
		return 0;
	path = (const char *)body + BID_OFF_NAME;
	/* a file (not [vdso], [heap] or anonymous code), its name whole */
	if (path[0] != '/' ||
	    !memchr(path, 0, size - sizeof(h) - BID_OFF_NAME))
		return 0;
	memset(&e, 0, sizeof(e));
	e.maj = bid_get32(body + BID_OFF_MAJ);
	e.min = bid_get32(body + BID_OFF_MIN);
	e.ino = bid_get64(body + BID_OFF_INO);
	e.gen = bid_get64(body + BID_OFF_GEN);
	hit = bid_lookup(c, &e);
	if (!hit) {
		uint64_t addr = bid_get64(body + BID_OFF_ADDR);

		n = bid_read((pid_t)bid_get32(body + BID_OFF_PID), addr,
			     addr + bid_get64(body + BID_OFF_LEN), path,
			     e.ino, e.id);
		if (n < 0) {
			c->unread++;
			return 0;
		}
		e.size = (uint8_t)n;
		bid_remember(c, &e);
		hit = &e;
	}
	if (!hit->size)
		return 0;
	/* as perf_event_mmap_output() writes it: size, 3 reserved, 20 */
	memset(body + BID_OFF_MAJ, 0, BID_OFF_PROT - BID_OFF_MAJ);
	body[BID_OFF_MAJ] = hit->size;
	memcpy(body + BID_OFF_MAJ + 4, hit->id, hit->size);
	h.misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
	memcpy(rec, &h, sizeof(h));
	c->filled++;
	return 1;
}

void bid_cache_free(struct bid_cache *c)
{
	free(c->v);
	memset(c, 0, sizeof(*c));
}
