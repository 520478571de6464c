// SPDX-License-Identifier: GPL-2.0
/*
 * PLT entries by name (elf_plt.h), found as binutils' synthetic symbols
 * are: each entry's "jmp *GOT(%rip)" (ff 25 disp32, maybe after endbr64
 * or a bnd prefix) gives its GOT slot, and the dynamic relocation of that
 * slot (R_X86_64_JUMP_SLOT in .rela.plt, R_X86_64_GLOB_DAT in .rela.dyn
 * for .plt.got) gives the symbol.  Lazy-binding .plt entries with IBT
 * (endbr64; push; jmp PLT0) have no such jmp: their .plt.sec twins do.
 * An IRELATIVE slot (an IFUNC of the file itself) is named as objdump
 * names it, "*ABS*+0xRESOLVER@plt".  PLT0 stays unnamed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf_plt.h"

#define ep_elf		elf_plt_elf
#define ep_scn		__typeof__(elf_nextscn(NULL, NULL))
#define ep_shdr		__typeof__(*gelf_getshdr(NULL, NULL))
#define ep_rela		__typeof__(*gelf_getrela(NULL, 0, NULL))
#define ep_sym		__typeof__(*gelf_getsym(NULL, 0, NULL))
#define ep_data		__typeof__(*elf_getdata(NULL, NULL))

/*
 * A GOT slot and the symbol whose address goes there, or for an IFUNC
 * resolved at load (IRELATIVE) the resolver's address: objdump's name
 * "*ABS*+0xADDEND".
 */
struct ep_slot {
	uint64_t got;
	const char *name;	/* libelf's string, NULL: IRELATIVE */
	uint64_t addend;
};

struct ep_list {
	struct elf_plt_ent *e;
	size_t n, cap;
};

static int ep_slot_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct ep_slot *)a)->got;
	uint64_t y = ((const struct ep_slot *)b)->got;

	return x < y ? -1 : x > y;
}

static int ep_ent_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct elf_plt_ent *)a)->addr;
	uint64_t y = ((const struct elf_plt_ent *)b)->addr;

	return x < y ? -1 : x > y;
}

/* The named slots of relocation section @scn (@sh) of @elf, appended. */
static int ep_slots(ep_elf elf, ep_scn scn, const ep_shdr *sh,
		    struct ep_slot **slots, size_t *n, size_t *cap)
{
	ep_data *data = elf_getdata(scn, NULL);
	ep_scn symscn = elf_getscn(elf, sh->sh_link);
	ep_data *syms = symscn ? elf_getdata(symscn, NULL) : NULL;
	ep_shdr symsh;
	size_t i, nrel;

	if (!data || !syms || !gelf_getshdr(symscn, &symsh) ||
	    !sh->sh_entsize)
		return 0;
	nrel = sh->sh_size / sh->sh_entsize;
	for (i = 0; i < nrel; i++) {
		ep_rela r;
		ep_sym s;
		const char *name;
		unsigned long type;

		if (!gelf_getrela(data, (int)i, &r))
			break;
		type = GELF_R_TYPE(r.r_info);
		if (type == R_X86_64_IRELATIVE) {
			name = NULL;
		} else if ((type != R_X86_64_JUMP_SLOT &&
			    type != R_X86_64_GLOB_DAT) ||
			   !GELF_R_SYM(r.r_info) ||
			   !gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &s)) {
			continue;
		} else {
			name = elf_strptr(elf, symsh.sh_link, s.st_name);
			if (!name || !name[0])
				continue;
		}
		if (*n == *cap) {
			struct ep_slot *m;

			*cap = *cap ? 2 * *cap : 256;
			m = realloc(*slots, *cap * sizeof(*m));
			if (!m)
				return -ENOMEM;
			*slots = m;
		}
		(*slots)[*n].got = r.r_offset;
		(*slots)[*n].addend = (uint64_t)r.r_addend;
		(*slots)[(*n)++].name = name;
	}
	return 0;
}

static const struct ep_slot *ep_slot_find(const struct ep_slot *slots,
					  size_t n, uint64_t got)
{
	struct ep_slot key = { .got = got };

	return bsearch(&key, slots, n, sizeof(*slots), ep_slot_cmp);
}

