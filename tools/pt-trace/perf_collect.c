// SPDX-License-Identifier: GPL-2.0
/*
 * Sideband from perf's own machinery (see perf_collect.h).  A dummy
 * software event counts nothing but gets the side-band records of the
 * tasks it watches; with sample_id_all each carries pid/tid, time and
 * CPU.  Inherited per-task events can only be mapped per CPU (perf_mmap
 * refuses cpu == -1 with inherit), so there is one event and one ring per
 * CPU, as perf record does.
 *
 * Time: by default the records carry perf's clock, which the mmap page's
 * time_zero/time_mult/time_shift turn into the TSC exactly when the
 * kernel sets cap_user_time_zero (a stable TSC sched_clock).  Without it
 * (e.g. under QEMU TCG) the events are reopened on CLOCK_MONOTONIC,
 * which sideband.txt's tsc.start/tsc.end samples relate to the TSC
 * approximately; the header says which.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "build_id.h"
#include "perf_collect.h"
#include "proc_maps.h"
#include "sideband.h"
#include "tool.h"

#define PCOL_PAGES	64	/* data pages per CPU: 256 KiB */
#define PCOL_SAMPLE	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)

struct pcol_ring {
	int fd;
	int *more;		/* -p: the other threads' events, output here */
	int nmore;
	int cpu;
	struct perf_event_mmap_page *pg;
	uint8_t *data;
	size_t size;
};

/* Why perf refused: kernel.perf_event_paranoid, and what it allows. */
static void pcol_why_paranoid(char *why, size_t len)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	int level = 2;

	if (f) {
		if (fscanf(f, "%d", &level) != 1)
			level = 2;
		fclose(f);
	}
	snprintf(why, len,
		 " (kernel.perf_event_paranoid is %d: a user's own processes need <= 2, every task <= 0, or CAP_PERFMON)",
		 level);
}

static void pcol_attr(struct perf_event_attr *a, pid_t pid, int clock,
		      int build_id)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_DUMMY;
	a->sample_type = PCOL_SAMPLE;
	a->sample_id_all = 1;
	a->mmap = 1;
	a->mmap2 = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	a->context_switch = 1;
	a->build_id = !!build_id;
	a->inherit = pid > 0;
	/* side-band records only: no kernel profiling asked of paranoid */
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->watermark = 1;
	a->wakeup_watermark = PCOL_PAGES * 4096 / 2;
	if (clock == PTPSB_CLOCK_MONOTONIC) {
		a->use_clockid = 1;
		a->clockid = CLOCK_MONOTONIC;
	}
}

static void pcol_close_rings(struct pcol *pc)
{
	int i;

	for (i = 0; i < pc->n; i++) {
		struct pcol_ring *r = &pc->ring[i];

		while (r->nmore > 0)
			close(r->more[--r->nmore]);
		free(r->more);
		r->more = NULL;
		if (r->pg)
			munmap(r->pg, r->size + 4096);
		if (r->fd >= 0)
			close(r->fd);
		r->pg = NULL;
		r->fd = -1;
	}
}

/*
 * The threads of a running process other than @pid itself: an event
 * each per CPU, whose records go to that CPU's ring (SET_OUTPUT), as
 * perf record -p does.  A thread that exits meanwhile is skipped.
 */
static int pcol_open_threads(struct pcol *pc, pid_t pid,
			     struct perf_event_attr *a)
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((d = readdir(dir))) {
		int tid = atoi(d->d_name);

		if (tid <= 0 || tid == pid)
			continue;
		for (i = 0; i < pc->n; i++) {
			struct pcol_ring *r = &pc->ring[i];
			int *m = realloc(r->more, (size_t)(r->nmore + 1) *
					 sizeof(*m));
			int fd;

			if (!m)
				break;
			r->more = m;
			fd = (int)syscall(SYS_perf_event_open, a, tid, r->cpu,
					  -1, PERF_FLAG_FD_CLOEXEC);
			if (fd < 0)
				break;
			if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd)) {
				close(fd);
				break;
			}
			r->more[r->nmore++] = fd;
		}
	}
	closedir(dir);
	return 0;
}

