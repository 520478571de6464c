/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pt-trace decode --help: the usage text (decode_usage.c).
 */
#ifndef PT_TRACE_DECODE_USAGE_H
#define PT_TRACE_DECODE_USAGE_H

#include <stdio.h>

/* The usage text into @f. */
void decode_usage(FILE *f);

#endif /* PT_TRACE_DECODE_USAGE_H */
