/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The address spaces of a recording, for decode: one libipt image and
 * one symbol table per process, built from the mmap records of the
 * recording's sideband.perf (every executable mapping at its file
 * offset, inherited at fork, dropped at exec), and for each CPU the
 * tasks that ran there from its context-switch records, in TSC order.
 *
 * Without sideband.perf (a raw trace, --elf) there is one address space,
 * the default: --elf files and sideband.txt's map= lines, as before.
 */
#ifndef PT_TRACE_DECODE_ASPACE_H
#define PT_TRACE_DECODE_ASPACE_H

#include <stddef.h>
#include <stdint.h>

#include <intel-pt.h>

#include "elf_image.h"
#include "kernel_syms.h"

struct ptsb;
struct das_map;

/*
 * A process's program: its mappings, and its image once something ran
 * there.  An exec starts another program in the same process: the next
 * das_proc of the pid (@next), from the exec record's time on.  So does
 * a mapping of other code over an earlier one (@remap: a library
 * dlopen()ed where a dlclose()d one was), from its record's time on,
 * with the mappings before it.
 */
struct das_proc {
	int pid;		/* -1: the default address space */
	struct das_map *maps;
	size_t nmaps, cap;
	int built;		/* image and st made (das_proc_image()) */
	struct pt_image *image;
	struct elf_symtab st;
	struct das_proc *next;	/* the program the process execs next */
	uint64_t exec_tsc;	/* the exec that started this one, when */
	int exec_time;		/* exec_tsc is known (a record time as TSC) */
	char comm[16];		/* its name from the exec on ("": unknown) */
	uint64_t entry[4];	/* where it starts: executable's, ld.so's */
	int nentry;		/* entry points found (das_use()) */
	int started;		/* the command as it started: sideband.txt's */
	/*
	 * It started at its entry point in the recording: an exec that
	 * the sideband saw, or the command record started.  Not a forked
	 * child's copy of its parent's program, nor one that ran before
	 * the recording: those never start there (decode_exec()).
	 */
	int execd;
	int remap;		/* no exec: new code where other code was */
};

/*
 * A task's run on a CPU: switched in at @tsc, out at @out (the next
 * switch-in's time without a switch-out record, UINT64_MAX for the last).
 */
struct das_switch {
	uint64_t tsc, out;
	int pid, tid;
	char comm[16];
};

struct das_cpu {
	int cpu;
	struct das_switch *sw;	/* in TSC order */
	size_t n;
};

/* a file given on the command line, in every process's image */
struct das_file {
	const char *arg;	/* FILE[:BASE] (ELF) or FILE[:FROM[-TO]]:BASE */
	int raw;		/* --raw: not an ELF file */
};

struct decode_aspaces {
	struct das_proc dflt;	/* --elf and map= lines: unknown tasks */
	struct das_proc **proc;	/* with mmap records, by pid */
	size_t nproc;
	struct das_cpu *cpu;
	size_t ncpu;
	int main_pid;		/* sideband.txt pid=, or -1 */
	int have_perf;		/* sideband.perf was read */
	/* turning TSC into the recording's time (das_tsc_ns()) */
	uint32_t clock;		/* PTPSB_CLOCK_*, of sideband.perf */
	int time_zero;		/* its header has perf's conversion */
	uint64_t tz_zero;
	uint32_t tz_mult;
	uint16_t tz_shift;
	double hz;		/* the TSC rate, 0 when unknown */
	int have_mono;		/* tsc.start: a CLOCK_MONOTONIC sample */
	uint64_t mono_ns, mono_tsc;
	const char *dir;	/* the recording's directory (vdso copy) */
	const char *vdso;	/* its file name there, or NULL */
	int debuginfod;
	const struct das_file *files;	/* --elf and --raw, in every image */
	int nfile;
	/* the kernel, in every image: kernel.text and kernel.kallsyms */
	struct pt_image_section_cache *isc;
	int kisid[65];		/* its sections (text, modules), 0-terminated */
	struct kernel_syms ks;
	int have_ks;
	/* its vmlinux, found by build-id under @symfs: source lines */
	const char *symfs;	/* --symfs, or NULL */
	int want_lines;		/* --lines: warn when there is none */
	struct elf_symtab kst;
	int have_kst;
	/* files warned about, once each */
	char **warned;
	size_t nwarned;
};

