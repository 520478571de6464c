// SPDX-License-Identifier: GPL-2.0
/*
 * Reader of sideband.perf (see perfsb.h).  The records are the kernel's
 * own (struct perf_event_header, body, sample_id trailer); this decodes
 * the few types a PT decoder needs and names the others by number.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include "perfsb.h"

int ptpsb_load(const char *path, struct ptpsb_file *f)
{
	FILE *in = fopen(path, "re");
	size_t cap = 0, n;
	int err = 0;

	memset(f, 0, sizeof(*f));
	if (!in)
		return -errno;
	for (;;) {
		if (f->len == cap) {
			uint8_t *b = realloc(f->buf, cap ? 2 * cap : 65536);

			if (!b) {
				err = -ENOMEM;
				break;
			}
			f->buf = b;
			cap = cap ? 2 * cap : 65536;
		}
		n = fread(f->buf + f->len, 1, cap - f->len, in);
		f->len += n;
		if (!n) {
			if (ferror(in))
				err = -EIO;
			break;
		}
	}
	fclose(in);
	if (!err && (f->len < sizeof(f->hdr) ||
		     memcmp(f->buf, PTPSB_MAGIC, sizeof(f->hdr.magic))))
		err = -EINVAL;
	if (!err) {
		memcpy(&f->hdr, f->buf, sizeof(f->hdr));
		if (f->hdr.version > PTPSB_VERSION)
			err = -EPROTO;
		else if (f->hdr.header_size < sizeof(f->hdr) ||
			 f->hdr.header_size > f->len)
			err = -EINVAL;
	}
	if (err)
		ptpsb_free(f);
	return err;
}

void ptpsb_free(struct ptpsb_file *f)
{
	free(f->buf);
	f->buf = NULL;
	f->len = 0;
}

/* Bytes of the sample_id trailer for @st (perf_event.h's order). */
size_t ptpsb_id_size(uint64_t st)
{
	size_t n = 0;

	n += st & PERF_SAMPLE_TID ? 8 : 0;
	n += st & PERF_SAMPLE_TIME ? 8 : 0;
	n += st & PERF_SAMPLE_ID ? 8 : 0;
	n += st & PERF_SAMPLE_STREAM_ID ? 8 : 0;
	n += st & PERF_SAMPLE_CPU ? 8 : 0;
	n += st & PERF_SAMPLE_IDENTIFIER ? 8 : 0;
	return n;
}

static void ptpsb_parse_id(const uint8_t *p, uint64_t st,
			   struct ptpsb_event *ev)
{
	if (st & PERF_SAMPLE_TID) {
		memcpy(&ev->pid, p, 4);
		memcpy(&ev->tid, p + 4, 4);
		p += 8;
	}
	if (st & PERF_SAMPLE_TIME) {
		memcpy(&ev->time, p, 8);
		p += 8;
	}
	p += st & PERF_SAMPLE_ID ? 8 : 0;
	p += st & PERF_SAMPLE_STREAM_ID ? 8 : 0;
	if (st & PERF_SAMPLE_CPU)
		memcpy(&ev->cpu, p, 4);
}

/* A NUL-terminated string inside [p, end), or NULL. */
static const char *ptpsb_str(const uint8_t *p, const uint8_t *end)
{
	if (p >= end || !memchr(p, 0, (size_t)(end - p)))
		return NULL;
	return (const char *)p;
}

/* The body of @ev's type in [b, end): 0 or -EINVAL. */
static int ptpsb_parse_body(const uint8_t *b, const uint8_t *end,
			    struct ptpsb_event *ev)
{
	size_t n = (size_t)(end - b);

