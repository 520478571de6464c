// SPDX-License-Identifier: GPL-2.0
/*
 * Minimal ELF64 reading with <linux/elf.h>: program headers for the image,
 * SHT_SYMTAB/SHT_DYNSYM for names.  Every offset and size is checked
 * against the file size, since a wrong --elf must not crash the tool.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/elf.h>

#include "elf_image.h"
#include "tool.h"

struct elf_file {
	uint8_t *buf;
	size_t len;
	const struct elf64_hdr *eh;
};

static int elf_in(const struct elf_file *f, uint64_t off, uint64_t size)
{
	return off <= f->len && size <= f->len - off;
}

static int elf_open(struct elf_file *f, const char *path)
{
	int err = ptt_load_file(path, &f->buf, &f->len);

	if (err)
		return err;
	f->eh = (const struct elf64_hdr *)f->buf;
	if (f->len < sizeof(struct elf64_hdr) ||
	    memcmp(f->eh->e_ident, ELFMAG, SELFMAG) ||
	    f->eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    f->eh->e_ident[EI_DATA] != ELFDATA2LSB ||
	    f->eh->e_phentsize != sizeof(struct elf64_phdr) ||
	    !elf_in(f, f->eh->e_phoff,
		    (uint64_t)f->eh->e_phnum * sizeof(struct elf64_phdr))) {
		free(f->buf);
		return -ENOEXEC;
	}
	return 0;
}

static const struct elf64_phdr *elf_phdr(const struct elf_file *f, int i)
{
	return (const struct elf64_phdr *)(f->buf + f->eh->e_phoff) + i;
}

int elf_image_min_vaddr(const char *path, uint64_t *vaddr)
{
	struct elf_file f;
	int i, err = elf_open(&f, path);

	if (err)
		return err;
	*vaddr = UINT64_MAX;
	for (i = 0; i < f.eh->e_phnum; i++) {
		const struct elf64_phdr *ph = elf_phdr(&f, i);

		if (ph->p_type == PT_LOAD && ph->p_vaddr < *vaddr)
			*vaddr = ph->p_vaddr & ~0xfffULL;
	}
	free(f.buf);
	return *vaddr == UINT64_MAX ? -ENOEXEC : 0;
}

static void elf_add_sym(struct elf_symtab *st, uint64_t addr, uint64_t size,
			const char *name)
{
	if (st->n == st->alloc) {
		size_t alloc = st->alloc ? st->alloc * 2 : 256;
		struct elf_sym *n = realloc(st->syms, alloc * sizeof(*n));

		if (!n)
			return;
		st->syms = n;
		st->alloc = alloc;
	}
	st->syms[st->n].addr = addr;
	st->syms[st->n].size = size;
	st->syms[st->n].name = name;
	st->n++;
}

/* Copy one string table so that names outlive the file buffer. */
static char *elf_keep_strtab(struct elf_symtab *st, const uint8_t *p,
			     size_t len)
{
	char **n = realloc(st->strs, (st->nstrs + 1) * sizeof(*n));
	char *copy;

	if (!n)
		return NULL;
	st->strs = n;
	copy = malloc(len + 1);
	if (!copy)
		return NULL;
	memcpy(copy, p, len);
	copy[len] = 0;
	st->strs[st->nstrs++] = copy;
	return copy;
}

static void elf_read_symbols(const struct elf_file *f, struct elf_symtab *st,
			     uint64_t bias)
{
	const struct elf64_shdr *sh;
	int i;

	if (!f->eh->e_shoff || f->eh->e_shentsize != sizeof(struct elf64_shdr) ||
	    !elf_in(f, f->eh->e_shoff,
		    (uint64_t)f->eh->e_shnum * sizeof(struct elf64_shdr)))
		return;
	sh = (const struct elf64_shdr *)(f->buf + f->eh->e_shoff);
	for (i = 0; i < f->eh->e_shnum; i++) {
		const struct elf64_shdr *strs;
		const struct elf64_sym *sym;
		uint64_t j, nsym;
		char *names;

		if (sh[i].sh_type != SHT_SYMTAB && sh[i].sh_type != SHT_DYNSYM)
			continue;
		if (sh[i].sh_link >= f->eh->e_shnum ||
		    !elf_in(f, sh[i].sh_offset, sh[i].sh_size))
			continue;
		strs = &sh[sh[i].sh_link];
		if (!elf_in(f, strs->sh_offset, strs->sh_size))
			continue;
		names = elf_keep_strtab(st, f->buf + strs->sh_offset,
					strs->sh_size);
		if (!names)
			return;
		sym = (const struct elf64_sym *)(f->buf + sh[i].sh_offset);
		nsym = sh[i].sh_size / sizeof(struct elf64_sym);
		for (j = 0; j < nsym; j++) {
			int type = ELF64_ST_TYPE(sym[j].st_info);

			if (type != STT_FUNC && type != STT_NOTYPE)
				continue;
			if (sym[j].st_shndx == SHN_UNDEF || !sym[j].st_value ||
			    sym[j].st_name >= strs->sh_size ||
			    !names[sym[j].st_name])
				continue;
			elf_add_sym(st, sym[j].st_value + bias, sym[j].st_size,
				    names + sym[j].st_name);
		}
	}
}