/*
 * Read @dir/sideband.perf (when there): processes and switches.  @hz
 * converts CLOCK_MONOTONIC record times through the sideband's
 * tsc.start sample.  The default address space must be filled (--elf,
 * map= lines) by the caller through das_default().  Returns 0, or
 * -errno for a sideband.perf that exists but cannot be read.
 */
int das_load(struct decode_aspaces *a, const char *dir, const struct ptsb *sb,
	     double hz);
void das_free(struct decode_aspaces *a);

/* The process @pid's address space: its own, or the default. */
struct das_proc *das_find(struct decode_aspaces *a, int pid);
/* The same, as it was at @tsc: the program it ran then (exec). */
struct das_proc *das_find_at(struct decode_aspaces *a, int pid,
			     uint64_t tsc);
/*
 * Its image and symbols, made on first use (files read, warnings for
 * missing files and changed build-ids once each).  NULL when out of
 * memory.
 */
struct das_proc *das_use(struct decode_aspaces *a, struct das_proc *p);

/* The switches on CPU @cpu (NULL, *n = 0 without). */
const struct das_switch *das_switches(const struct decode_aspaces *a, int cpu,
				      size_t *n);

/*
 * Add one mapping to @p (the default address space's map= lines go
 * through here too): bytes [@start, @end) of @path from @pgoff.
 */
int das_add_map(struct das_proc *p, const char *path, uint64_t start,
		uint64_t end, uint64_t pgoff, const uint8_t *build_id,
		size_t build_id_size);

/*
 * --elf FILE[:BASE]: @arg's segments into @image (at BASE for a
 * position-independent file), its symbols into @st.  0 or -errno.
 */
int das_add_elf(struct pt_image *image, struct elf_symtab *st,
		const char *arg);

/*
 * --raw FILE[:FROM[-TO]]:BASE: @arg's bytes into @image, as ptxed's --raw.
 * 0 or -errno (-EDESTADDRREQ: no BASE; -ERANGE: FROM-TO not in the file).
 */
int das_add_raw(struct pt_image *image, const char *arg);
/*
 * The same argument parsed and checked: FILE's name into @path, the
 * byte range [*from, *to) of it at address *base (decode_block.c reads
 * the code there itself).  0 or the -errno das_add_raw() returns.
 */
#define DAS_PATH_MAX 4096
int das_raw_range(const char *arg, char path[DAS_PATH_MAX], uint64_t *from,
		  uint64_t *to, uint64_t *base);

/* das_add_elf() or das_add_raw(), as @f says */
int das_add_file(struct pt_image *image, struct elf_symtab *st,
		 const struct das_file *f);

/*
 * A TSC value as the recording's time in ns: perf's clock (what perf
 * script prints) when sideband.perf has its conversion, else
 * CLOCK_MONOTONIC through the recorder's tsc.start sample, else TSC
 * ticks at the TSC rate.  0, or -ENODATA without a rate.
 */
int das_tsc_ns(const struct decode_aspaces *a, uint64_t tsc, uint64_t *ns);

/*
 * Up to @len bytes of code at @addr in @p's address space (the kernel's
 * from the recording's copies, user code from @p's files): the count
 * read, or a negative number where nothing has them.
 */
int das_read(const struct decode_aspaces *a, const struct das_proc *p,
	     uint64_t addr, uint8_t *buf, size_t len);

/* A record's time as TSC: 0 or -ENODATA (no way to convert). */
struct ptpsb_header;
int das_record_tsc(const struct ptpsb_header *h, const struct ptsb *sb,
		   double hz, uint64_t time, uint64_t *tsc);

#endif /* PT_TRACE_DECODE_ASPACE_H */