/* One ring: @r's event of @a on r->cpu for @pid, and its mapping. */
static int pcol_open_ring(struct pcol_ring *r, struct perf_event_attr *a,
			  pid_t pid, char *why, size_t whylen)
{
	void *m;

	r->fd = (int)syscall(SYS_perf_event_open, a, pid, r->cpu, -1,
			     PERF_FLAG_FD_CLOEXEC);
	if (r->fd < 0)
		return -errno;
	r->size = PCOL_PAGES * 4096;
	m = mmap(NULL, r->size + 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
		 r->fd, 0);
	if (m == MAP_FAILED) {
		int err = -errno;

		snprintf(why, whylen,
			 "mmap of the perf ring of cpu %d: %s (perf_event_mlock_kb?)",
			 r->cpu, strerror(errno));
		close(r->fd);
		r->fd = -1;
		return err;
	}
	r->pg = m;
	r->data = (uint8_t *)m + 4096;
	return 0;
}

static int pcol_open_rings(struct pcol *pc, const int *cpus, pid_t pid,
			   int clock, char *why, size_t whylen)
{
	struct perf_event_attr a;
	int i, err, build_id = 1;

	for (i = 0; i < pc->n; i++) {
		struct pcol_ring *r = &pc->ring[i];

		r->cpu = cpus[i];
		pcol_attr(&a, pid, clock, build_id);
		why[0] = 0;
		err = pcol_open_ring(r, &a, pid, why, whylen);
		if (err == -EINVAL && build_id) {
			/* before Linux 5.12: no build-ids in mmap2 */
			build_id = 0;
			pcol_attr(&a, pid, clock, 0);
			err = pcol_open_ring(r, &a, pid, why, whylen);
		}
		if (err && why[0])
			return err;	/* the mapping */
		if (err) {
			snprintf(why, whylen, "perf_event_open(dummy, %s, cpu %d): %s",
				 pid > 0 ? "pid" : "all tasks", r->cpu,
				 strerror(-err));
			if (err == -EACCES || err == -EPERM)
				pcol_why_paranoid(why + strlen(why),
						  whylen - strlen(why));
			return err;
		}
	}
	if (build_id)
		pc->hdr.flags |= PTPSB_BUILD_ID;
	return pid > 0 ? pcol_open_threads(pc, pid, &a) : 0;
}

int pcol_open(struct pcol *pc, const int *cpus, int n, pid_t pid,
	      const char *dir, char *why, size_t whylen)
{
	struct perf_event_mmap_page *pg;
	char path[4096];
	int err, i;

	memset(pc, 0, sizeof(*pc));
	pc->out = -1;
	pc->ring = calloc((size_t)(unsigned int)n, sizeof(*pc->ring));
	if (!pc->ring) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	pc->n = n;
	for (i = 0; i < n; i++)
		pc->ring[i].fd = -1;
	memcpy(pc->hdr.magic, PTPSB_MAGIC, sizeof(pc->hdr.magic));
	pc->hdr.version = PTPSB_VERSION;
	pc->hdr.header_size = sizeof(pc->hdr);
	pc->hdr.sample_type = PCOL_SAMPLE;
	pc->hdr.clock = PTPSB_CLOCK_PERF;
	if (pid <= 0)
		pc->hdr.flags |= PTPSB_SYSTEM_WIDE;
	err = pcol_open_rings(pc, cpus, pid, PTPSB_CLOCK_PERF, why, whylen);
	if (err)
		goto fail;
	pg = pc->ring[0].pg;
	if (pg->cap_user_time_zero) {
		pc->hdr.flags |= PTPSB_TIME_ZERO;
		pc->hdr.time_zero = pg->time_zero;
		pc->hdr.time_mult = pg->time_mult;
		pc->hdr.time_shift = pg->time_shift;
	} else {
		/* no exact TSC: at least a clock the TSC samples relate to */
		pcol_close_rings(pc);
		pc->hdr.clock = PTPSB_CLOCK_MONOTONIC;
		err = pcol_open_rings(pc, cpus, pid, PTPSB_CLOCK_MONOTONIC,
				      why, whylen);
		if (err)
			goto fail;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, PTPSB_FILE_NAME);
	pc->out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (pc->out < 0) {
		err = -errno;
		snprintf(why, whylen, "cannot create %s: %s", path,
			 strerror(errno));
		goto fail;
	}
	err = ptt_write_all(pc->out, &pc->hdr, sizeof(pc->hdr));
	if (err) {
		snprintf(why, whylen, "writing %s: %s", path, strerror(-err));
		goto fail;
	}
	return 0;
fail:
	pcol_close_rings(pc);
	if (pc->out >= 0)
		close(pc->out);
	free(pc->ring);
	memset(pc, 0, sizeof(*pc));
	pc->out = -1;
	return err;
}