int elf_image_add(struct pt_image *image, struct elf_symtab *st,
		  const char *path, uint64_t bias)
{
	struct elf_file f;
	int i, added = 0, err = elf_open(&f, path);

	if (err)
		return err;
	for (i = 0; i < f.eh->e_phnum; i++) {
		const struct elf64_phdr *ph = elf_phdr(&f, i);

		if (ph->p_type != PT_LOAD || !ph->p_filesz)
			continue;
		if (!elf_in(&f, ph->p_offset, ph->p_filesz)) {
			err = -ENOEXEC;
			break;
		}
		err = pt_image_add_file(image, path, ph->p_offset,
					ph->p_filesz, NULL, ph->p_vaddr + bias);
		if (err < 0) {
			err = -EINVAL;
			break;
		}
		err = 0;
		added++;
	}
	if (!err && st)
		elf_read_symbols(&f, st, bias);
	free(f.buf);
	return err ? err : added;
}

/*
 * The load bias a mapping of file offset @pgoff at @start implies: the
 * PT_LOAD segment that holds @pgoff says which p_vaddr that offset has.
 */
static int elf_map_bias(const struct elf_file *f, uint64_t start,
			uint64_t pgoff, uint64_t *bias)
{
	int i;

	for (i = 0; i < f->eh->e_phnum; i++) {
		const struct elf64_phdr *ph = elf_phdr(f, i);

		if (ph->p_type != PT_LOAD || !ph->p_filesz ||
		    pgoff < (ph->p_offset & ~0xfffULL) ||
		    pgoff - ph->p_offset >= ph->p_filesz)
			continue;
		*bias = start - (ph->p_vaddr - ph->p_offset + pgoff);
		return 0;
	}
	return -ENOENT;
}

int elf_image_add_map(struct pt_image *image, struct elf_symtab *st,
		      const char *path, uint64_t start, uint64_t end,
		      uint64_t pgoff)
{
	struct elf_file f = { 0 };
	uint64_t size, bias;
	int elf, err = elf_open(&f, path);

	elf = !err;
	if (err == -ENOEXEC)	/* not ELF: its bytes, no symbols */
		err = ptt_load_file(path, &f.buf, &f.len);
	if (err)
		return err;
	if (end <= start || pgoff >= f.len) {
		err = -ERANGE;
		goto out;
	}
	/* The kernel maps whole pages; past the end of the file is SIGBUS. */
	size = end - start;
	if (size > f.len - pgoff)
		size = f.len - pgoff;
	if (pt_image_add_file(image, path, pgoff, size, NULL, start) < 0) {
		err = -EINVAL;
		goto out;
	}
	if (elf && st && !elf_map_bias(&f, start, pgoff, &bias))
		elf_read_symbols(&f, st, bias);
out:
	free(f.buf);
	return err;
}

static int elf_sym_cmp(const void *a, const void *b)
{
	const struct elf_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Prefer sized symbols (functions) over labels at one address. */
	return (y->size != 0) - (x->size != 0);
}

void elf_symtab_finish(struct elf_symtab *st)
{
	if (st->n)
		qsort(st->syms, st->n, sizeof(*st->syms), elf_sym_cmp);
}

const struct elf_sym *elf_symtab_lookup(const struct elf_symtab *st,
					uint64_t addr)
{
	size_t lo = 0, hi = st->n;
	const struct elf_sym *s;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (st->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &st->syms[lo - 1];
	/* Step back to the first (preferred) symbol at that address. */
	while (s > st->syms && s[-1].addr == s->addr)
		s--;
	if (s->size && addr - s->addr >= s->size)
		return NULL;
	return s;
}

void elf_symtab_free(struct elf_symtab *st)
{
	size_t i;

	for (i = 0; i < st->nstrs; i++)
		free(st->strs[i]);
	free(st->strs);
	free(st->syms);
	memset(st, 0, sizeof(*st));
}
