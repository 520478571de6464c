// SPDX-License-Identifier: GPL-2.0
/*
 * kallsyms as a symbol table (see kernel_syms.h).  kallsyms gives no
 * sizes: a symbol ends where the next one starts, and the last one of
 * the kernel or of a module after 4 KiB (no function is placed after
 * them within one page that kallsyms would not name).  Of aliases (one
 * address, several names: _stext and the first function) the last in
 * the file names the address.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_syms.h"

#define KSYMS_LAST_SIZE	4096

static int ksyms_cmp(const void *a, const void *b)
{
	const struct elf_sym *x = a, *y = b;

	/* size holds the file order until sizes are made: aliases keep it */
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->size < y->size ? -1 : x->size > y->size;
}

/* Intern @s in the string pool. */
struct ksyms_pool {
	char *buf;
	size_t len, cap;
};

static long ksyms_intern(struct ksyms_pool *p, const char *s)
{
	size_t n = strlen(s) + 1;
	long at = (long)p->len;

	if (p->len + n > p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 1 << 20;
		char *b;

		while (cap < p->len + n)
			cap *= 2;
		b = realloc(p->buf, cap);
		if (!b)
			return -1;
		p->buf = b;
		p->cap = cap;
	}
	memcpy(p->buf + p->len, s, n);
	p->len += n;
	return at;
}

int ksyms_load(struct kernel_syms *ks, const char *path)
{
	struct ksyms_pool pool = { NULL, 0, 0 };
	FILE *f = fopen(path, "re");
	char line[1024], name[512], mod[256], dso[270];
	size_t cap = 0, i;
	long kdso;

	memset(ks, 0, sizeof(*ks));
	if (!f)
		return -errno;
	kdso = ksyms_intern(&pool, "[kernel.kallsyms]");
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a;
		char type;
		long at, d = kdso;
		int n;

		mod[0] = 0;
		n = sscanf(line, "%llx %c %511s [%255[^]]]", &a, &type, name,
			   mod);
		/*
		 * text, and weak text (W: a __weak function such as
		 * uprobe_get_swbp_addr); not data
		 */
		if (n < 3 || !a || !type || !strchr("tTwW", type))
			continue;
		if (mod[0]) {
			snprintf(dso, sizeof(dso), "[%s]", mod);
			d = ksyms_intern(&pool, dso);
		}
		at = ksyms_intern(&pool, name);
		if (at < 0 || d < 0)
			break;
		if (ks->n == cap) {
			struct elf_sym *s;

			cap = cap ? 2 * cap : 4096;
			s = realloc(ks->sym, cap * sizeof(*s));
			if (!s)
				break;
			ks->sym = s;
		}
		/* offsets for now: the pool moves while it grows */
		ks->sym[ks->n].addr = a;
		ks->sym[ks->n].size = ks->n;
		ks->sym[ks->n].name = (const char *)(uintptr_t)at;
		ks->sym[ks->n].namelen = strlen(name);
		ks->sym[ks->n].dso = (const char *)(uintptr_t)d;
		ks->n++;
	}
	fclose(f);
	ks->names = pool.buf;
	for (i = 0; i < ks->n; i++) {
		ks->sym[i].name = pool.buf + (uintptr_t)ks->sym[i].name;
		ks->sym[i].dso = pool.buf + (uintptr_t)ks->sym[i].dso;
	}
	if (ks->n)	/* ks->sym is NULL without symbols */
		qsort(ks->sym, ks->n, sizeof(*ks->sym), ksyms_cmp);
	for (i = 0; i < ks->n; i++) {
		const struct elf_sym *next = i + 1 < ks->n ? &ks->sym[i + 1] : NULL;

		/* Up to the next symbol of the same file. */
		if (next && !strcmp(next->dso, ks->sym[i].dso))
			ks->sym[i].size = next->addr - ks->sym[i].addr;
		else
			ks->sym[i].size = KSYMS_LAST_SIZE;
	}
	if (!ks->n) {
		ksyms_free(ks);
		return -ENOENT;
	}
	return 0;
}

const struct elf_sym *ksyms_lookup(const struct kernel_syms *ks,
				   uint64_t addr)
{
	size_t lo = 0, hi = ks->n;

	/* The last symbol at or below @addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->sym[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr - ks->sym[lo - 1].addr >= ks->sym[lo - 1].size)
		return NULL;
	return &ks->sym[lo - 1];
}

void ksyms_free(struct kernel_syms *ks)
{
	free(ks->sym);
	free(ks->names);
	memset(ks, 0, sizeof(*ks));
}