/* One ring: [data_tail, data_head) to the file, records kept whole. */
static int pcol_drain_ring(struct pcol *pc, struct pcol_ring *r)
{
	uint64_t head = __atomic_load_n(&r->pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->pg->data_tail;
	int err = 0;

	while (tail < head) {
		struct perf_event_header h;
		uint8_t rec[65536];
		size_t off = (size_t)(tail % r->size), first;

		first = r->size - off < sizeof(h) ? r->size - off : sizeof(h);
		memcpy(&h, r->data + off, first);
		memcpy((uint8_t *)&h + first, r->data, sizeof(h) - first);
		if (h.size < sizeof(h) || h.size > head - tail)
			break;		/* cannot happen: the kernel's ring */
		first = r->size - off < h.size ? r->size - off : h.size;
		memcpy(rec, r->data + off, first);
		memcpy(rec + first, r->data, h.size - first);
		if (h.type == PERF_RECORD_LOST) {
			uint64_t lost;

			memcpy(&lost, rec + sizeof(h) + 8, sizeof(lost));
			pc->lost += lost;
		}
		/* Linux < 5.12 gives no build-ids: read them while fresh. */
		bid_fill_mmap2(&pc->bids, rec, h.size);
		err = ptt_write_all(pc->out, rec, h.size);
		if (err)
			break;
		pc->records++;
		pc->bytes += h.size;
		tail += h.size;
	}
	__atomic_store_n(&r->pg->data_tail, tail, __ATOMIC_RELEASE);
	return err;
}

int pcol_pollfds(const struct pcol *pc, struct pollfd *pfd, int max)
{
	int i, k = 0;

	for (i = 0; pc->ring && i < pc->n && k < max; i++, k++) {
		pfd[k].fd = pc->ring[i].fd;
		pfd[k].events = POLLIN;
		pfd[k].revents = 0;
	}
	return k;
}

int pcol_drain(struct pcol *pc)
{
	int i, err = 0;

	for (i = 0; i < pc->n && pc->out >= 0; i++)
		if (!err)
			err = pcol_drain_ring(pc, &pc->ring[i]);
	return err;
}

struct pcol_synth_ctx {
	struct pcol *pc;
	pid_t pid;
};

/*
 * A system-wide recording's CPU that went offline lost its event from
 * perf's CPU context (perf_event_exit_cpu()): no record of that CPU
 * ever comes from it again, even once the CPU is back.  Its ring is
 * drained and its event opened anew (record does it before it STARTs
 * the CPU's trace again).  A per-task event lives in its task's
 * context and is not touched.  0, or -errno (-ENODEV: still offline).
 */
int pcol_reopen_cpu(struct pcol *pc, int cpu, char *why, size_t whylen)
{
	struct pcol_ring *r = NULL, nr = { 0 };
	struct perf_event_attr a;
	int i, err;

	if (!(pc->hdr.flags & PTPSB_SYSTEM_WIDE))
		return 0;
	for (i = 0; i < pc->n && !r; i++)
		if (pc->ring[i].cpu == cpu && pc->ring[i].fd >= 0)
			r = &pc->ring[i];
	if (!r)
		return 0;
	pcol_attr(&a, -1, (int)pc->hdr.clock,
		  !!(pc->hdr.flags & PTPSB_BUILD_ID));
	why[0] = 0;
	/* the new event first: still offline, the old ring stays */
	nr.fd = -1;
	nr.cpu = cpu;
	err = pcol_open_ring(&nr, &a, -1, why, whylen);
	if (err) {
		if (!why[0])
			snprintf(why, whylen,
				 "perf_event_open(dummy, all tasks, cpu %d): %s",
				 cpu, strerror(-err));
		return err;
	}
	err = pcol_drain_ring(pc, r);
	munmap(r->pg, r->size + 4096);
	close(r->fd);
	*r = nr;
	return err;
}

/* Append one record with a sample_id trailer of the recorder's making. */
static void pcol_synth(struct pcol *pc, uint32_t type, uint16_t misc,
		       const void *body, size_t len, pid_t pid)
{
	struct perf_event_header h;
	uint8_t rec[4096 + 128] = { 0 };
	uint32_t id[6] = { (uint32_t)pid, (uint32_t)pid, 0, 0, UINT32_MAX, 0 };
	size_t padded = (len + 7) & ~(size_t)7;

	if (pc->out < 0 || sizeof(h) + padded + sizeof(id) > sizeof(rec))
		return;
	h.type = type;
	h.misc = misc;
	h.size = (uint16_t)(sizeof(h) + padded + sizeof(id));
	memcpy(rec, &h, sizeof(h));
	memcpy(rec + sizeof(h), body, len);
	memcpy(rec + sizeof(h) + padded, id, sizeof(id));
	if (!ptt_write_all(pc->out, rec, h.size)) {
		pc->records++;
		pc->bytes += h.size;
	}
}

/*
 * One executable mapping of a running process as an MMAP2 record, with
 * its file's build-id as the kernel gives it (PERF_RECORD_MISC_MMAP_BUILD_ID)
 * for mappings made while recording: decode then says when the binary
 * changed since.
 */
static int pcol_synth_map(const struct ptt_map *m, void *arg)
{
	struct pcol_synth_ctx *c = arg;
	uint8_t body[4096 + 64] = { 0 }, id[20];
	uint32_t ids[2] = { (uint32_t)c->pid, (uint32_t)c->pid }, prot;
	uint64_t v[3] = { m->start, m->end - m->start, m->pgoff };
	size_t n = strlen(m->path);
	uint16_t misc = PERF_RECORD_MISC_USER;
	int idn;

	if (n >= 4096)
		return 0;
	memcpy(body, ids, sizeof(ids));
	memcpy(body + 8, v, sizeof(v));
	idn = bid_read(c->pid, m->start, m->end, m->path, 0, id);
	if (idn > 0) {
		/* where maj, min, ino and ino_generation are without */
		body[32] = (uint8_t)idn;
		memcpy(body + 36, id, (size_t)idn);
		misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
	}
	prot = (m->perm[0] == 'r' ? PROT_READ : 0) |
	       (m->perm[1] == 'w' ? PROT_WRITE : 0) | PROT_EXEC;
	memcpy(body + 56, &prot, sizeof(prot));
	memcpy(body + 64, m->path, n + 1);
	pcol_synth(c->pc, PERF_RECORD_MMAP2, misc, body, 64 + n + 1, c->pid);
	return 0;
}

/*
 * A process already running (-p): its comm and executable mappings, as
 * perf record synthesizes them from /proc, with time 0 and cpu -1.
 */
void pcol_synth_maps(struct pcol *pc, pid_t pid)
{
	struct pcol_synth_ctx c = { pc, pid };
	uint8_t body[8 + 64] = { 0 };
	uint32_t ids[2] = { (uint32_t)pid, (uint32_t)pid };
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "re");
	if (f) {
		memcpy(body, ids, sizeof(ids));
		if (fgets((char *)body + 8, 64 - 1, f)) {
			body[8 + strcspn((char *)body + 8, "\n")] = 0;
			pcol_synth(pc, PERF_RECORD_COMM, PERF_RECORD_MISC_USER,
				   body, 8 + strlen((char *)body + 8) + 1, pid);
		}
		fclose(f);
	}
	ptt_maps_each(pid, pcol_synth_map, &c);
}

