/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ELF files for instruction-flow decoding, read with elfutils: their
 * PT_LOAD segments (libelf) go into a libipt image, which reads the bytes
 * from the file itself, and every file is a module of one libdwfl session
 * that names addresses: symbols from .symtab, .dynsym, .gnu_debugdata or
 * separate debug info (/usr/lib/debug/.build-id), demangled, and source
 * lines from DWARF.  debuginfod is used only when asked for.
 *
 * One elf_symtab is one address space; lookups go through
 * elf_symtab_lookup() and elf_symtab_line() only, so that a decoder with
 * several address spaces (processes, VMX guests) keys one table each.
 */
#ifndef PT_TRACE_ELF_IMAGE_H
#define PT_TRACE_ELF_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include <intel-pt.h>

struct elf_symcache;

struct elf_sym {
	uint64_t addr;		/* the symbol's start */
	uint64_t size;		/* 0: unknown */
	const char *name;	/* demangled; lives as long as the table */
	size_t namelen;
	const char *dso;	/* the file's base name */
};

struct kernel_syms;

struct elf_symtab {
	void *dwfl;		/* the libdwfl session (Dwfl *) */
	/* kernel addresses: kallsyms, shared by every table (not owned) */
	const struct kernel_syms *ksyms;
	/* kernel addresses' lines: the vmlinux's table (not owned), or NULL */
	const struct elf_symtab *kernel;
	struct elf_symcache *cache;
	int debuginfod;		/* let libdwfl ask debuginfod servers */
	int finished;		/* elf_symtab_finish() done */
};

/*
 * Add @path to @image.  @bias is added to every segment's p_vaddr (0 for
 * a fixed-address executable).  Symbols go into @st when it is not NULL.
 * Returns the number of segments added or -errno (-ENOEXEC: not ELF).
 */
int elf_image_add(struct pt_image *image, struct elf_symtab *st,
		  const char *path, uint64_t bias);

/*
 * A kernel module's .ko (an ET_REL file) in @st, for source lines only
 * (its code's bytes are the recording's): @sections is "SECTION ADDR
 * ..." (hex), where the running kernel put each section; the module
 * spans its executable sections.  Returns 0 or -errno (-ENOENT: none of
 * its code's sections is in @sections).
 */
int elf_image_add_kmod(struct elf_symtab *st, const char *path,
		       const char *sections);

/*
 * One mapping of a traced process, as /proc/PID/maps (and the sideband's
 * map= lines) give it: the bytes at [@start, @end) are @path's bytes from
 * file offset @pgoff on, as the kernel mapped them, whatever the ELF
 * headers say (PIE, shared libraries, any file).  An ELF file's symbols
 * go into @st (when not NULL) at the load bias the mapping implies.
 * Returns 0 or -errno (-ERANGE: the mapping is not inside the file).
 */
int elf_image_add_map(struct pt_image *image, struct elf_symtab *st,
		      const char *path, uint64_t start, uint64_t end,
		      uint64_t pgoff);
/*
 * The same, its symbols naming their file @as (e.g. "[vdso]" for the
 * recording's copy of the vdso, as perf names it), not @path's base
 * name; @as must live as long as @st (a string constant).
 */
int elf_image_add_map_as(struct pt_image *image, struct elf_symtab *st,
			 const char *path, const char *as, uint64_t start,
			 uint64_t end, uint64_t pgoff);

/*
 * The GNU build-id of @path into @id (at most @max bytes): its length,
 * -ENODATA when the file has none, or -errno (-ENOEXEC: not ELF).
 */
int elf_image_build_id(const char *path, uint8_t *id, size_t max);

/*
 * The entry point (e_entry) of @path as mapped at [@start, @end) from
 * file offset @pgoff (the load bias that mapping implies): 0 and
 * *@entry when the entry is inside the mapping, -ENOENT when it is not,
 * or -errno (-ENOEXEC: not ELF).
 */
int elf_image_map_entry(const char *path, uint64_t start, uint64_t end,
			uint64_t pgoff, uint64_t *entry);

/* The lowest p_vaddr of the PT_LOAD segments, for FILE:BASE loading. */
int elf_image_min_vaddr(const char *path, uint64_t *vaddr);

/* The value of symbol @name in @path's .symtab: 0, -ENOENT or -errno. */
int elf_image_symbol(const char *path, const char *name, uint64_t *addr);

/* After the last add; lookups need it. */
void elf_symtab_finish(struct elf_symtab *st);
/* The symbol holding @addr, or NULL; valid until the next lookup. */
const struct elf_sym *elf_symtab_lookup(const struct elf_symtab *st,
					uint64_t addr);
/*
 * The base name of the file whose mapping holds user address @addr (a
 * library with no symbol there: its PLT, a stripped function), or NULL
 * when no file of @st has it.  Valid as long as @st.
 */
const char *elf_symtab_dso(const struct elf_symtab *st, uint64_t addr);
/*
 * The source line of @addr: file and line, and the function inlined
 * there when the code at @addr is inlined (else NULL).  Returns 0, or
 * -ENOENT without line information.
 */
int elf_symtab_line(const struct elf_symtab *st, uint64_t addr,
		    const char **file, int *line, const char **inlined);
/*
 * The sized function symbol called @name (as in the file, or demangled):
 * [*start, *end).  Returns 0 or -ENOENT.
 */
int elf_symtab_find(struct elf_symtab *st, const char *name,
		    uint64_t *start, uint64_t *end);
/*
 * Up to @len bytes of code at @addr from the file of the module that
 * holds it (its PT_LOAD segments as libdwfl placed them): the count
 * read, or -ENOENT where no file of @st has bytes.
 */
int elf_symtab_read(const struct elf_symtab *st, uint64_t addr,
		    uint8_t *buf, size_t len);
void elf_symtab_free(struct elf_symtab *st);

#endif /* PT_TRACE_ELF_IMAGE_H */
