// SPDX-License-Identifier: GPL-2.0
/*
 * A file's lines split by a key column (not traced), for the exact_* and
 * follow_* tests:
 *   exact_split [-s COL] [-u COL:PREFIX2]... PREFIX KEY VAL [RUN] < FILE
 * writes field VAL of each line to PREFIX.K, where K is the line's field
 * KEY (fields: 1 is the first, separated by blanks as awk's are; a
 * missing one is empty), as awk '{ print $VAL > PREFIX "." $KEY }' does.
 * With RUN, prints "K N" for each key K, in the order first seen: N is
 * the number of stretches of its lines with the same field RUN (a thread's
 * stretches on a CPU, RUN being the CPU column of the truth).
 *
 * -s COL: each key's lines in the order of their field COL, compared
 * byte by byte, equal ones in the file's order: what the split of
 * 'sort -s -kCOL,COL FILE' writes (for lines whose fields are separated
 * by one blank, as exact_perf_parse's are; the stretches of RUN are
 * counted in that order too).  The lines are kept in memory.
 * -u COL:PREFIX2 (up to 8): also field COL of each line to PREFIX2.K,
 * leaving out a value equal to the one written last to that file, as
 * uniq does: e.g. the CPUs of a thread's stretches, or its PIDs.
 *
 * In C: busybox awk writes each line it prints with a system call of its
 * own, ~300 us a line under TCG, seconds for a truth of tens of
 * thousands of instructions; busybox sort of a decode of 200,000 lines
 * took most of the 24 s of a test, and sort -u of each thread's CPUs and
 * of the whole files' PIDs more.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_KEYS 256
#define MAX_FIELD 64
#define MAX_UNIQ 8

struct out {
	FILE *f;
	char last[MAX_FIELD];
	int any;
};

struct line {
	size_t off;		/* in text[] */
	const char *sk;		/* field COL of -s */
	size_t sklen;
};

struct key {
	char name[MAX_FIELD];
	char run[MAX_FIELD];
	unsigned long runs;
	struct out val;
	struct out uniq[MAX_UNIQ];
	struct line *lines;	/* -s: kept until the end, in the file's order */
	size_t nlines, cap;
};

static struct key keys[MAX_KEYS];
static size_t nkeys;
static const char *prefix;
static int kcol, vcol, rcol, scol;
static struct {
	int col;
	const char *prefix;
} uniq[MAX_UNIQ];
static int nuniq;
static char *text;		/* -s: every line, NUL-terminated */
static size_t text_len, text_cap;

/* Where field @n (1-based) of @line starts, its length in @len. */
static const char *field_at(const char *line, int n, size_t *len)
{
	const char *p = line, *s;

	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		s = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (s == p || --n == 0)
			break;
	}
	*len = (size_t)(p - s);
	return s;
}

/* Field @n (1-based) of @line into @out (empty when there is none). */
static void field(const char *line, int n, char *out)
{
	size_t len;
	const char *s = field_at(line, n, &len);

	if (len >= MAX_FIELD)
		len = MAX_FIELD - 1;
	memcpy(out, s, len);
	out[len] = 0;
}

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static FILE *open_out(const char *pfx, const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s.%s", pfx, name);
	f = fopen(path, "w");
	if (!f)
		die(path);
	return f;
}

static struct key *key_get(const char *name)
{
	struct key *k;
	size_t i;
	int u;

	for (i = 0; i < nkeys; i++)
		if (!strcmp(keys[i].name, name))
			return &keys[i];
	if (nkeys == MAX_KEYS) {
		fprintf(stderr, "exact_split: more than %d keys\n", MAX_KEYS);
		exit(2);
	}
	k = &keys[nkeys++];
	strcpy(k->name, name);
	k->val.f = open_out(prefix, name);
	for (u = 0; u < nuniq; u++)
		k->uniq[u].f = open_out(uniq[u].prefix, name);
	return k;
}

/* @v to @o, left out when @uniq and the last one written was @v. */
static void put(struct out *o, const char *v, int uniq)
{
	if (uniq && o->any && !strcmp(o->last, v))
		return;
	if (uniq) {
		strcpy(o->last, v);
		o->any = 1;
	}
	fputs(v, o->f);
	putc('\n', o->f);
}

/* One of @k's lines, in its order. */
static void emit(struct key *k, const char *line)
{
	char v[MAX_FIELD];
	int u;

	field(line, vcol, v);
	put(&k->val, v, 0);
	for (u = 0; u < nuniq; u++) {
		field(line, uniq[u].col, v);
		put(&k->uniq[u], v, 1);
	}
	if (rcol) {
		field(line, rcol, v);
		if (!k->runs || strcmp(k->run, v)) {
			k->runs++;
			strcpy(k->run, v);
		}
	}
}