/*
 * The tasks the records name (fork, comm): a task=PID COMM line each in
 * the sideband and one summary line on stderr.  With @only, that
 * process alone: the others (children of a --no-inherit recording) have
 * records but were not traced.
 */
static void pcol_tasks(const struct ptpsb_file *f, FILE *sb, uint32_t only)
{
	struct { uint32_t pid; char comm[64]; } t[256];
	struct ptpsb_event ev;
	size_t pos = 0;
	int n = 0, i, j, more = 0;

	while (ptpsb_next(f, &pos, &ev) == 1) {
		uint32_t pid = ev.bpid;

		if ((ev.type != PERF_RECORD_COMM && ev.type != PERF_RECORD_FORK) ||
		    !pid || (only && pid != only))
			continue;
		for (i = 0; i < n && t[i].pid != pid; i++)
			;
		if (i == n) {
			if (n == (int)ARRAY_SIZE(t)) {
				more++;
				continue;
			}
			/* A forked child has its parent's name until it execs. */
			for (j = 0; ev.type == PERF_RECORD_FORK && j < n; j++)
				if (t[j].pid == ev.ppid)
					break;
			t[n].pid = pid;
			if (ev.type == PERF_RECORD_FORK && j < n)
				memcpy(t[n].comm, t[j].comm, sizeof(t[0].comm));
			else
				snprintf(t[n].comm, sizeof(t[0].comm), "?");
			n++;
		}
		if (ev.type == PERF_RECORD_COMM)
			snprintf(t[i].comm, sizeof(t[i].comm), "%s", ev.name);
	}
	if (!n)
		return;
	fputs("tasks:", stderr);
	for (i = 0; i < n; i++) {
		ptsb_put(sb, "task", "%u %s", t[i].pid, t[i].comm);
		if (i < 16)
			fprintf(stderr, " %u (%s)", t[i].pid, t[i].comm);
	}
	if (n > 16 || more)
		fprintf(stderr, " and %d more", n - 16 > 0 ? n - 16 + more : more);
	fputc('\n', stderr);
}

int pcol_close(struct pcol *pc, const char *dir, FILE *sb)
{
	struct ptpsb_file f;
	char path[4096];
	FILE *txt;
	int err;

	if (!pc->ring)
		return 0;
	err = pcol_drain(pc);
	pcol_close_rings(pc);
	free(pc->ring);
	pc->ring = NULL;
	bid_cache_free(&pc->bids);
	if (close(pc->out) && !err)
		err = -errno;
	pc->out = -1;
	if (err)
		return err;
	/* The text is made from the file, through the reader others use. */
	snprintf(path, sizeof(path), "%s/%s", dir, PTPSB_FILE_NAME);
	err = ptpsb_load(path, &f);
	if (err)
		return err;
	snprintf(path, sizeof(path), "%s/%s", dir, PTPSB_TEXT_NAME);
	txt = fopen(path, "we");
	if (!txt) {
		err = -errno;
	} else {
		err = ptpsb_write_text(&f, txt);
		if (fclose(txt) && !err)
			err = -errno;
	}
	pcol_tasks(&f, sb, pc->only_pid);
	ptpsb_free(&f);
	return err;
}
