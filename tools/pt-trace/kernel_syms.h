/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel symbols for decode, from the recording's copy of /proc/kallsyms
 * (kernel_image.h): the text symbols of the kernel and of its modules,
 * each as an elf_sym whose dso is [kernel.kallsyms] or [MODULE], as
 * perf names them.  One table serves every address space.
 */
#ifndef PT_TRACE_KERNEL_SYMS_H
#define PT_TRACE_KERNEL_SYMS_H

#include <stddef.h>
#include <stdint.h>

#include "elf_image.h"

struct kernel_syms {
	struct elf_sym *sym;	/* by address */
	size_t n;
	char *names;		/* every name and dso, one allocation each */
};

/* Load @path: 0, -ENOENT (no text symbol: kptr_restrict) or -errno. */
int ksyms_load(struct kernel_syms *ks, const char *path);
/* The symbol holding @addr, or NULL. */
const struct elf_sym *ksyms_lookup(const struct kernel_syms *ks,
				   uint64_t addr);
void ksyms_free(struct kernel_syms *ks);

/* Kernel addresses: the upper half of the canonical address space. */
static inline int ksyms_kernel_ip(uint64_t ip)
{
	return (int64_t)ip < 0;
}

#endif /* PT_TRACE_KERNEL_SYMS_H */
