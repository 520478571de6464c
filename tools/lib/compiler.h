/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few kernel-style helpers the tools use, so that user code reads
 * like the module and passes the same checkpatch rules.
 */
#ifndef PT_TRACE_COMPILER_H
#define PT_TRACE_COMPILER_H

/* GCC's attribute syntax, spelled once; the named helpers use it. */
#define __pt_attribute(list)	__attribute__(list)

#ifndef __printf
#define __printf(a, b)	__pt_attribute((__format__(__printf__, a, b)))
#endif

#ifndef BIT
#define BIT(nr)		(1UL << (nr))
#endif
#ifndef BIT_ULL
#define BIT_ULL(nr)	(1ULL << (nr))
#endif

#ifndef likely
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#endif

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

#endif /* PT_TRACE_COMPILER_H */