/* -s's order of two lines: their fields COL, byte by byte. */
static int line_cmp(const struct line *x, const struct line *y)
{
	size_t n = x->sklen < y->sklen ? x->sklen : y->sklen;
	int c = memcmp(x->sk, y->sk, n);

	if (c)
		return c;
	return x->sklen < y->sklen ? -1 : x->sklen > y->sklen;
}

/* Where the run of lines in order that starts at @i ends. */
static size_t run_end(const struct line *a, size_t i, size_t n)
{
	for (i++; i < n && line_cmp(&a[i - 1], &a[i]) <= 0; i++)
		;
	return i;
}

/*
 * @a sorted stably: a natural merge sort, adjacent runs in order merged
 * (the first's line first when equal) until one is left.  A decode's
 * lines of a thread come in a few such runs (one a CPU's trace), so
 * this takes a pass or two where qsort took ~20 comparisons a line.
 */
static void sort_lines(struct line *a, size_t n, struct line *tmp)
{
	size_t lo, mid, hi, i, j, o;
	int again;

	do {
		again = 0;
		for (lo = 0; lo < n; lo = hi) {
			mid = run_end(a, lo, n);
			if (mid == n)
				break;
			hi = run_end(a, mid, n);
			for (i = lo, j = mid, o = 0; i < mid || j < hi; o++)
				if (j == hi || (i < mid && line_cmp(&a[i], &a[j]) <= 0))
					tmp[o] = a[i++];
				else
					tmp[o] = a[j++];
			memcpy(&a[lo], tmp, o * sizeof(*a));
			again = 1;
		}
	} while (again);
}

/* -s: @line (@len bytes, NUL-terminated) kept for its key @k. */
static void keep(struct key *k, const char *line, size_t len)
{
	if (k->nlines == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 1024;
		k->lines = realloc(k->lines, k->cap * sizeof(*k->lines));
		if (!k->lines)
			die("exact_split");
	}
	while (text_len + len + 1 > text_cap) {
		text_cap = text_cap ? 2 * text_cap : 1 << 20;
		text = realloc(text, text_cap);
		if (!text)
			die("exact_split");
	}
	k->lines[k->nlines++].off = text_len;
	memcpy(text + text_len, line, len + 1);
	text_len += len + 1;
}

/* -s: @k's lines in order of their field COL, written. */
static void emit_sorted(struct key *k)
{
	struct line *tmp = malloc((k->nlines + 1) * sizeof(*tmp));
	size_t j;

	if (!tmp)
		die("exact_split");
	for (j = 0; j < k->nlines; j++)
		k->lines[j].sk = field_at(text + k->lines[j].off, scol,
					  &k->lines[j].sklen);
	sort_lines(k->lines, k->nlines, tmp);
	for (j = 0; j < k->nlines; j++)
		emit(k, text + k->lines[j].off);
	free(tmp);
	free(k->lines);
}

static void bad_args(void)
{
	fprintf(stderr, "usage: exact_split [-s COL] [-u COL:PREFIX]... %s\n",
		"PREFIX KEY VAL [RUN] < FILE");
	exit(2);
}

int main(int argc, char **argv)
{
	char k[MAX_FIELD];
	struct key *last = NULL;
	char *line = NULL, *colon;
	size_t cap = 0, i;
	int a = 1, u, rc = 0;
	ssize_t n;

	for (; a < argc && argv[a][0] == '-' && argv[a][1]; a += 2) {
		if (a + 1 >= argc)
			bad_args();
		if (!strcmp(argv[a], "-s")) {
			scol = atoi(argv[a + 1]);
		} else if (!strcmp(argv[a], "-u") && nuniq < MAX_UNIQ) {
			colon = strchr(argv[a + 1], ':');
			if (!colon)
				bad_args();
			uniq[nuniq].col = atoi(argv[a + 1]);
			uniq[nuniq++].prefix = colon + 1;
		} else {
			bad_args();
		}
	}
	if (argc - a != 3 && argc - a != 4)
		bad_args();
	prefix = argv[a];
	kcol = atoi(argv[a + 1]);
	vcol = atoi(argv[a + 2]);
	if (argc - a == 4)
		rcol = atoi(argv[a + 3]);
	while ((n = getline(&line, &cap, stdin)) > 0) {
		if (line[n - 1] == '\n')
			line[--n] = 0;
		field(line, kcol, k);
		/* a thread's lines come in runs: the last key first */
		if (!last || strcmp(last->name, k))
			last = key_get(k);
		if (scol)
			keep(last, line, (size_t)n);
		else
			emit(last, line);
	}
	free(line);
	for (i = 0; i < nkeys; i++) {
		if (scol)
			emit_sorted(&keys[i]);
		if (fclose(keys[i].val.f))
			rc = 1;
		for (u = 0; u < nuniq; u++)
			if (fclose(keys[i].uniq[u].f))
				rc = 1;
		if (rcol)
			printf("%s %lu\n", keys[i].name, keys[i].runs);
	}
	return rc;
}
