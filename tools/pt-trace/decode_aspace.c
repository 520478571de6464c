// SPDX-License-Identifier: GPL-2.0
/*
 * decode's address spaces (see decode_aspace.h).  sideband.perf holds
 * the records of every per-CPU ring one after the other, so they are
 * first put in time order; then a walk over them keeps each process's
 * executable mappings as the kernel had them: a fork copies the parent's
 * list (a new process starts with its parent's mappings and perf records
 * only what it maps after), an exec (COMM with the exec flag, written
 * before the new program's mmaps) starts another das_proc for the pid,
 * the next program, empty, and keeps the old one for the code that ran
 * before the exec.  A program's mappings are those it ever had: libipt's
 * image lets a later mapping replace the overlapped part of an earlier
 * one, as the kernel did.
 *
 * Images are made when a process's code is first decoded: a system-wide
 * recording names many processes, most of which run no traced code.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "decode_aspace.h"
#include "kernel_debug.h"
#include "perfsb.h"
#include "proc_maps.h"
#include "sideband.h"
#include "tool.h"
#include "vdso_image.h"

struct das_map {
	uint64_t start, end, pgoff;
	char *path;
	uint8_t build_id[20];
	uint8_t build_id_size;
};

/* The records of sideband.perf that matter here, in time order. */
struct das_rec {
	struct ptpsb_event ev;
	size_t seq;		/* file order: ties keep it */
};

