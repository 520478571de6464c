// SPDX-License-Identifier: GPL-2.0
/*
 * record --stop-at SYMBOL (see rec_symbol.h), with the ELF reading that
 * decode uses: each executable file mapping of the process goes through
 * elf_image_add_map(), which reads the file's symbols at the load bias
 * the mapping implies; the name (as in the file, or demangled) is then
 * looked up among them.
 */
#include <errno.h>
#include <stdio.h>

#include "elf_image.h"
#include "proc_maps.h"
#include "rec_symbol.h"

struct rec_symbol_ctx {
	struct pt_image *image;
	const char *name;
	uint64_t *start, *end;
	char *file;
	size_t filelen;
};

/* One mapping: 1 (stop) when its file has the symbol. */
static int rec_symbol_map(const struct ptt_map *m, void *arg)
{
	struct rec_symbol_ctx *c = arg;
	struct elf_symtab st = { 0 };
	int found;

	if (m->path[0] != '/' ||
	    elf_image_add_map(c->image, &st, m->path, m->start, m->end,
			      m->pgoff))
		return 0;
	found = !elf_symtab_find(&st, c->name, c->start, c->end);
	if (found)
		snprintf(c->file, c->filelen, "%s", m->path);
	elf_symtab_free(&st);
	return found;
}

int rec_symbol_resolve(pid_t pid, const char *name, uint64_t *start,
		       uint64_t *end, char *file, size_t filelen)
{
	struct rec_symbol_ctx c = { pt_image_alloc(NULL), name, start, end,
				    file, filelen };
	int ret;

	if (!c.image)
		return -ENOMEM;
	ret = ptt_maps_each(pid, rec_symbol_map, &c);
	pt_image_free(c.image);
	return ret < 0 ? ret : ret ? 0 : -ENOENT;
}
