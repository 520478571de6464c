// SPDX-License-Identifier: GPL-2.0
/*
 * exact_tasks.sh's exact_perf_parse (not traced):
 *   exact_perf_parse < 'pt-trace decode --format=perf' output
 * Each instruction line "COMM PID/TID [CPU] SEC.NSEC: IP ..." as
 * "PID TID SEC.NSEC IP COMM": PID and TID as numbers, SEC zero-padded
 * to 12 digits, NSEC as given, IP zero-padded to 16 hex digits (as
 * given when longer). A line is one when its second field is
 * DIGITS/DIGITS and its fourth ends in ':'; fields are separated by
 * blanks (awk's default), the others are left out. The same lines as
 * the busybox awk program this replaces, which took ~320 us a line under
 * TCG (tens of thousands of lines a test: seconds); this takes a few.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NF 5

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * busybox awk's number of a string (its my_strtod()): 0x... is hex, a
 * leading 0 before digits octal (its %d of "0012" prints 10), else the
 * leading decimal number; 0 when none.
 */
static long long awk_num(const char *s, size_t n)
{
	char tmp[64], *end;
	long long v = 0;
	size_t i;

	/* what decode prints: decimal digits, no leading 0 (~1/3 the time) */
	for (i = 0; i < n && i < 18 && s[i] >= '0' && s[i] <= '9'; i++)
		v = v * 10 + (s[i] - '0');
	if (i == n && n && (s[0] != '0' || n == 1))
		return v;

	if (n >= sizeof(tmp))
		n = sizeof(tmp) - 1;
	memcpy(tmp, s, n);
	tmp[n] = 0;
	if (tmp[0] == '0' && ((tmp[1] | 0x20) == 'x' ||
			      (tmp[1] >= '0' && tmp[1] <= '9'))) {
		unsigned long long v = strtoull(tmp, &end, 0);

		if ((tmp[1] | 0x20) == 'x' ||
		    !((*end >= '0' && *end <= '9') || *end == '.'))
			return (long long)v;
	}
	return (long long)strtod(tmp, NULL);
}

static int all_digits(const char *s, size_t n)
{
	size_t i;

	if (!n)
		return 0;
	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

/* "%lld" of @v at @p, zero-padded to @width digits: the end. */
static char *put_num(char *p, long long v, int width)
{
	char tmp[24];
	int n = 0;
	unsigned long long u;

	/* busybox's %d is an int's: out of range, INT_MIN (x86's cvttsd2si) */
	if (v > INT_MAX || v < INT_MIN)
		v = INT_MIN;
	u = v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v;

	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*p++ = '-';	/* as printf: the sign first, then the zeros */
	while (width-- > n + (v < 0))
		*p++ = '0';
	while (n)
		*p++ = tmp[--n];
	return p;
}

static char *put_str(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

static void parse_line(char *line)
{
	const char *fs[NF] = { "", "", "", "", "" }, *slash, *dot;
	size_t fl[NF] = { 0 }, sl, pad;
	char *p = line, *out, *o;
	int nf = 0;

	while (nf < NF) {
		while (is_blank(*p))
			p++;
		if (!*p)
			break;
		fs[nf] = p;
		while (*p && !is_blank(*p))
			p++;
		fl[nf] = (size_t)(p - fs[nf]);
		nf++;
	}
	/* $2 ~ /^[0-9]+\/[0-9]+$/ && $4 ~ /:$/ */
	slash = memchr(fs[1], '/', fl[1]);
	if (!slash || !all_digits(fs[1], (size_t)(slash - fs[1])) ||
	    !all_digits(slash + 1, fl[1] - (size_t)(slash - fs[1]) - 1) ||
	    !fl[3] || fs[3][fl[3] - 1] != ':')
		return;
	/* the fields and at most 3 numbers, 16 zeros and 6 separators */
	out = malloc(fl[0] + fl[3] + fl[4] + 3 * 24 + 16 + 8);
	if (!out) {
		perror("exact_perf_parse");
		exit(2);
	}
	o = put_num(out, awk_num(fs[1], (size_t)(slash - fs[1])), 0);
	*o++ = ' ';
	o = put_num(o, awk_num(slash + 1, fl[1] - (size_t)(slash - fs[1]) - 1), 0);
	*o++ = ' ';
	/* split(SEC.NSEC, ts, "."): ts[1] as %012d, ts[2] as it is */
	sl = fl[3] - 1;
	dot = memchr(fs[3], '.', sl);
	if (dot) {
		const char *end = memchr(dot + 1, '.', sl - (size_t)(dot + 1 - fs[3]));
		size_t n2 = end ? (size_t)(end - dot - 1) :
				  sl - (size_t)(dot + 1 - fs[3]);

		o = put_num(o, awk_num(fs[3], (size_t)(dot - fs[3])), 12);
		*o++ = '.';
		o = put_str(o, dot + 1, n2);
	} else {
		o = put_num(o, awk_num(fs[3], sl), 12);
		*o++ = '.';
	}
	*o++ = ' ';
	/* sprintf("%16s", $5) with its blanks made zeros */
	for (pad = fl[4]; pad < 16; pad++)
		*o++ = '0';
	o = put_str(o, fs[4], fl[4]);
	*o++ = ' ';
	o = put_str(o, fs[0], fl[0]);
	*o++ = '\n';
	fwrite(out, 1, (size_t)(o - out), stdout);
	free(out);
}

int main(void)
{
	static char buf[1 << 16];
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	setvbuf(stdout, buf, _IOFBF, sizeof(buf));
	while ((n = getline(&line, &cap, stdin)) > 0) {
		if (line[n - 1] == '\n')
			line[n - 1] = 0;
		parse_line(line);
	}
	free(line);
	/* a full /tmp: fail, not a short list (that looked like a decoder's) */
	return fflush(stdout) || ferror(stdout) ? 1 : 0;
}
