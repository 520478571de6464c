// SPDX-License-Identifier: GPL-2.0
/*
 * Small helpers shared by the subcommands: messages that name the program,
 * strict number parsing (a typo must not become 0) and file loading.
 */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tool.h"

const char *ptt_prog = "pt-trace";

static __thread struct ptt_msgs *ptt_msgs;

struct ptt_msgs *ptt_msgs_to(struct ptt_msgs *m)
{
	struct ptt_msgs *old = ptt_msgs;

	ptt_msgs = m;
	return old;
}

/* The message appended to @m; on stderr when there is no memory for it. */
static int ptt_msgs_add(struct ptt_msgs *m, const char *kind,
			const char *fmt, va_list ap)
{
	size_t head = strlen(ptt_prog) + strlen(kind) + 4;
	va_list aq;
	char *n;
	int len;

	va_copy(aq, ap);
	len = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (len < 0)
		return -1;
	if (m->cap - m->len < head + (size_t)len + 2) {
		size_t cap = 2 * m->cap + head + (size_t)len + 2;

		n = realloc(m->buf, cap);
		if (!n)
			return -1;
		m->buf = n;
		m->cap = cap;
	}
	m->len += (size_t)snprintf(m->buf + m->len, m->cap - m->len, "%s: %s: ",
				   ptt_prog, kind);
	m->len += (size_t)vsnprintf(m->buf + m->len, m->cap - m->len, fmt, ap);
	m->buf[m->len++] = '\n';
	return 0;
}

/* "pt-trace: KIND: message" on stderr, or kept (ptt_msgs_to()). */
static void ptt_vmsg(const char *kind, const char *fmt, va_list ap)
{
	if (ptt_msgs && !ptt_msgs_add(ptt_msgs, kind, fmt, ap))
		return;
	fprintf(stderr, "%s: %s: ", ptt_prog, kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void ptt_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ptt_vmsg("error", fmt, ap);
	va_end(ap);
}

void ptt_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ptt_vmsg("warning", fmt, ap);
	va_end(ap);
}

int ptt_parse_u64(const char *s, uint64_t *val)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		return -EINVAL;
	*val = v;
	return 0;
}

double ptt_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int ptt_parse_range(const char *s, uint64_t *a, uint64_t *b)
{
	char buf[80], *dash;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	dash = strchr(buf + 1, '-');
	if (!dash)
		return -EINVAL;
	*dash = 0;
	if (ptt_parse_u64(buf, a) || ptt_parse_u64(dash + 1, b) || *a > *b)
		return -EINVAL;
	return 0;
}

int ptt_parse_u32(const char *s, uint32_t *val)
{
	uint64_t v;

	if (ptt_parse_u64(s, &v) || v > UINT32_MAX)
		return -EINVAL;
	*val = (uint32_t)v;
	return 0;
}

/* A regular file open for reading: its fd, or -errno. */
static int ptt_open_file(const char *path, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) {
		err = S_ISDIR(st->st_mode) ? -EISDIR : -EINVAL;
		close(fd);
		return err;
	}
	return fd;
}

int ptt_load_file(const char *path, uint8_t **buf, size_t *len)
{
	struct stat st;
	uint8_t *p;
	size_t done = 0;
	int fd = ptt_open_file(path, &st), err;

	if (fd < 0)
		return fd;
	/* One spare byte so that an empty file still gets a buffer. */
	p = malloc((size_t)st.st_size + 1);
	if (!p) {
		close(fd);
		return -ENOMEM;
	}
	while (done < (size_t)st.st_size) {
		ssize_t n = read(fd, p + done, (size_t)st.st_size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			free(p);
			close(fd);
			return err;
		}
		done += (size_t)n;
	}
	close(fd);
	*buf = p;
	*len = done;
	return 0;
}

/*
 * A mapped file that gets shorter (rewritten or truncated under us): a
 * page past its new end is SIGBUS.  Not a crash then but an error that
 * names the file.  The mappings are kept here for the handler; one
 * that is not found (a table full, or a SIGBUS of something else) gets
 * the default action.
 */
#define PTT_MAPS_MAX	256

static struct ptt_mapped {
	uintptr_t start, end;	/* end 0: a free slot */
	char *path;
} ptt_mapped[PTT_MAPS_MAX];

static void ptt_put(const char *s)
{
	if (write(STDERR_FILENO, s, strlen(s)) < 0)
		return;
}

static void ptt_sigbus(int sig, siginfo_t *si, void *uc)
{
	uintptr_t at = (uintptr_t)si->si_addr;
	size_t i;

	(void)uc;
	for (i = 0; i < PTT_MAPS_MAX; i++) {
		struct ptt_mapped *m = &ptt_mapped[i];

		if (at < m->start || at >= __atomic_load_n(&m->end, __ATOMIC_ACQUIRE))
			continue;
		ptt_put(ptt_prog);
		ptt_put(": error: ");
		ptt_put(m->path);
		ptt_put(": the file got shorter while it was read\n");
		_exit(PTT_EXIT_INPUT);
	}
	signal(sig, SIG_DFL);	/* the fault again, to the default action */
}

