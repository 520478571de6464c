// SPDX-License-Identifier: GPL-2.0
/*
 * Writer and reader of the loss file (format in lossfile.h).  The reader
 * is strict about the lines it knows, so that a damaged file is reported
 * instead of silently moving annotations, and skips keywords it does not
 * know, so that later recorders can add lines.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/pt_trace.h>

#include "lossfile.h"

static const struct {
	uint32_t flag;
	const char *name;
} ptl_flag_names[] = {
	{ PT_LOSS_HW_STOP, "hw_stop" },
	{ PT_LOSS_NO_SPACE, "no_space" },
	{ PT_LOSS_HW_ERROR, "hw_error" },
	{ PT_LOSS_BYTES_KNOWN, "bytes_known" },
	{ PT_LOSS_DROPPED, "dropped" },
	{ PT_LOSS_TAKEN_OVER, "taken_over" },
	{ PT_LOSS_THROTTLED, "throttled" },
	{ PTL_FLAG_RESTART, "restart" },
	{ PTL_FLAG_CPU_OFFLINE, "cpu_offline" },
};

const char *ptl_flags_str(uint32_t flags, char *buf, size_t len)
{
	size_t i, at = 0;

	buf[0] = 0;
	for (i = 0; i < ARRAY_SIZE(ptl_flag_names); i++) {
		if (!(flags & ptl_flag_names[i].flag))
			continue;
		flags &= ~ptl_flag_names[i].flag;
		at += (size_t)snprintf(buf + at, len - at, "%s%s",
				       at ? "," : "", ptl_flag_names[i].name);
		if (at >= len)
			return buf;
	}
	if (flags)
		at += (size_t)snprintf(buf + at, len - at, "%s0x%x",
				       at ? "," : "", flags);
	if (!at)
		snprintf(buf, len, "-");
	return buf;
}

const char *ptl_describe(const struct ptl_record *r, char *buf, size_t len)
{
	uint64_t ns = r->end_ns > r->start_ns ? r->end_ns - r->start_ns : 0;
	char flags[128], bytes[48];

	ptl_flags_str(r->flags, flags, sizeof(flags));
	if (r->flags & PT_LOSS_DROPPED) {
		snprintf(buf, len,
			 "%llu bytes dropped while tracing ran, somewhere in the stretch from here (record %llu, stream position 0x%llx, run from tsc 0x%llx to 0x%llx, %s)",
			 (unsigned long long)r->bytes,
			 (unsigned long long)r->seq,
			 (unsigned long long)r->pos,
			 (unsigned long long)r->start_tsc,
			 (unsigned long long)r->end_tsc, flags);
		return buf;
	}
	if (r->bytes_known)
		snprintf(bytes, sizeof(bytes), "%llu bytes lost",
			 (unsigned long long)r->bytes);
	else
		snprintf(bytes, sizeof(bytes), "bytes unknown");
	snprintf(buf, len,
		 "%s, %llu.%06llu ms not traced (record %llu, stream position 0x%llx, tsc 0x%llx-0x%llx, %s)",
		 bytes, (unsigned long long)(ns / 1000000),
		 (unsigned long long)(ns % 1000000),
		 (unsigned long long)r->seq, (unsigned long long)r->pos,
		 (unsigned long long)r->start_tsc,
		 (unsigned long long)r->end_tsc, flags);
	return buf;
}

static int ptl_parse_flags(const char *s, uint32_t *flags)
{
	char buf[256], *tok, *save = NULL, *end;
	size_t i;

	*flags = 0;
	if (!strcmp(s, "-"))
		return 0;
	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < ARRAY_SIZE(ptl_flag_names); i++)
			if (!strcmp(tok, ptl_flag_names[i].name))
				break;
		if (i < ARRAY_SIZE(ptl_flag_names)) {
			*flags |= ptl_flag_names[i].flag;
			continue;
		}
		if (strncmp(tok, "0x", 2))
			return -EINVAL;
		errno = 0;
		*flags |= (uint32_t)strtoul(tok, &end, 16);
		if (errno || *end)
			return -EINVAL;
	}
	return 0;
}

FILE *ptl_create(const char *path, int cpu)
{
	FILE *f = fopen(path, "we");

	if (!f)
		return NULL;
	fprintf(f, "%s\ncpu %d\n"
		"# seq stream_pos file_offset bytes start_ns end_ns start_tsc end_tsc flags\n",
		PTL_MAGIC, cpu);
	return f;
}

void ptl_write(FILE *f, const struct ptl_record *r)
{
	char flags[128], bytes[24];

	if (r->bytes_known)
		snprintf(bytes, sizeof(bytes), "%llu",
			 (unsigned long long)r->bytes);
	else
		snprintf(bytes, sizeof(bytes), "-");
	fprintf(f, "loss %llu %llu %llu %s %llu %llu %llu %llu %s\n",
		(unsigned long long)r->seq, (unsigned long long)r->pos,
		(unsigned long long)r->offset, bytes,
		(unsigned long long)r->start_ns, (unsigned long long)r->end_ns,
		(unsigned long long)r->start_tsc,
		(unsigned long long)r->end_tsc,
		ptl_flags_str(r->flags, flags, sizeof(flags)));
}

void ptl_write_lapped(FILE *f, uint64_t first_seq, uint64_t count)
{
	fprintf(f, "lapped %llu %llu\n", (unsigned long long)first_seq,
		(unsigned long long)count);
}

void ptl_write_end(FILE *f, uint64_t records, uint64_t lapped)
{
	fprintf(f, "end %llu %llu\n", (unsigned long long)records,
		(unsigned long long)lapped);
}

void ptl_add(struct ptl_sum *sum, const struct ptl_record *r)
{
	sum->records++;
	if (r->bytes_known)
		sum->known_bytes += r->bytes;
	else
		sum->unknown++;
	/* A drop's span is the run that lost bytes: it was traced. */
	if (r->end_ns > r->start_ns && !(r->flags & PT_LOSS_DROPPED))
		sum->lost_ns += r->end_ns - r->start_ns;
}