static int das_rec_cmp(const void *a, const void *b)
{
	const struct das_rec *x = a, *y = b;

	if (x->ev.time != y->ev.time)
		return x->ev.time < y->ev.time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int das_record_tsc(const struct ptpsb_header *h, const struct ptsb *sb,
		   double hz, uint64_t time, uint64_t *tsc)
{
	unsigned long long cpu, mono, tsc0;
	const char *start = sb ? ptsb_get(sb, "tsc.start") : NULL;

	if (!ptpsb_tsc(h, time, tsc))
		return 0;
	/* CLOCK_MONOTONIC: through the recorder's TSC sample. */
	if (h->clock != PTPSB_CLOCK_MONOTONIC || !start || hz <= 0 ||
	    sscanf(start, "%llu %llu %llu", &cpu, &mono, &tsc0) != 3)
		return -ENODATA;
	*tsc = tsc0 + (uint64_t)(int64_t)(((double)time - (double)mono) *
					  hz / 1e9);
	return 0;
}

int das_add_map(struct das_proc *p, const char *path, uint64_t start,
		uint64_t end, uint64_t pgoff, const uint8_t *build_id,
		size_t build_id_size)
{
	struct das_map *m;

	if (p->nmaps == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 16;

		m = realloc(p->maps, cap * sizeof(*m));
		if (!m)
			return -ENOMEM;
		p->maps = m;
		p->cap = cap;
	}
	m = &p->maps[p->nmaps];
	memset(m, 0, sizeof(*m));
	m->path = strdup(path);
	if (!m->path)
		return -ENOMEM;
	m->start = start;
	m->end = end;
	m->pgoff = pgoff;
	if (build_id_size > sizeof(m->build_id))
		build_id_size = sizeof(m->build_id);
	if (build_id)
		memcpy(m->build_id, build_id, build_id_size);
	m->build_id_size = (uint8_t)build_id_size;
	p->nmaps++;
	return 0;
}

static void das_proc_clear(struct das_proc *p)
{
	size_t i;

	for (i = 0; i < p->nmaps; i++)
		free(p->maps[i].path);
	p->nmaps = 0;
}

static void das_proc_free(struct das_proc *p)
{
	das_proc_clear(p);
	free(p->maps);
	pt_image_free(p->image);
	elf_symtab_free(&p->st);
}

/* The process's first program (a->proc holds those), or NULL. */
static struct das_proc *das_first(const struct decode_aspaces *a, int pid)
{
	size_t i;

	for (i = 0; i < a->nproc; i++)
		if (a->proc[i]->pid == pid)
			return a->proc[i];
	return NULL;
}

/* Its program now, as far as the walk went: the last one. */
static struct das_proc *das_lookup(const struct decode_aspaces *a, int pid)
{
	struct das_proc *p = das_first(a, pid);

	while (p && p->next)
		p = p->next;
	return p;
}

/*
 * An exec of the process whose program is @p (record time @time): the
 * next program starts empty; @p stays for the code before the exec.
 */
static int das_exec(struct das_proc *p, const struct ptpsb_file *f,
		    const struct ptsb *sb, double hz, uint64_t time,
		    const char *comm)
{
	struct das_proc *n;

	if (!p->nmaps)
		return 0;	/* nothing ran there that anyone saw */
	n = calloc(1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	n->pid = p->pid;
	n->execd = 1;
	n->exec_time = !das_record_tsc(&f->hdr, sb, hz, time, &n->exec_tsc);
	snprintf(n->comm, sizeof(n->comm), "%s", comm);
	p->next = n;
	return 0;
}

/*
 * Does a mapping of @path at [@start, @end) from file offset @pgoff put
 * other code where @p has some?  Another file, or the same one at
 * another offset: a library dlopen()ed where a dlclose()d one was (the
 * kernel records no munmap).  Not the same bytes mapped again.
 */
static int das_overlays(const struct das_proc *p, const char *path,
			uint64_t start, uint64_t end, uint64_t pgoff)
{
	size_t i;

	if (path[0] != '/')
		return 0;	/* no file: nothing decodes there anyway */
	for (i = 0; i < p->nmaps; i++) {
		const struct das_map *m = &p->maps[i];

		if (m->start < end && start < m->end &&
		    (strcmp(m->path, path) || m->pgoff - m->start != pgoff - start))
			return 1;
	}
	return 0;
}

/*
 * Other code mapped over @p's (das_overlays(), record time @time): the
 * process's code from then on is a next program with @p's mappings,
 * the new one added after them (libipt's image then takes it where
 * they overlap); @p stays for the code before.  Not an exec: no entry
 * point, no new name.
 */
static int das_remap(struct das_proc *p, const struct ptpsb_file *f,
		     const struct ptsb *sb, double hz, uint64_t time)
{
	struct das_proc *n;
	size_t i;
	int err;

	n = calloc(1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	n->pid = p->pid;
	n->remap = 1;
	n->started = p->started;
	n->execd = p->execd;
	n->exec_time = !das_record_tsc(&f->hdr, sb, hz, time, &n->exec_tsc);
	memcpy(n->comm, p->comm, sizeof(n->comm));
	p->next = n;
	for (i = 0; i < p->nmaps; i++) {
		const struct das_map *m = &p->maps[i];

		err = das_add_map(n, m->path, m->start, m->end, m->pgoff,
				  m->build_id, m->build_id_size);
		if (err)
			return err;
	}
	return 0;
}

static struct das_proc *das_get(struct decode_aspaces *a, int pid);

/* The kernel's comm of program @path: its base name, 15 characters. */
static void das_exe_comm(const char *path, char comm[16])
{
	const char *b = strrchr(path, '/');

	snprintf(comm, 16, "%s", b ? b + 1 : path);
}

/*
 * The recorded command's program as it started (sideband.txt's first
 * exe= and the map= lines written with it, before the next exe=; named
 * after cmd= where record started it), for
 * an exec of it that sideband.perf saw without any mmap record before
 * it (record follows the command from its own exec on, so those maps
 * are only in sideband.txt).  Not when the exec is that very program
 * (@comm its name): then it is the command's own exec and nothing
 * before it was traced.  0, or -ENOMEM.
 */
static int das_start_prog(struct decode_aspaces *a, const struct ptsb *sb,
			  int pid, const char *comm)
{
	struct das_proc *p;
	size_t i, exe = 0;
	char name[16];
	int err = 0;

	if (!sb || pid != a->main_pid)
		return 0;
	while (exe < sb->n && strcmp(sb->ent[exe].key, "exe"))
		exe++;
	if (exe == sb->n)
		return 0;
	/* The kernel names it after the path record executed. */
	das_exe_comm(ptsb_get(sb, "cmd") ? ptsb_get(sb, "cmd") :
		     sb->ent[exe].val, name);
	if (!strcmp(name, comm))
		return 0;
	p = das_get(a, pid);
	if (!p)
		return -ENOMEM;
	snprintf(p->comm, sizeof(p->comm), "%s", name);
	p->started = 1;
	p->execd = 1;
	for (i = exe + 1; i < sb->n && !err; i++) {
		struct ptt_map_rec m;

		if (!strcmp(sb->ent[i].key, "exe"))
			break;
		if (ptt_map_parse(sb, i, &m))
			err = das_add_map(p, m.path, m.start, m.end, m.pgoff,
					  m.build_id, m.build_id_size);
	}
	return err;
}

static struct das_proc *das_get(struct decode_aspaces *a, int pid)
{
	struct das_proc *p = das_lookup(a, pid), **n;

	if (p)
		return p;
	n = realloc(a->proc, (a->nproc + 1) * sizeof(*n));
	if (!n)
		return NULL;
	a->proc = n;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	a->proc[a->nproc++] = p;
	return p;
}

/* A new process starts with a copy of its parent's mappings. */
static int das_fork(struct decode_aspaces *a, int pid, int ppid)
{
	struct das_proc *parent = das_lookup(a, ppid), *child;
	size_t i;
	int err;

	if (!parent || pid == ppid)
		return 0;
	child = das_get(a, pid);
	if (!child)
		return -ENOMEM;
	parent = das_lookup(a, ppid);	/* a->proc may have moved */
	das_proc_clear(child);
	child->execd = 0;
	for (i = 0; i < parent->nmaps; i++) {
		const struct das_map *m = &parent->maps[i];

		err = das_add_map(child, m->path, m->start, m->end, m->pgoff,
				  m->build_id, m->build_id_size);
		if (err)
			return err;
	}
	return 0;
}

static int das_add_switch(struct decode_aspaces *a, int cpu,
			  const struct das_switch *s)
{
	struct das_cpu *c = NULL;
	size_t i;
	void *n;

	for (i = 0; i < a->ncpu; i++)
		if (a->cpu[i].cpu == cpu)
			c = &a->cpu[i];
	if (!c) {
		n = realloc(a->cpu, (a->ncpu + 1) * sizeof(*a->cpu));
		if (!n)
			return -ENOMEM;
		a->cpu = n;
		c = &a->cpu[a->ncpu++];
		memset(c, 0, sizeof(*c));
		c->cpu = cpu;
	}
	/* Powers of two: grow when n is one. */
	if (!(c->n & (c->n - 1)) || !c->n) {
		n = realloc(c->sw, (c->n ? 2 * c->n : 1) * sizeof(*c->sw));
		if (!n)
			return -ENOMEM;
		c->sw = n;
	}
	/* The run before ends here at the latest. */
	if (c->n && !c->sw[c->n - 1].out)
		c->sw[c->n - 1].out = s->tsc;
	c->sw[c->n++] = *s;
	return 0;
}

static void das_switch_out(struct decode_aspaces *a, int cpu, int tid,
			   uint64_t tsc)
{
	size_t i;

	for (i = 0; i < a->ncpu; i++) {
		struct das_cpu *c = &a->cpu[i];

		if (c->cpu == cpu && c->n && c->sw[c->n - 1].tid == tid &&
		    !c->sw[c->n - 1].out)
			c->sw[c->n - 1].out = tsc ? tsc : 1;
	}
}

/* The last run on each CPU lasts to the end. */
static void das_switch_end(struct decode_aspaces *a)
{
	size_t i;

	for (i = 0; i < a->ncpu; i++)
		if (a->cpu[i].n && !a->cpu[i].sw[a->cpu[i].n - 1].out)
			a->cpu[i].sw[a->cpu[i].n - 1].out = UINT64_MAX;
}

/* The last comm of each tid, as the walk has seen them. */
struct das_names {
	struct { int tid; char comm[16]; } *v;
	size_t n;
};

static void das_name(struct das_names *nm, int tid, const char *comm)
{
	size_t i;
	void *n;

	for (i = 0; i < nm->n; i++)
		if (nm->v[i].tid == tid)
			break;
	if (i == nm->n) {
		n = realloc(nm->v, (nm->n + 1) * sizeof(*nm->v));
		if (!n)
			return;
		nm->v = n;
		nm->v[nm->n++].tid = tid;
	}
	snprintf(nm->v[i].comm, sizeof(nm->v[i].comm), "%s", comm);
}

static const char *das_comm(const struct das_names *nm, int tid, int pid)
{
	size_t i;

	for (i = 0; i < nm->n; i++)
		if (nm->v[i].tid == tid)
			return nm->v[i].comm;
	/* A thread named by no record has its process's name. */
	for (i = 0; i < nm->n; i++)
		if (nm->v[i].tid == pid)
			return nm->v[i].comm;
	return NULL;
}

/*
 * Processes that exec'd before any mmap record of theirs (the record
 * of the exec comes first): their first program starts at its entry.
 */
struct das_pids {
	int *v;
	size_t n;
};

static int das_pids_add(struct das_pids *s, int pid)
{
	int *v = realloc(s->v, (s->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	s->v = v;
	s->v[s->n++] = pid;
	return 0;
}

static int das_pids_has(const struct das_pids *s, int pid)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->v[i] == pid)
			return 1;
	return 0;
}

static int das_walk(struct decode_aspaces *a, const struct ptpsb_file *f,
		    const struct ptsb *sb, double hz, struct das_rec *r,
		    size_t n)
{
	struct das_names names = { NULL, 0 };
	struct das_pids execd = { NULL, 0 };
	size_t i;
	int err = 0;

	for (i = 0; i < n && !err; i++) {
		const struct ptpsb_event *ev = &r[i].ev;
		struct das_switch s;
		struct das_proc *p;
		const char *comm;
		int fresh;

		switch (ev->type) {
		case PERF_RECORD_MMAP:
		case PERF_RECORD_MMAP2:
			/* Code only: MMAP has no prot but a data flag. */
			if (ev->type == PERF_RECORD_MMAP2 ?
			    !(ev->prot & PROT_EXEC) :
			    (ev->misc & PERF_RECORD_MISC_MMAP_DATA))
				break;
			fresh = !das_lookup(a, (int)ev->bpid);
			p = das_get(a, (int)ev->bpid);
			if (!p) {
				err = -ENOMEM;
				break;
			}
			if (fresh && das_pids_has(&execd, (int)ev->bpid))
				p->execd = 1;
			if (das_overlays(p, ev->name, ev->addr,
					 ev->addr + ev->len, ev->pgoff)) {
				err = das_remap(p, f, sb, hz, ev->time);
				if (err)
					break;
				p = p->next;
			}
			err = das_add_map(p, ev->name, ev->addr,
					  ev->addr + ev->len, ev->pgoff,
					  ev->build_id, ev->build_id_size);
			break;
		case PERF_RECORD_COMM:
			das_name(&names, (int)ev->btid, ev->name);
			/* exec: the old program's mappings are gone */
			if (ev->misc & PERF_RECORD_MISC_COMM_EXEC) {
				p = das_lookup(a, (int)ev->bpid);
				if (!p) {
					err = das_start_prog(a, sb, (int)ev->bpid,
							     ev->name);
					p = das_lookup(a, (int)ev->bpid);
				}
				if (p && !err)
					err = das_exec(p, f, sb, hz, ev->time,
						       ev->name);
				else if (!err)
					err = das_pids_add(&execd,
							   (int)ev->bpid);
			}
			break;
		case PERF_RECORD_EXIT:
			/*
			 * The task's last run ends here: perf writes no
			 * switch-out for it (its events are gone by then),
			 * and the next task's enable on this CPU comes
			 * before that task's switch-in record.
			 */
			if (ev->cpu != UINT32_MAX &&
			    !das_record_tsc(&f->hdr, sb, hz, ev->time, &s.tsc))
				das_switch_out(a, (int)ev->cpu, (int)ev->tid,
					       s.tsc);
			break;
		case PERF_RECORD_FORK:
			/* the child has its parent's name until it execs */
			comm = das_comm(&names, (int)ev->ptid, (int)ev->ppid);
			if (comm && !das_comm(&names, (int)ev->btid, -1)) {
				char copy[16];

				snprintf(copy, sizeof(copy), "%s", comm);
				das_name(&names, (int)ev->btid, copy);
			}
			err = das_fork(a, (int)ev->bpid, (int)ev->ppid);
			break;
		case PERF_RECORD_SWITCH:
		case PERF_RECORD_SWITCH_CPU_WIDE:
			if (ev->cpu == UINT32_MAX ||
			    das_record_tsc(&f->hdr, sb, hz, ev->time, &s.tsc))
				break;
			/* A switch-out ends the run of the task going out. */
			if (ev->misc & PERF_RECORD_MISC_SWITCH_OUT) {
				das_switch_out(a, (int)ev->cpu, (int)ev->tid,
					       s.tsc);
				break;
			}
			/* A switch-in names the task coming in. */
			s.out = 0;
			s.pid = (int)ev->pid;
			s.tid = (int)ev->tid;
			comm = das_comm(&names, s.tid, s.pid);
			if (comm)
				snprintf(s.comm, sizeof(s.comm), "%s", comm);
			else
				snprintf(s.comm, sizeof(s.comm), ":%d", s.tid);
			err = das_add_switch(a, (int)ev->cpu, &s);
			break;
		default:
			break;
		}
	}
	free(names.v);
	free(execd.v);
	das_switch_end(a);
	return err;
}

/*
 * The kernel the recorder saved when it traced the kernel: the text's
 * bytes (kernel.text=START LENGTH FILE) and each module's
 * (kernel.module=NAME START LENGTH FILE) in sections that every image
 * shares, and kallsyms (kernel.kallsyms=FILE: the kernel's and the
 * modules' symbols) for every table.
 */
/* One saved range of kernel memory as a shared section. */
static void das_kernel_section(struct decode_aspaces *a, const char *dir,
			       const char *what, const char *file,
			       uint64_t start, uint64_t len)
{
	char path[4096];
	size_t i;
	int n;

	for (i = 0; a->kisid[i]; i++)
		;
	if (i + 1 >= ARRAY_SIZE(a->kisid)) {
		ptt_warn("more than %zu kernel sections: %s is not loaded",
			 ARRAY_SIZE(a->kisid) - 1, what);
		return;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (!a->isc)
		a->isc = pt_iscache_alloc(NULL);
	n = a->isc ? pt_iscache_add_file(a->isc, path, 0, len, start) :
		     -pte_nomem;
	if (n > 0)
		a->kisid[i] = n;
	else
		ptt_warn("cannot load %s from %s: %s; its code will not decode",
			 what, path, pt_errstr(pt_errcode(n)));
}

/*
 * The recorded kernel's vmlinux (kernel_debug.c), for source lines: its
 * symbols and DWARF moved from its link address to where the recording's
 * kernel text was (KASLR): the saved text starts at the running
 * kernel's _stext, the vmlinux's own _stext says where it was linked.
 * Missing, it is one warning with --lines.
 */
static void das_load_vmlinux(struct decode_aspaces *a, const struct ptsb *sb,
			     uint64_t stext)
{
	const char *id = ptsb_get(sb, "kernel.build_id");
	const char *uts = ptsb_get(sb, "kernel");
	char path[4096], where[4096], release[256] = "";
	struct pt_image *scratch;
	uint64_t low;

	if (!id)
		return;
	/* "Linux RELEASE VERSION...", as uname(2) gave it */
	if (uts && sscanf(uts, "%*s %255s", release) != 1)
		release[0] = 0;
	if (kdbg_find_vmlinux(a->symfs, id, release[0] ? release : NULL, path,
			      sizeof(path), where, sizeof(where))) {
		if (a->want_lines)
			ptt_warn("no vmlinux with the recorded kernel's build-id %s (looked in %s): kernel code has no source lines (install the kernel's debug info, e.g. Debian's linux-image-%s-dbg, or give --symfs DIR)",
				 id, where, release[0] ? release : "RELEASE");
		return;
	}
	a->kst.debuginfod = a->debuginfod;
	scratch = pt_image_alloc(NULL);
	if (!scratch || elf_image_symbol(path, "_stext", &low) ||
	    elf_image_add(scratch, &a->kst, path, stext - low) < 0) {
		if (a->want_lines)
			ptt_warn("cannot read %s: kernel code has no source lines",
				 path);
		pt_image_free(scratch);
		return;
	}
	pt_image_free(scratch);
	a->have_kst = 1;
}

/*
 * Each module's .ko (kernel_debug.c), for its code's source lines, laid
 * out as the recording's kernel.module.sections says it was loaded; only
 * one whose build-id is the recorded kernel.module.build_id.  With
 * --lines only (they give lines, nothing else); one warning for a .ko of
 * another build, one for all the modules without a .ko.
 */
static void das_load_kmods(struct decode_aspaces *a, const struct ptsb *sb)
{
	const char *uts = ptsb_get(sb, "kernel"), *v, *w;
	char release[256] = "", path[4096], where[4096], missing[4400] = "";
	size_t pos = 0, nmissing = 0;
	int loaded = 0;

	if (!a->want_lines)
		return;
	if (uts && sscanf(uts, "%*s %255s", release) != 1)
		release[0] = 0;
	a->kst.debuginfod = a->debuginfod;
	while ((v = ptsb_next(sb, "kernel.module.sections", &pos))) {
		char name[64], id[160], *hex = NULL;
		size_t ipos = 0;
		int n = 0, err;

		if (sscanf(v, "%63s %n", name, &n) != 1 || !n)
			continue;
		while ((w = ptsb_next(sb, "kernel.module.build_id", &ipos)))
			if (!strncmp(w, name, strlen(name)) &&
			    w[strlen(name)] == ' ' &&
			    sscanf(w, "%*s %159s", id) == 1)
				hex = id;
		err = kdbg_find_module(a->symfs, name, hex,
				       release[0] ? release : NULL, path,
				       sizeof(path), where, sizeof(where));
		if (err == -ESTALE) {
			ptt_warn("build-id mismatch: %s is not the module %s that was recorded (build-id %s): its code has no source lines",
				 path, name, hex);
			continue;
		}
		if (err == -ENOEXEC) {
			ptt_warn("%s is no ELF file, nor one compressed with xz, gzip, bzip2 or zstd: module %s has no source lines (unpack it into a --symfs DIR)",
				 path, name);
			continue;
		}
		if (err) {
			if (!nmissing++)
				snprintf(missing, sizeof(missing),
					 "%s (looked in %s)", name, where);
			continue;
		}
		err = elf_image_add_kmod(&a->kst, path, v + n);
		if (err)
			ptt_warn("cannot read %s: %s; module %s has no source lines",
				 path, strerror(-err), name);
		else
			loaded++;
	}
	if (nmissing)
		ptt_warn("%zu module(s) without their .ko, no source lines there: %s%s (give --symfs DIR, or install their debug info)",
			 nmissing, missing, nmissing > 1 ? " and others" : "");
	if (loaded)
		a->have_kst = 1;
}

static void das_load_kernel(struct decode_aspaces *a, const char *dir,
			    const struct ptsb *sb)
{
	const char *text = ptsb_get(sb, "kernel.text");
	const char *syms = ptsb_get(sb, "kernel.kallsyms");
	unsigned long long start, len;
	char file[256], path[4096];
	size_t pos = 0;
	const char *v;
	int n = 0, err;

	if (text && sscanf(text, "%llx %llx %255s%n", &start, &len, file,
			   &n) == 3 && !strchr(file, '/')) {
		das_kernel_section(a, dir, "the kernel's text", file, start, len);
		das_load_vmlinux(a, sb, start);
		das_load_kmods(a, sb);
		if (a->have_kst)
			elf_symtab_finish(&a->kst);
	} else if (text)
		ptt_warn("the recording has no kernel text (kernel.text=%s): kernel code will not decode",
			 text);
	while ((v = ptsb_next(sb, "kernel.module", &pos))) {
		char name[64];

		if (sscanf(v, "%63s %llx %llx %255s", name, &start, &len,
			   file) == 4 && !strchr(file, '/'))
			das_kernel_section(a, dir, name, file, start, len);
		else
			ptt_warn("the recording has no code of module %s: its code will not decode",
				 v);
	}
	if (syms && !strchr(syms, ' ') && !strchr(syms, '/')) {
		static const char no_text[] =
			"no text symbol in it (recorded with kptr_restrict: record as root)";

		snprintf(path, sizeof(path), "%s/%s", dir, syms);
		err = ksyms_load(&a->ks, path);
		if (!err)
			a->have_ks = 1;
		else
			ptt_warn("cannot read the kernel's symbols %s: %s; kernel code has no names",
				 path, err == -ENOENT ? no_text : strerror(-err));
	}
}

int das_load(struct decode_aspaces *a, const char *dir, const struct ptsb *sb,
	     double hz)
{
	struct ptpsb_file f;
	struct das_rec *r = NULL;
	size_t pos = 0, n = 0, cap = 0;
	char path[4096];
	int err;

	a->dir = dir;
	a->vdso = sb ? ptsb_get(sb, "vdso") : NULL;
	if (a->vdso && (strchr(a->vdso, ' ') || strchr(a->vdso, '/')))
		a->vdso = NULL;
	a->dflt.pid = -1;
	a->main_pid = -1;
	if (sb) {
		uint64_t pid;

		if (!ptsb_get_u64(sb, "pid", &pid) && pid <= INT32_MAX)
			a->main_pid = (int)pid;
	}
	a->hz = hz;
	if (sb)
		das_load_kernel(a, dir, sb);
	if (sb && ptsb_get(sb, "tsc.start")) {
		unsigned long long cpu, mono, tsc0;

		if (sscanf(ptsb_get(sb, "tsc.start"), "%llu %llu %llu", &cpu,
			   &mono, &tsc0) == 3) {
			a->have_mono = 1;
			a->mono_ns = mono;
			a->mono_tsc = tsc0;
		}
	}
	snprintf(path, sizeof(path), "%s/%s", dir, PTPSB_FILE_NAME);
	err = ptpsb_load(path, &f);
	if (err == -ENOENT)
		return 0;
	if (err)
		return err;
	a->clock = f.hdr.clock;
	if (f.hdr.clock == PTPSB_CLOCK_PERF &&
	    (f.hdr.flags & PTPSB_TIME_ZERO) && f.hdr.time_mult &&
	    f.hdr.time_shift < 64) {
		a->time_zero = 1;
		a->tz_zero = f.hdr.time_zero;
		a->tz_mult = f.hdr.time_mult;
		a->tz_shift = f.hdr.time_shift;
	}
	for (;;) {
		struct ptpsb_event ev;

		err = ptpsb_next(&f, &pos, &ev);
		if (err <= 0)
			break;
		if (n == cap) {
			void *m = realloc(r, (cap ? 2 * cap : 256) * sizeof(*r));

			if (!m) {
				err = -ENOMEM;
				break;
			}
			r = m;
			cap = cap ? 2 * cap : 256;
		}
		r[n].ev = ev;
		r[n].seq = n;
		n++;
	}
	if (err < 0)
		ptt_warn("%s: a record is cut short or malformed after %zu records: the rest is not used",
			 path, n);
	if (n)	/* r is NULL without records */
		qsort(r, n, sizeof(*r), das_rec_cmp);
	err = das_walk(a, &f, sb, hz, r, n);
	free(r);
	ptpsb_free(&f);
	a->have_perf = !err;
	return err;
}

int das_tsc_ns(const struct decode_aspaces *a, uint64_t tsc, uint64_t *ns)
{
	if (a->time_zero) {
		/* perf's own: the inverse of ptpsb_tsc() */
		uint64_t quot = a->tz_shift ? tsc >> a->tz_shift : tsc;
		uint64_t rem = a->tz_shift ? tsc & ((1ull << a->tz_shift) - 1) : 0;

		*ns = a->tz_zero + quot * a->tz_mult +
		      ((rem * a->tz_mult) >> a->tz_shift);
		return 0;
	}
	if (a->hz <= 0)
		return -ENODATA;
	if (a->have_mono && a->clock == PTPSB_CLOCK_MONOTONIC) {
		*ns = a->mono_ns + (uint64_t)(int64_t)
			(((double)tsc - (double)a->mono_tsc) * 1e9 / a->hz);
		return 0;
	}
	*ns = (uint64_t)((double)tsc * 1e9 / a->hz);
	return 0;
}

struct das_proc *das_find(struct decode_aspaces *a, int pid)
{
	struct das_proc *p = das_lookup(a, pid);

	return p && p->nmaps ? p : &a->dflt;
}

struct das_proc *das_find_at(struct decode_aspaces *a, int pid, uint64_t tsc)
{
	struct das_proc *p = das_first(a, pid);

	/* An exec at an unknown time: the program after it. */
	while (p && p->next && (!p->next->exec_time || p->next->exec_tsc <= tsc))
		p = p->next;
	return p && p->nmaps ? p : &a->dflt;
}

const struct das_switch *das_switches(const struct decode_aspaces *a, int cpu,
				      size_t *n)
{
	size_t i;

	for (i = 0; i < a->ncpu; i++)
		if (a->cpu[i].cpu == cpu) {
			*n = a->cpu[i].n;
			return a->cpu[i].sw;
		}
	*n = 0;
	return NULL;
}

int das_add_elf(struct pt_image *image, struct elf_symtab *st,
		const char *arg)
{
	char path[4096], *colon;
	uint64_t base = 0, bias = 0, min;
	int n;

	if (strlen(arg) >= sizeof(path))
		return -ENAMETOOLONG;
	strcpy(path, arg);
	colon = strrchr(path, ':');
	if (colon && !ptt_parse_u64(colon + 1, &base)) {
		*colon = 0;
		n = elf_image_min_vaddr(path, &min);
		if (n)
			return n;
		bias = base - min;
	}
	n = elf_image_add(image, st, path, bias);
	return n < 0 ? n : 0;
}

/*
 * --raw FILE[:FROM[-TO]]:BASE, as ptxed's: FILE's bytes from offset FROM
 * (0) up to TO (exclusive; the end of the file) at address BASE.  A flat
 * binary, a firmware image or a dump of memory: no symbols.  A colon
 * that starts no number belongs to the file's name.
 */
int das_raw_range(const char *arg, char path[DAS_PATH_MAX], uint64_t *fromp,
		  uint64_t *top, uint64_t *basep)
{
	uint64_t base, from = 0, to = 0;
	struct stat sb;
	char *colon;
	int fd;

	if (strlen(arg) >= DAS_PATH_MAX)
		return -ENAMETOOLONG;
	strcpy(path, arg);
	colon = strrchr(path, ':');
	if (!colon || ptt_parse_u64(colon + 1, &base))
		return -EDESTADDRREQ;
	*colon = 0;
	colon = strrchr(path, ':');
	if (colon) {
		char *dash = strchr(colon + 1, '-');

		if (!ptt_parse_u64(colon + 1, &from)) {
			*colon = 0;
		} else if (dash && dash > colon + 1) {
			/*
			 * FROM-TO, or FROM- (ptxed reads an empty TO as 0):
			 * TO not above FROM is an error, as ptxed's, not a
			 * colon in the file's name.
			 */
			uint64_t a, b = 0;

			*dash = 0;
			if (!ptt_parse_u64(colon + 1, &a) &&
			    (!dash[1] || !ptt_parse_u64(dash + 1, &b))) {
				if (b <= a)
					return -EDOM;
				from = a;
				to = b;
				*colon = 0;
			} else {
				*dash = '-';
			}
		}
	}
	if (stat(path, &sb))
		return -errno;
	if (!S_ISREG(sb.st_mode))
		return -EINVAL;
	if (from >= (uint64_t)sb.st_size)
		return -ERANGE;
	if (!to || to > (uint64_t)sb.st_size)
		to = (uint64_t)sb.st_size;
	/* libipt reads it when decoding: say now that it cannot (EACCES) */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	*fromp = from;
	*top = to;
	*basep = base;
	return 0;
}

int das_add_raw(struct pt_image *image, const char *arg)
{
	char path[DAS_PATH_MAX];
	uint64_t from, to, base;
	int err = das_raw_range(arg, path, &from, &to, &base);

	if (err)
		return err;
	if (pt_image_add_file(image, path, from, to - from, NULL, base) < 0)
		return -EIO;
	return 0;
}

/* --elf FILE[:BASE] or --raw FILE[:FROM[-TO]]:BASE (das_file.raw) */
int das_add_file(struct pt_image *image, struct elf_symtab *st,
		 const struct das_file *f)
{
	return f->raw ? das_add_raw(image, f->arg) : das_add_elf(image, st, f->arg);
}

/* 1 the first time @what is asked about, 0 after. */
static int das_first_warning(struct decode_aspaces *a, const char *what)
{
	size_t i;
	void *n;

	for (i = 0; i < a->nwarned; i++)
		if (!strcmp(a->warned[i], what))
			return 0;
	n = realloc(a->warned, (a->nwarned + 1) * sizeof(*a->warned));
	if (!n)
		return 1;
	a->warned = n;
	a->warned[a->nwarned] = strdup(what);
	if (a->warned[a->nwarned])
		a->nwarned++;
	return 1;
}

static void das_hex(char *buf, const uint8_t *id, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(buf + 2 * i, "%02x", id[i]);
	buf[2 * n] = 0;
}

/* The build-id the recording saw is the file's: else warn, once. */
static int das_same_build(struct decode_aspaces *a, const struct das_map *m)
{
	uint8_t id[20];
	char want[41], got[41];
	int n;

	if (!m->build_id_size)
		return 1;
	n = elf_image_build_id(m->path, id, sizeof(id));
	if (n == m->build_id_size && !memcmp(id, m->build_id, (size_t)n))
		return 1;
	if (n == -ENOENT)
		return 1;	/* said by the load's own warning */
	if (das_first_warning(a, m->path)) {
		das_hex(want, m->build_id, m->build_id_size);
		if (n > 0)
			das_hex(got, id, (size_t)n);
		ptt_warn("%s has changed since the recording (build-id %s, the recording's %s): instructions there will not decode (decode where that binary is, or give --elf FILE:BASE)",
			 m->path, n > 0 ? got : "none", want);
	}
	return 0;
}

/* One mapping into @p's image; a missing file is a warning, once. */
static void das_load_map(struct decode_aspaces *a, struct das_proc *p,
			 const struct das_map *m)
{
	const char *path = m->path, *as = NULL;
	char buf[4096];
	int err;

	if (!strcmp(path, "[vdso]")) {
		if (!a->vdso) {
			if (das_first_warning(a, "[vdso]"))
				ptt_warn("the sideband has no copy of the vdso (vdso=): code there will not decode");
			return;
		}
		snprintf(buf, sizeof(buf), "%s/%s", a->dir, a->vdso);
		path = buf;
		as = "[vdso]";	/* perf's name, not the copy's */
	} else if (path[0] != '/') {
		return;		/* [heap], anonymous code: no file */
	} else if (!das_same_build(a, m)) {
		return;
	}
	err = elf_image_add_map_as(p->image, &p->st, path, as, m->start,
				   m->end, m->pgoff);
	if (err && das_first_warning(a, path))
		ptt_warn("cannot load %s (mapped at 0x%llx from file offset 0x%llx): %s; instructions there will not decode (copy the file there, or give --elf FILE:BASE)",
			 path, (unsigned long long)m->start,
			 (unsigned long long)m->pgoff,
			 err == -ERANGE ? "the file is shorter than the mapping says" :
			 strerror(-err));
}

struct das_proc *das_use(struct decode_aspaces *a, struct das_proc *p)
{
	size_t i;

	if (p->built)
		return p;
	p->built = 1;
	if (!p->image)
		p->image = pt_image_alloc(NULL);
	if (!p->image)
		return NULL;
	p->st.debuginfod = a->debuginfod;
	if (a->have_ks)
		p->st.ksyms = &a->ks;
	if (a->have_kst)
		p->st.kernel = &a->kst;
	for (i = 0; a->kisid[i]; i++)
		pt_image_add_cached(p->image, a->isc, a->kisid[i], NULL);
	/* --elf and --raw files: for every process (the default's by the caller) */
	for (i = 0; p != &a->dflt && i < (size_t)a->nfile; i++)
		das_add_file(p->image, &p->st, &a->files[i]);
	/*
	 * The recorded command's mappings from sideband.txt (all of its
	 * programs'), then records; the program it started with has its own.
	 */
	if (p != &a->dflt && p->pid == a->main_pid && !p->started)
		for (i = 0; i < a->dflt.nmaps; i++)
			das_load_map(a, p, &a->dflt.maps[i]);
	for (i = 0; i < p->nmaps; i++) {
		das_load_map(a, p, &p->maps[i]);
		/* where an exec lands: the executable's or ld.so's entry */
		if (!p->remap && p->maps[i].path[0] == '/' &&
		    p->nentry < (int)ARRAY_SIZE(p->entry) &&
		    !elf_image_map_entry(p->maps[i].path, p->maps[i].start,
					 p->maps[i].end, p->maps[i].pgoff,
					 &p->entry[p->nentry]))
			p->nentry++;
	}
	elf_symtab_finish(&p->st);
	return p;
}

void das_free(struct decode_aspaces *a)
{
	size_t i;

	das_proc_free(&a->dflt);
	for (i = 0; i < a->nproc; i++) {
		struct das_proc *p = a->proc[i], *n;

		for (; p; p = n) {
			n = p->next;
			das_proc_free(p);
			free(p);
		}
	}
	free(a->proc);
	for (i = 0; i < a->ncpu; i++)
		free(a->cpu[i].sw);
	free(a->cpu);
	pt_iscache_free(a->isc);
	ksyms_free(&a->ks);
	if (a->have_kst)
		elf_symtab_free(&a->kst);
	for (i = 0; i < a->nwarned; i++)
		free(a->warned[i]);
	free(a->warned);
	memset(a, 0, sizeof(*a));
}

int das_read(const struct decode_aspaces *a, const struct das_proc *p,
	     uint64_t addr, uint8_t *buf, size_t len)
{
	int i, n;

	/* The kernel's bytes: the recording's kernel.text and modules. */
	for (i = 0; a->isc && a->kisid[i]; i++) {
		n = pt_iscache_read(a->isc, buf, len, a->kisid[i], addr);
		if (n > 0)
			return n;
	}
	return p ? elf_symtab_read(&p->st, addr, buf, len) : -ENOENT;
}