static int ep_add(struct ep_list *l, uint64_t addr, uint64_t size,
		  const char *name)
{
	char *s;

	if (l->n == l->cap) {
		struct elf_plt_ent *m;

		l->cap = l->cap ? 2 * l->cap : 64;
		m = realloc(l->e, l->cap * sizeof(*m));
		if (!m)
			return -ENOMEM;
		l->e = m;
	}
	s = strdup(name);
	if (!s)
		return -ENOMEM;
	l->e[l->n].addr = addr;
	l->e[l->n].size = size;
	l->e[l->n++].name = s;
	return 0;
}

/* The GOT slot entry @p (@len bytes, at @addr) jumps through, or 0. */
static uint64_t ep_entry_got(const uint8_t *p, uint64_t len, uint64_t addr)
{
	uint64_t i;
	int32_t disp;

	for (i = 0; i + 6 <= len; i++) {
		if (p[i] != 0xff || p[i + 1] != 0x25)
			continue;
		memcpy(&disp, p + i + 2, sizeof(disp));
		return addr + i + 6 + (uint64_t)(int64_t)disp;
	}
	return 0;
}

/* The named entries of PLT section @scn (@sh, its entries @ent bytes). */
static int ep_section(ep_scn scn, const ep_shdr *sh, uint64_t ent,
		      uint64_t bias, const struct ep_slot *slots, size_t n,
		      struct ep_list *l)
{
	ep_data *data = elf_getdata(scn, NULL);
	uint64_t off;

	if (!data || !data->d_buf || data->d_size < sh->sh_size)
		return 0;
	for (off = 0; off + ent <= sh->sh_size; off += ent) {
		uint64_t got = ep_entry_got((const uint8_t *)data->d_buf + off,
					    ent, sh->sh_addr + off);
		const struct ep_slot *s = got ? ep_slot_find(slots, n, got) :
						NULL;
		char abs[32];

		if (!s)
			continue;
		if (!s->name)
			snprintf(abs, sizeof(abs), "*ABS*+0x%llx",
				 (unsigned long long)s->addend);
		if (ep_add(l, sh->sh_addr + off + bias, ent,
			   s->name ? s->name : abs))
			return -ENOMEM;
	}
	return 0;
}

int elf_plt_entries(ep_elf elf, uint64_t bias, struct elf_plt_ent **out,
		    size_t *n)
{
	struct ep_slot *slots = NULL;
	struct ep_list l = { 0 };
	size_t nslots = 0, cap = 0, shstrndx;
	ep_scn scn = NULL;
	ep_shdr sh;
	int err = 0;

	*out = NULL;
	*n = 0;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while (!err && (scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_RELA)
			err = ep_slots(elf, scn, &sh, &slots, &nslots, &cap);
	if (!err && nslots) {
		qsort(slots, nslots, sizeof(*slots), ep_slot_cmp);
		while (!err && (scn = elf_nextscn(elf, scn))) {
			const char *name;
			uint64_t ent;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
			    !(sh.sh_flags & SHF_EXECINSTR))
				continue;
			name = elf_strptr(elf, shstrndx, sh.sh_name);
			if (!name || strncmp(name, ".plt", 4))
				continue;
			/* .plt.got's are 8 bytes (16 with IBT), the others 16 */
			ent = sh.sh_entsize >= 8 ? sh.sh_entsize : 16;
			err = ep_section(scn, &sh, ent, bias, slots, nslots, &l);
		}
	}
	free(slots);
	if (err) {
		elf_plt_free(l.e, l.n);
		return err;
	}
	if (l.n)	/* l.e is NULL without entries: qsort() may not take it */
		qsort(l.e, l.n, sizeof(*l.e), ep_ent_cmp);
	*out = l.e;
	*n = l.n;
	return 0;
}

void elf_plt_free(struct elf_plt_ent *e, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(e[i].name);
	free(e);
}

const struct elf_plt_ent *elf_plt_find(const struct elf_plt_ent *e, size_t n,
				       uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {	/* the first entry past @addr */
		size_t mid = lo + (hi - lo) / 2;

		if (e[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= e[lo - 1].addr + e[lo - 1].size)
		return NULL;
	return &e[lo - 1];
}
