/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The PLT entries of an x86-64 ELF file, named as objdump and perf name
 * them ("qsort@plt"): a program's every call into a shared library goes
 * through one, and no symbol table covers them.
 */
#ifndef PT_TRACE_ELF_PLT_H
#define PT_TRACE_ELF_PLT_H

#include <stddef.h>
#include <stdint.h>

#include <gelf.h>

/* libelf's Elf, named by the function that returns it (no CamelCase). */
#define elf_plt_elf	__typeof__(elf_begin(0, ELF_C_NULL, NULL))

struct elf_plt_ent {
	uint64_t addr;		/* the entry's address, @bias added */
	uint64_t size;
	char *name;		/* its symbol's (printed "NAME@plt"), malloc'ed */
};

/*
 * The named entries of @elf's .plt, .plt.sec and .plt.got sections at
 * @bias, sorted by address, into *@out (*@n of them; free with
 * elf_plt_free()).  0, or -ENOMEM.  A file without them gives none.
 */
int elf_plt_entries(elf_plt_elf elf, uint64_t bias, struct elf_plt_ent **out,
		    size_t *n);
void elf_plt_free(struct elf_plt_ent *e, size_t n);
/* The entry of @e[@n] that holds @addr, or NULL. */
const struct elf_plt_ent *elf_plt_find(const struct elf_plt_ent *e, size_t n,
				       uint64_t addr);

#endif /* PT_TRACE_ELF_PLT_H */
