// SPDX-License-Identifier: GPL-2.0
/*
 * Buffered output for the hot paths of dump and decode.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "outbuf.h"

int ob_init(struct outbuf *ob, int fd, size_t cap)
{
	if (cap < 4 * OB_LINE_MAX)
		cap = 4 * OB_LINE_MAX;
	ob->buf = malloc(cap);
	if (!ob->buf)
		return -ENOMEM;
	ob->fd = fd;
	ob->error = 0;
	ob->len = 0;
	ob->cap = cap;
	ob->turn = NULL;
	ob->mine = 0;
	return 0;
}

/* Not this buffer's turn to be written: make room instead. */
static int ob_keep(struct outbuf *ob)
{
	char *n;

	if (!ob->turn || __atomic_load_n(ob->turn, __ATOMIC_ACQUIRE) == ob->mine)
		return 0;
	if (ob->cap - ob->len >= OB_LINE_MAX)
		return 1;
	n = realloc(ob->buf, ob->cap * 2);
	if (!n) {
		ob->error = -ENOMEM;
		ob->len = 0;	/* lost; the error says so */
		return 1;
	}
	ob->buf = n;
	ob->cap *= 2;
	return 1;
}

void ob_flush(struct outbuf *ob)
{
	size_t done = 0;

	if (ob_keep(ob))
		return;

	while (done < ob->len && !ob->error) {
		ssize_t n = write(ob->fd, ob->buf + done, ob->len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			ob->error = n < 0 ? -errno : -EIO;
		else
			done += (size_t)n;
	}
	ob->len = 0;
}

void ob_free(struct outbuf *ob)
{
	ob_flush(ob);
	free(ob->buf);
	ob->buf = NULL;
}

void ob_puts(struct outbuf *ob, const char *s)
{
	size_t n = strlen(s);

	while (n) {
		size_t room, chunk;

		ob_reserve(ob);
		room = ob->cap - ob->len;
		chunk = n < room ? n : room;
		memcpy(ob->buf + ob->len, s, chunk);
		ob->len += chunk;
		s += chunk;
		n -= chunk;
	}
}

void ob_printf(struct outbuf *ob, const char *fmt, ...)
{
	char line[OB_LINE_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	ob_puts(ob, line);
}

void ob_write(struct outbuf *ob, const char *p, size_t n)
{
	while (n) {
		char *d = ob_reserve(ob);
		size_t k = ob->cap - ob->len;

		if (k > n)
			k = n;
		memcpy(d, p, k);
		ob->len += k;
		p += k;
		n -= k;
	}
}