static void ptt_map_add(const char *path, void *p, size_t len)
{
	static int handler;
	struct sigaction sa;
	size_t i;

	if (!__atomic_exchange_n(&handler, 1, __ATOMIC_ACQ_REL)) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = ptt_sigbus;
		sa.sa_flags = SA_SIGINFO;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGBUS, &sa, NULL);
	}
	for (i = 0; i < PTT_MAPS_MAX; i++) {
		struct ptt_mapped *m = &ptt_mapped[i];
		uintptr_t free_slot = 0;

		if (!__atomic_compare_exchange_n(&m->start, &free_slot, 1, 0,
						 __ATOMIC_ACQ_REL,
						 __ATOMIC_RELAXED))
			continue;
		m->path = strdup(path);
		if (!m->path) {
			__atomic_store_n(&m->start, 0, __ATOMIC_RELEASE);
			return;
		}
		m->start = (uintptr_t)p;
		__atomic_store_n(&m->end, (uintptr_t)p + len, __ATOMIC_RELEASE);
		return;
	}
}

static void ptt_map_del(void *p)
{
	size_t i;

	for (i = 0; i < PTT_MAPS_MAX; i++) {
		struct ptt_mapped *m = &ptt_mapped[i];

		if (m->start != (uintptr_t)p || !m->end)
			continue;
		__atomic_store_n(&m->end, 0, __ATOMIC_RELEASE);
		free(m->path);
		m->path = NULL;
		__atomic_store_n(&m->start, 0, __ATOMIC_RELEASE);
		return;
	}
}

int ptt_map_file(const char *path, uint8_t **buf, size_t *len)
{
	static uint8_t empty;
	struct stat st;
	void *p;
	int fd = ptt_open_file(path, &st), err;

	if (fd < 0)
		return fd;
	*len = (size_t)st.st_size;
	if (!*len) {		/* mmap refuses 0 bytes; a decoder wants a buffer */
		close(fd);
		*buf = &empty;
		return 0;
	}
	p = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
	err = p == MAP_FAILED ? -errno : 0;
	close(fd);
	if (err)
		return err;
	/* Read once, front to back: the kernel may read ahead and drop. */
	madvise(p, *len, MADV_SEQUENTIAL);
	ptt_map_add(path, p, *len);
	*buf = p;
	return 0;
}

void ptt_file_drop(uint8_t *buf, size_t from, size_t to)
{
	long page = sysconf(_SC_PAGESIZE);

	from &= ~((size_t)page - 1);
	to &= ~((size_t)page - 1);
	if (to > from)
		madvise(buf + from, to - from, MADV_DONTNEED);
}

/*
 * Reading a mapped file front to back: the pages the reader has left are
 * the process's memory until dropped, so a trace of any size would stay
 * resident whole.  Every 4 MiB of progress, what lies more than 1 MiB
 * behind @off goes: one madvise() per 4 MiB, and a margin for a reader
 * that looks back a little (a page dropped too early is only read again
 * from the file: the mapping is private and never written).  The one
 * rule for decode's decoders and its segments, the packet walks and
 * dump, so that they all keep the same few MiB.
 */
size_t ptt_file_drop_behind(const void *buf, size_t *dropped_to, size_t off)
{
	if (off >= *dropped_to + PTT_DROP_EVERY + PTT_DROP_KEEP) {
		ptt_file_drop((uint8_t *)buf, *dropped_to, off - PTT_DROP_KEEP);
		*dropped_to = off - PTT_DROP_KEEP;
	}
	return *dropped_to + PTT_DROP_EVERY + PTT_DROP_KEEP;
}

void ptt_unmap_file(uint8_t *buf, size_t len)
{
	if (!len)
		return;
	ptt_map_del(buf);
	munmap(buf, len);
}

int ptt_write_all(int fd, const void *p, size_t n)
{
	const char *b = p;

	while (n) {
		ssize_t w = write(fd, b, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The first line of a sysfs file into @buf, or "" when unreadable. */
const char *ptt_sysfs_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = 0;
	if (f) {
		if (!fgets(buf, (int)len, f))
			buf[0] = 0;
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
	return buf;
}

/*
 * The CPU a recording's file is named for: "cpuN" + @suffix (".pt",
 * ".bts") as the last part of @path, else -1.
 */
int ptt_file_cpu(const char *path, const char *suffix)
{
	const char *base = strrchr(path, '/');
	size_t len;
	char *end;
	long cpu;

	base = base ? base + 1 : path;
	if (strncmp(base, "cpu", 3) || base[3] < '0' || base[3] > '9')
		return -1;
	errno = 0;
	cpu = strtol(base + 3, &end, 10);
	len = strlen(suffix);
	if (errno || cpu > INT_MAX || strncmp(end, suffix, len) || end[len])
		return -1;
	return (int)cpu;
}
