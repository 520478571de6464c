// SPDX-License-Identifier: GPL-2.0
/*
 * A file's lines split by a key column (not traced), for the exact_* and
 * follow_* tests:
 *   exact_split PREFIX KEY VAL [RUN] < FILE
 * writes field VAL of each line to PREFIX.K, where K is the line's field
 * KEY (fields: 1 is the first, separated by blanks as awk's are; a
 * missing one is empty), as awk '{ print $VAL > PREFIX "." $KEY }' does.
 * With RUN, prints "K N" for each key K, in the order first seen: N is
 * the number of stretches of its lines with the same field RUN (a thread's
 * stretches on a CPU, RUN being the CPU column of the truth).
 *
 * In C: busybox awk writes each line it prints with a system call of its
 * own, ~300 us a line under TCG, seconds for a truth of tens of
 * thousands of instructions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_KEYS 256
#define MAX_FIELD 64

struct key {
	char name[MAX_FIELD];
	char run[MAX_FIELD];
	unsigned long runs;
	FILE *f;
};

static struct key keys[MAX_KEYS];
static size_t nkeys;

/* Field @n (1-based) of @line into @out (empty when there is none). */
static void field(const char *line, int n, char *out)
{
	const char *p = line, *s;
	size_t len;

	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		s = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (s == p || --n == 0)
			break;
	}
	len = (size_t)(p - s);
	if (len >= MAX_FIELD)
		len = MAX_FIELD - 1;
	memcpy(out, s, len);
	out[len] = 0;
}

static struct key *key_get(const char *prefix, const char *name)
{
	char path[4096];
	size_t i;

	for (i = 0; i < nkeys; i++)
		if (!strcmp(keys[i].name, name))
			return &keys[i];
	if (nkeys == MAX_KEYS) {
		fprintf(stderr, "exact_split: more than %d keys\n", MAX_KEYS);
		exit(2);
	}
	snprintf(path, sizeof(path), "%s.%s", prefix, name);
	keys[nkeys].f = fopen(path, "w");
	if (!keys[nkeys].f) {
		perror(path);
		exit(2);
	}
	strcpy(keys[nkeys].name, name);
	return &keys[nkeys++];
}

int main(int argc, char **argv)
{
	int kcol, vcol, rcol = 0, rc = 0;
	char k[MAX_FIELD], v[MAX_FIELD], r[MAX_FIELD];
	struct key *last = NULL;
	char *line = NULL;
	size_t cap = 0, i;
	ssize_t n;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: exact_split PREFIX KEY VAL [RUN] < FILE\n");
		return 2;
	}
	kcol = atoi(argv[2]);
	vcol = atoi(argv[3]);
	if (argc == 5)
		rcol = atoi(argv[4]);
	while ((n = getline(&line, &cap, stdin)) > 0) {
		if (line[n - 1] == '\n')
			line[n - 1] = 0;
		field(line, kcol, k);
		field(line, vcol, v);
		/* a thread's lines come in runs: the last key first */
		if (!last || strcmp(last->name, k))
			last = key_get(argv[1], k);
		fprintf(last->f, "%s\n", v);
		if (rcol) {
			field(line, rcol, r);
			if (!last->runs || strcmp(last->run, r)) {
				last->runs++;
				strcpy(last->run, r);
			}
		}
	}
	free(line);
	for (i = 0; i < nkeys; i++) {
		if (fclose(keys[i].f))
			rc = 1;
		if (rcol)
			printf("%s %lu\n", keys[i].name, keys[i].runs);
	}
	return rc;
}
