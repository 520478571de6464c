/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host test programs' check: a failed EXPECT(cond, fmt, ...) prints
 * "FAIL cond: message" on stderr and counts in fails; the program exits
 * non-zero when fails is.
 */
#ifndef PTT_HOST_EXPECT_H
#define PTT_HOST_EXPECT_H

#include <stdio.h>

static int fails;

#define EXPECT(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "FAIL %s: ", #cond);		\
			fprintf(stderr, __VA_ARGS__);			\
			fputc('\n', stderr);				\
			fails++;					\
		}							\
	} while (0)

#endif
