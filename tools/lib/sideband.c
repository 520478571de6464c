// SPDX-License-Identifier: GPL-2.0
/*
 * Reader and writer of the key=value sideband file.  Values are kept as
 * strings; callers convert what they need.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sideband.h"

static char *ptsb_strip(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == '\n' || e[-1] == '\r' || e[-1] == ' ' ||
			 e[-1] == '\t'))
		*--e = 0;
	return s;
}

int ptsb_read(const char *path, struct ptsb *sb)
{
	char *line = NULL;
	size_t cap = 0, alloc = 0;
	int first = 1, err = 0;
	FILE *f;

	sb->ent = NULL;
	sb->n = 0;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) >= 0) {
		char *s = ptsb_strip(line), *eq;

		if (first) {
			first = 0;
			if (strcmp(s, PTSB_MAGIC)) {
				err = -EINVAL;
				break;
			}
			continue;
		}
		if (!*s || *s == '#')
			continue;
		eq = strchr(s, '=');
		if (!eq)
			continue;
		*eq = 0;
		if (sb->n == alloc) {
			struct ptsb_entry *n;

			alloc = alloc ? 2 * alloc : 32;
			n = realloc(sb->ent, alloc * sizeof(*n));
			if (!n) {
				err = -ENOMEM;
				break;
			}
			sb->ent = n;
		}
		sb->ent[sb->n].key = strdup(ptsb_strip(s));
		sb->ent[sb->n].val = strdup(ptsb_strip(eq + 1));
		if (!sb->ent[sb->n].key || !sb->ent[sb->n].val) {
			free(sb->ent[sb->n].key);
			free(sb->ent[sb->n].val);
			err = -ENOMEM;
			break;
		}
		sb->n++;
	}
	if (first && !err)
		err = -EINVAL;
	free(line);
	fclose(f);
	if (err)
		ptsb_free(sb);
	return err;
}

void ptsb_free(struct ptsb *sb)
{
	size_t i;

	for (i = 0; i < sb->n; i++) {
		free(sb->ent[i].key);
		free(sb->ent[i].val);
	}
	free(sb->ent);
	sb->ent = NULL;
	sb->n = 0;
}

const char *ptsb_next(const struct ptsb *sb, const char *key, size_t *pos)
{
	while (*pos < sb->n) {
		const struct ptsb_entry *e = &sb->ent[(*pos)++];

		if (!strcmp(e->key, key))
			return e->val;
	}
	return NULL;
}

const char *ptsb_get(const struct ptsb *sb, const char *key)
{
	size_t pos = 0;

	return ptsb_next(sb, key, &pos);
}

int ptsb_get_u64(const struct ptsb *sb, const char *key, uint64_t *val)
{
	const char *s = ptsb_get(sb, key);
	char *end;

	if (!s || !*s)
		return -ENOENT;
	errno = 0;
	*val = strtoull(s, &end, 0);
	if (errno || *end)
		return -EINVAL;
	return 0;
}

FILE *ptsb_create(const char *path)
{
	FILE *f = fopen(path, "we");

	if (f)
		fprintf(f, "%s\n", PTSB_MAGIC);
	return f;
}

void ptsb_put(FILE *f, const char *key, const char *fmt, ...)
{
	va_list ap;

	fprintf(f, "%s=", key);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
}
