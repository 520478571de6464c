/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A large output buffer written with write(2): the dump prints millions
 * of short lines and stdio's per-call locking and formatting would cost
 * more than the decoding itself.
 */
#ifndef PT_TRACE_OUTBUF_H
#define PT_TRACE_OUTBUF_H

#include <stddef.h>
#include <stdint.h>

#include "compiler.h"

/* Room callers may use after ob_reserve() without checking. */
#define OB_LINE_MAX	2048	/* decode --format=perf --insn --lines: ~1200 */

struct outbuf {
	int fd;
	int error;		/* first write error, -errno */
	size_t len;
	size_t cap;
	char *buf;
	/*
	 * Ordered output of decode's threads (decode_par.c): when @turn is
	 * set, the buffer is written only while *turn is @mine, and grows
	 * (is kept for later) otherwise (decode_par.c's workers point it at
	 * a number no segment has: they keep all, dpar_done() writes).
	 */
	const unsigned long *turn;
	unsigned long mine;
};

int ob_init(struct outbuf *ob, int fd, size_t cap);
void ob_flush(struct outbuf *ob);
void ob_free(struct outbuf *ob);

/* Make sure OB_LINE_MAX bytes are free; returns the write position. */
static inline char *ob_reserve(struct outbuf *ob)
{
	if (ob->cap - ob->len < OB_LINE_MAX)
		ob_flush(ob);
	return ob->buf + ob->len;
}

static inline void ob_commit(struct outbuf *ob, const char *end)
{
	ob->len = (size_t)(end - ob->buf);
}

void ob_puts(struct outbuf *ob, const char *s);
void ob_write(struct outbuf *ob, const char *p, size_t n);
void ob_printf(struct outbuf *ob, const char *fmt, ...)
	__printf(2, 3);

#endif /* PT_TRACE_OUTBUF_H */