void ptl_sum_file(const struct ptl_file *lf, struct ptl_sum *sum)
{
	size_t i;

	memset(sum, 0, sizeof(*sum));
	for (i = 0; i < lf->n; i++)
		ptl_add(sum, &lf->rec[i]);
	sum->lapped = lf->lapped;
}

static int ptl_u64(const char *s, uint64_t *v)
{
	unsigned long long x;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	*v = x;
	return 0;
}

/* Split @s at blanks into at most @max fields; returns how many. */
static int ptl_split(char *s, char **field, int max)
{
	char *save = NULL, *tok;
	int n = 0;

	for (tok = strtok_r(s, " \t\r\n", &save); tok;
	     tok = strtok_r(NULL, " \t\r\n", &save)) {
		if (n == max)
			return max + 1;
		field[n++] = tok;
	}
	return n;
}

static int ptl_parse_loss(char **f, int n, struct ptl_record *r)
{
	memset(r, 0, sizeof(*r));
	if (n != 10 || ptl_u64(f[1], &r->seq) || ptl_u64(f[2], &r->pos) ||
	    ptl_u64(f[3], &r->offset) || ptl_u64(f[5], &r->start_ns) ||
	    ptl_u64(f[6], &r->end_ns) || ptl_u64(f[7], &r->start_tsc) ||
	    ptl_u64(f[8], &r->end_tsc) || ptl_parse_flags(f[9], &r->flags))
		return -EINVAL;
	if (strcmp(f[4], "-")) {
		if (ptl_u64(f[4], &r->bytes))
			return -EINVAL;
		r->bytes_known = 1;
	}
	return 0;
}

static int ptl_cmp(const void *a, const void *b)
{
	const struct ptl_record *x = a, *y = b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return 0;
}

static int ptl_line(struct ptl_file *lf, char *s, size_t *alloc)
{
	char *f[12];
	uint64_t a, b;
	int n = ptl_split(s, f, 11);

	if (!n || f[0][0] == '#')
		return 0;
	if (!strcmp(f[0], "loss")) {
		if (lf->n == *alloc) {
			size_t na = *alloc ? *alloc * 2 : 64;
			struct ptl_record *r = realloc(lf->rec, na * sizeof(*r));

			if (!r)
				return -ENOMEM;
			lf->rec = r;
			*alloc = na;
		}
		if (ptl_parse_loss(f, n, &lf->rec[lf->n]))
			return -EINVAL;
		lf->n++;
	} else if (!strcmp(f[0], "lapped")) {
		if (n != 3 || ptl_u64(f[1], &a) || ptl_u64(f[2], &b))
			return -EINVAL;
		lf->lapped += b;
	} else if (!strcmp(f[0], "cpu")) {
		if (n != 2 || ptl_u64(f[1], &a) || a > INT32_MAX)
			return -EINVAL;
		lf->cpu = (int)a;
	} else if (!strcmp(f[0], "end")) {
		if (n != 3 || ptl_u64(f[1], &a) || ptl_u64(f[2], &b))
			return -EINVAL;
		lf->complete = 1;
		lf->end_records = a;
	}
	return 0;
}

int ptl_read(const char *path, struct ptl_file *lf, int *line)
{
	char *buf = NULL;
	size_t cap = 0, alloc = 0;
	int err = 0;
	FILE *f;

	memset(lf, 0, sizeof(*lf));
	lf->cpu = -1;
	*line = 0;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (getline(&buf, &cap, f) >= 0) {
		++*line;
		if (*line == 1) {
			buf[strcspn(buf, "\r\n")] = 0;
			if (strcmp(buf, PTL_MAGIC)) {
				err = -EINVAL;
				break;
			}
			continue;
		}
		err = ptl_line(lf, buf, &alloc);
		if (err)
			break;
	}
	if (!err && *line == 0)
		err = -EINVAL;
	free(buf);
	fclose(f);
	if (err) {
		ptl_free(lf);
		return err;
	}
	if (lf->n > 1)
		qsort(lf->rec, lf->n, sizeof(*lf->rec), ptl_cmp);
	return 0;
}

void ptl_free(struct ptl_file *lf)
{
	free(lf->rec);
	lf->rec = NULL;
	lf->n = 0;
}

char *ptl_path_for(const char *trace_path)
{
	size_t n = strlen(trace_path);
	char *p = malloc(n + sizeof(PTL_SUFFIX));

	if (!p)
		return NULL;
	memcpy(p, trace_path, n + 1);
	if (n > 3 && !strcmp(p + n - 3, ".pt"))
		p[n - 3] = 0;
	strcat(p, PTL_SUFFIX);
	return p;
}
