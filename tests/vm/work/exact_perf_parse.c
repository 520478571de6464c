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

static void parse_line(char *line)
{
	const char *fs[NF] = { "", "", "", "", "" }, *slash, *dot;
	size_t fl[NF] = { 0 }, sl, pad;
	char *p = line;
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
	printf("%lld %lld ", awk_num(fs[1], (size_t)(slash - fs[1])),
	       awk_num(slash + 1, fl[1] - (size_t)(slash - fs[1]) - 1));
	/* split(SEC.NSEC, ts, "."): ts[1] as %012d, ts[2] as it is */
	sl = fl[3] - 1;
	dot = memchr(fs[3], '.', sl);
	if (dot) {
		const char *end = memchr(dot + 1, '.', sl - (size_t)(dot + 1 - fs[3]));
		size_t n2 = end ? (size_t)(end - dot - 1) :
				  sl - (size_t)(dot + 1 - fs[3]);

		printf("%012lld.%.*s ", awk_num(fs[3], (size_t)(dot - fs[3])),
		       (int)n2, dot + 1);
	} else {
		printf("%012lld. ", awk_num(fs[3], sl));
	}
	/* sprintf("%16s", $5) with its blanks made zeros */
	for (pad = fl[4]; pad < 16; pad++)
		putchar('0');
	printf("%.*s %.*s\n", (int)fl[4], fs[4], (int)fl[0], fs[0]);
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
	return fflush(stdout) ? 1 : 0;
}
