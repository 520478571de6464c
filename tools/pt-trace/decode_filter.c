// SPDX-License-Identifier: GPL-2.0
/*
 * decode's filters (see decode_filter.h): parsing the options, and the
 * tests decode makes per trace (CPU) and per instruction (task, time).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "decode_filter.h"

int dflt_parse_ids(const char *s, int *ids, size_t *n)
{
	const char *p = s;

	do {
		char *end;
		long v = strtol(p, &end, 10);

		if (end == p || v < 0 || v > INT32_MAX ||
		    (*end && *end != ',') || *n == DFLT_MAX_IDS)
			return -EINVAL;
		ids[(*n)++] = (int)v;
		p = *end ? end + 1 : end;
	} while (*p);
	return p[-1] == ',' ? -EINVAL : 0;
}

int dflt_parse_cpus(struct decode_filter *f, const char *s)
{
	const char *p = s;

	do {
		char *end;
		long a = strtol(p, &end, 10), b = a, c;

		if (end == p || a < 0 || a > 4095)
			return -EINVAL;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p || b < a || b > 4095)
				return -EINVAL;
		}
		if (*end && *end != ',')
			return -EINVAL;
		if (!f->cpus) {
			f->cpus = calloc(4096 / 64, sizeof(*f->cpus));
			if (!f->cpus)
				return -ENOMEM;
		}
		for (c = a; c <= b; c++)
			f->cpus[c / 64] |= 1ull << (c % 64);
		p = *end ? end + 1 : end;
	} while (*p);
	return p[-1] == ',' ? -EINVAL : 0;
}

/* "12", "12.5", "12.000000001": nanoseconds. */
static int dflt_parse_seconds(const char *s, size_t len, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0;
	size_t i = 0, digits = 0;

	if (!len)
		return -EINVAL;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		if (sec > UINT64_MAX / 10 / 1000000000)
			return -EINVAL;
		sec = sec * 10 + (uint64_t)(s[i] - '0');
	}
	if (i < len && s[i] == '.') {
		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
			if (digits++ < 9)
				frac = frac * 10 + (uint64_t)(s[i] - '0');
		}
	}
	if (i != len || !i)
		return -EINVAL;
	for (; digits < 9; digits++)
		frac *= 10;
	*ns = sec * 1000000000 + frac;
	return 0;
}

int dflt_parse_time(struct decode_filter *f, const char *s)
{
	const char *comma = strchr(s, ',');

	if (!comma || strchr(comma + 1, ','))
		return -EINVAL;
	f->from_ns = 0;
	f->to_ns = UINT64_MAX;
	if (comma > s && dflt_parse_seconds(s, (size_t)(comma - s), &f->from_ns))
		return -EINVAL;
	if (comma[1] && dflt_parse_seconds(comma + 1, strlen(comma + 1),
					   &f->to_ns))
		return -EINVAL;
	if (f->to_ns < f->from_ns || (comma == s && !comma[1]))
		return -EINVAL;
	f->have_time = 1;
	return 0;
}

int dflt_cpu(const struct decode_filter *f, int cpu)
{
	if (!f->cpus)
		return 1;
	return cpu >= 0 && cpu < 4096 && (f->cpus[cpu / 64] >> (cpu % 64) & 1);
}

static int dflt_in(const int *ids, size_t n, int v)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (ids[i] == v)
			return 1;
	return 0;
}

int dflt_task(const struct decode_filter *f, int pid, int tid)
{
	if (f->npid && !dflt_in(f->pid, f->npid, pid))
		return 0;
	return !f->ntid || dflt_in(f->tid, f->ntid, tid);
}

int dflt_time(const struct decode_filter *f, int have_ns, uint64_t ns)
{
	if (!f->have_time)
		return 1;
	return have_ns && ns >= f->from_ns && ns <= f->to_ns;
}

void dflt_free(struct decode_filter *f)
{
	free(f->cpus);
	f->cpus = NULL;
}