	switch (ev->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		if (n < 32 + (ev->type == PERF_RECORD_MMAP2 ? 32 : 0))
			return -EINVAL;
		memcpy(&ev->bpid, b, 4);
		memcpy(&ev->btid, b + 4, 4);
		memcpy(&ev->addr, b + 8, 8);
		memcpy(&ev->len, b + 16, 8);
		memcpy(&ev->pgoff, b + 24, 8);
		b += 32;
		if (ev->type == PERF_RECORD_MMAP2) {
			if ((ev->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) &&
			    b[0] <= sizeof(ev->build_id)) {
				ev->build_id_size = b[0];
				memcpy(ev->build_id, b + 4, b[0]);
			}
			memcpy(&ev->prot, b + 24, 4);
			memcpy(&ev->mflags, b + 28, 4);
			b += 32;
		}
		ev->name = ptpsb_str(b, end);
		return ev->name ? 0 : -EINVAL;
	case PERF_RECORD_COMM:
		if (n < 8)
			return -EINVAL;
		memcpy(&ev->bpid, b, 4);
		memcpy(&ev->btid, b + 4, 4);
		ev->name = ptpsb_str(b + 8, end);
		return ev->name ? 0 : -EINVAL;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (n < 16)
			return -EINVAL;
		memcpy(&ev->bpid, b, 4);
		memcpy(&ev->ppid, b + 4, 4);
		memcpy(&ev->btid, b + 8, 4);
		memcpy(&ev->ptid, b + 12, 4);
		return 0;
	case PERF_RECORD_SWITCH_CPU_WIDE:
		if (n < 8)
			return -EINVAL;
		memcpy(&ev->ppid, b, 4);
		memcpy(&ev->ptid, b + 4, 4);
		return 0;
	case PERF_RECORD_LOST:
		if (n < 16)
			return -EINVAL;
		memcpy(&ev->lost, b + 8, 8);
		return 0;
	default:
		return 0;
	}
}

int ptpsb_next(const struct ptpsb_file *f, size_t *pos,
	       struct ptpsb_event *ev)
{
	struct perf_event_header h;
	size_t at = *pos < f->hdr.header_size ? f->hdr.header_size : *pos;
	size_t idn = ptpsb_id_size(f->hdr.sample_type);
	const uint8_t *b, *end;

	if (at >= f->len)
		return 0;
	if (f->len - at < sizeof(h))
		return -EINVAL;
	memcpy(&h, f->buf + at, sizeof(h));
	if (h.size < sizeof(h) + idn || h.size > f->len - at)
		return -EINVAL;
	memset(ev, 0, sizeof(*ev));
	ev->type = h.type;
	ev->misc = h.misc;
	b = f->buf + at + sizeof(h);
	end = f->buf + at + h.size - idn;
	ptpsb_parse_id(end, f->hdr.sample_type, ev);
	if (ptpsb_parse_body(b, end, ev))
		return -EINVAL;
	*pos = at + h.size;
	return 1;
}

/* perf's perf_time_to_tsc(): the inverse of the mmap page's formula. */
int ptpsb_tsc(const struct ptpsb_header *h, uint64_t time, uint64_t *tsc)
{
	uint64_t t, quot, rem;

	/* a shift of 64 or more: not a mmap page's (a damaged file) */
	if (h->clock != PTPSB_CLOCK_PERF || !(h->flags & PTPSB_TIME_ZERO) ||
	    !h->time_mult || h->time_shift >= 64)
		return -ENODATA;
	t = time - h->time_zero;
	quot = t / h->time_mult;
	rem = t % h->time_mult;
	*tsc = (quot << h->time_shift) + (rem << h->time_shift) / h->time_mult;
	return 0;
}

static const char *ptpsb_type_name(uint32_t type)
{
	switch (type) {
	case PERF_RECORD_MMAP: return "mmap";
	case PERF_RECORD_MMAP2: return "mmap2";
	case PERF_RECORD_COMM: return "comm";
	case PERF_RECORD_FORK: return "fork";
	case PERF_RECORD_EXIT: return "exit";
	case PERF_RECORD_LOST: return "lost";
	case PERF_RECORD_SWITCH: return "switch";
	case PERF_RECORD_SWITCH_CPU_WIDE: return "switch";
	default: return NULL;
	}
}

