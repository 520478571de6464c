/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ELF files for instruction-flow decoding: their PT_LOAD segments go into
 * a libipt image (libipt reads the bytes from the file itself) and their
 * function symbols into a table that names addresses.
 */
#ifndef PT_TRACE_ELF_IMAGE_H
#define PT_TRACE_ELF_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include <intel-pt.h>

struct elf_sym {
	uint64_t addr;
	uint64_t size;
	const char *name;
};

struct elf_symtab {
	struct elf_sym *syms;
	size_t n, alloc;
	char **strs;		/* string tables we own */
	size_t nstrs;
};

/*
 * Add @path to @image.  @bias is added to every segment's p_vaddr (0 for
 * a fixed-address executable).  Symbols go into @st when it is not NULL.
 * Returns the number of segments added or -errno.
 */
int elf_image_add(struct pt_image *image, struct elf_symtab *st,
		  const char *path, uint64_t bias);

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

/* The lowest p_vaddr of the PT_LOAD segments, for FILE:BASE loading. */
int elf_image_min_vaddr(const char *path, uint64_t *vaddr);

/* Sort after the last add; lookups need it. */
void elf_symtab_finish(struct elf_symtab *st);
const struct elf_sym *elf_symtab_lookup(const struct elf_symtab *st,
					uint64_t addr);
void elf_symtab_free(struct elf_symtab *st);

#endif /* PT_TRACE_ELF_IMAGE_H */
