/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a function of a running process lies: an ELF symbol of its
 * executable or of a library it has mapped (record --stop-at SYMBOL).
 * One function, so that the ELF reading behind it can change.
 */
#ifndef PT_TRACE_REC_SYMBOL_H
#define PT_TRACE_REC_SYMBOL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * The first function named @name in @pid's executable mappings (in the
 * order /proc/PID/maps lists them: the executable first): its address
 * range [*start, *end) and the file that holds it, in @file.
 * 0, -ENOENT when no mapped file has it, or -errno.
 */
int rec_symbol_resolve(pid_t pid, const char *name, uint64_t *start,
		       uint64_t *end, char *file, size_t filelen);

#endif /* PT_TRACE_REC_SYMBOL_H */