void ptpsb_print(FILE *out, const struct ptpsb_header *h,
		 const struct ptpsb_event *ev)
{
	const char *name = ptpsb_type_name(ev->type);
	int out_sw = !!(ev->misc & PERF_RECORD_MISC_SWITCH_OUT);
	uint64_t tsc;
	int i;

	if (ptpsb_tsc(h, ev->time, &tsc))
		fputs("-", out);
	else
		fprintf(out, "%llu", (unsigned long long)tsc);
	fprintf(out, " %llu %u %u %u ", (unsigned long long)ev->time, ev->cpu,
		ev->pid, ev->tid);
	if (name)
		fputs(name, out);
	else
		fprintf(out, "type%u", ev->type);
	switch (ev->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		fprintf(out, " %u %u 0x%llx 0x%llx 0x%llx %c%c%c ", ev->bpid,
			ev->btid, (unsigned long long)ev->addr,
			(unsigned long long)ev->len,
			(unsigned long long)ev->pgoff, ev->prot & 1 ? 'r' : '-',
			ev->prot & 2 ? 'w' : '-', ev->prot & 4 ? 'x' : '-');
		if (!ev->build_id_size)
			fputc('-', out);
		for (i = 0; i < ev->build_id_size; i++)
			fprintf(out, "%02x", ev->build_id[i]);
		fprintf(out, " %s", ev->name);
		break;
	case PERF_RECORD_COMM:
		fprintf(out, " %u %u %s %s", ev->bpid, ev->btid,
			ev->misc & PERF_RECORD_MISC_COMM_EXEC ? "exec" : "-",
			ev->name);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		fprintf(out, " %u %u %u %u", ev->bpid, ev->btid, ev->ppid,
			ev->ptid);
		break;
	case PERF_RECORD_SWITCH:
		fprintf(out, " %s%s", out_sw ? "out" : "in",
			out_sw && (ev->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) ?
			" preempt" : "");
		break;
	case PERF_RECORD_SWITCH_CPU_WIDE:
		/* the task switched to (out) or from (in) */
		fprintf(out, " %s %u %u%s", out_sw ? "out" : "in", ev->ppid,
			ev->ptid,
			out_sw && (ev->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) ?
			" preempt" : "");
		break;
	case PERF_RECORD_LOST:
		fprintf(out, " %llu", (unsigned long long)ev->lost);
		break;
	}
}

struct ptpsb_sorted {
	uint64_t time;
	size_t pos, seq;
};

static int ptpsb_cmp(const void *a, const void *b)
{
	const struct ptpsb_sorted *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int ptpsb_write_text(const struct ptpsb_file *f, FILE *out)
{
	struct ptpsb_sorted *s = NULL;
	size_t n = 0, cap = 0, pos = 0, i;
	struct ptpsb_event ev;
	int r;

	for (;;) {
		size_t at = pos;

		r = ptpsb_next(f, &pos, &ev);
		if (r <= 0)
			break;
		if (n == cap) {
			struct ptpsb_sorted *t;

			cap = cap ? 2 * cap : 1024;
			t = realloc(s, cap * sizeof(*s));
			if (!t) {
				free(s);
				return -ENOMEM;
			}
			s = t;
		}
		s[n].time = ev.time;
		s[n].pos = at;
		s[n].seq = n;
		n++;
	}
	/* Each CPU's ring is in time order; the file is ring after ring. */
	if (n)
		qsort(s, n, sizeof(*s), ptpsb_cmp);
	fprintf(out, "# pt-trace sideband.perf %u, clock %s%s\n"
		"# tsc time cpu pid tid event ...\n", f->hdr.version,
		f->hdr.clock == PTPSB_CLOCK_PERF ? "perf" : "monotonic",
		ptpsb_tsc(&f->hdr, 0, &(uint64_t){ 0 }) ?
		" (no exact TSC: cap_user_time_zero unset)" : "");
	for (i = 0; i < n; i++) {
		pos = s[i].pos;
		if (ptpsb_next(f, &pos, &ev) != 1)
			break;
		ptpsb_print(out, &f->hdr, &ev);
		fputc('\n', out);
	}
	free(s);
	if (r < 0)
		fputs("# the file ends in a malformed record\n", out);
	return r < 0 ? r : 0;
}
