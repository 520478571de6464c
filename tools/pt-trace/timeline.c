// SPDX-License-Identifier: GPL-2.0
/*
 * Function spans for the Perfetto / chrome://tracing UI: a span opens at
 * the first instruction after a call and closes at the matching return,
 * so the picture is the call tree over time, one track per CPU.
 *
 * Spans are "B"/"E" pairs written as they happen, so on each track they
 * are in time order and nest by construction; time never goes back on a
 * track (a timestamp estimated from MTC/CYC may lag the last one).  A gap
 * in the trace ends every open span, because nothing says what ran
 * meanwhile, and is itself a "trace lost" span; a decode error ends them
 * too (the stack after the resync is unknown) and is an instant event.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "decode_out.h"

const char *decode_symbolize(const struct elf_symtab *st, uint64_t ip,
			     char *buf, size_t len)
{
	const struct elf_sym *s = st ? elf_symtab_lookup(st, ip) : NULL;

	if (!s) {
		buf[0] = 0;
		return buf;
	}
	if (ip == s->addr)
		snprintf(buf, len, "%s", s->name);
	else
		snprintf(buf, len, "%s+0x%llx", s->name,
			 (unsigned long long)(ip - s->addr));
	return buf;
}

/* Length of the valid UTF-8 sequence at @s, 0 when it is not one. */
static int tl_utf8_len(const unsigned char *s)
{
	int n, i;

	if (*s < 0x80)
		return 1;
	if ((*s & 0xe0) == 0xc0 && *s >= 0xc2)
		n = 2;
	else if ((*s & 0xf0) == 0xe0)
		n = 3;
	else if ((*s & 0xf8) == 0xf0 && *s <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/*
 * A JSON string.  Symbol and file names are bytes: what is not UTF-8
 * becomes '?', so that the file stays valid JSON.
 */
static void tl_json_str(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', f);
	while (*s) {
		int n = tl_utf8_len(s);

		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if (*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else if (n > 1)
			fwrite(s, 1, (size_t)n, f);
		else
			fputc(n ? *s : '?', f);
		s += n > 1 ? n : 1;
	}
	fputc('"', f);
}

static void tl_sep(struct timeline *tl)
{
	fputs(tl->first ? "\n" : ",\n", tl->f);
	tl->first = 0;
}

/* Microseconds with three decimals, from integer nanoseconds. */
static void tl_ts(FILE *f, int64_t ns)
{
	fprintf(f, "\"ts\":%lld.%03lld", (long long)(ns / 1000),
		(long long)(ns % 1000));
}

int tl_open(struct timeline *tl, const char *path, const char *process)
{
	memset(tl, 0, sizeof(*tl));
	tl->f = fopen(path, "we");
	if (!tl->f)
		return -errno;
	tl->first = 1;
	tl->tsc_hz = 1e9;
	tl->hz_source = "unknown";
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", tl->f);
	tl_sep(tl);
	fputs("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"args\":{\"name\":",
	      tl->f);
	tl_json_str(tl->f, process);
	fputs("}}", tl->f);
	return 0;
}

void tl_set_clock(struct timeline *tl, double tsc_hz, const char *hz_source,
		  uint64_t origin, int have_origin)
{
	tl->tsc_hz = tsc_hz > 0 ? tsc_hz : 1e9;
	tl->hz_source = hz_source;
	tl->origin = origin;
	tl->have_origin = have_origin;
}

void tl_track_init(struct timeline *tl, struct tl_track *t, int tid,
		   const char *name, int64_t tsc_offset)
{
	memset(t, 0, sizeof(*t));
	t->tl = tl;
	t->tid = tid;
	t->tsc_offset = tsc_offset;
	t->depth = -1;
	tl_sep(tl);
	fprintf(tl->f,
		"{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%d,\"args\":{\"name\":",
		tid);
	tl_json_str(tl->f, name);
	fputs("}}", tl->f);
	tl_sep(tl);
	fprintf(tl->f,
		"{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":%d,\"args\":{\"sort_index\":%d}}",
		tid, tid);
}

/* A TSC of this CPU as ns since the origin (may be negative). */
static int64_t tl_tsc_ns(const struct tl_track *t, uint64_t tsc)
{
	const struct timeline *tl = t->tl;
	int64_t d = (int64_t)(tsc - (uint64_t)t->tsc_offset - tl->origin);
	double ns = (double)d * 1e9 / tl->tsc_hz;

	return (int64_t)(ns < 0 ? ns - 0.5 : ns + 0.5);
}

/* Now on this track: never before the last event, never negative. */
static int64_t tl_advance(struct tl_track *t, int64_t ns)
{
	if (ns > t->last_ns)
		t->last_ns = ns;
	return t->last_ns;
}

static void tl_event_head(struct tl_track *t, const char *name,
			  const char *cat, char ph, int64_t ns)
{
	FILE *f = t->tl->f;

	tl_sep(t->tl);
	fputs("{\"name\":", f);
	tl_json_str(f, name);
	fprintf(f, ",\"cat\":\"%s\",\"ph\":\"%c\",", cat, ph);
	tl_ts(f, ns);
	fprintf(f, ",\"pid\":1,\"tid\":%d", t->tid);
}

static void tl_frame_name(const struct tl_frame *fr, char *buf, size_t len)
{
	if (fr->name)
		snprintf(buf, len, "%s", fr->name);
	else
		snprintf(buf, len, "0x%llx", (unsigned long long)fr->addr);
}

static void tl_push(struct tl_track *t, const struct elf_symtab *st,
		    uint64_t ip, int64_t now)
{
	const struct elf_sym *s = st ? elf_symtab_lookup(st, ip) : NULL;
	struct tl_frame *fr;
	char name[256];

	if (t->depth + 1 >= TL_MAX_DEPTH) {
		t->hidden++;
		return;
	}
	fr = &t->stack[++t->depth];
	fr->name = s ? s->name : NULL;
	fr->addr = s ? s->addr : ip;
	tl_frame_name(fr, name, sizeof(name));
	tl_event_head(t, name, "pt", 'B', now);
	fprintf(t->tl->f, ",\"args\":{\"addr\":\"0x%llx\"}}",
		(unsigned long long)fr->addr);
}

static void tl_pop(struct tl_track *t, int64_t now)
{
	char name[256];

	if (t->hidden) {
		t->hidden--;
		return;
	}
	if (t->depth < 0)
		return;
	tl_frame_name(&t->stack[t->depth--], name, sizeof(name));
	tl_event_head(t, name, "pt", 'E', now);
	fputc('}', t->tl->f);
}

static void tl_unwind(struct tl_track *t, int64_t now)
{
	t->hidden = 0;
	while (t->depth >= 0)
		tl_pop(t, now);
	t->pending_call = 0;
}

void tl_insn(struct tl_track *t, const struct elf_symtab *st,
	     const struct pt_insn *insn, uint64_t tsc, int have_tsc)
{
	int64_t now;

	if (!t->tl->have_origin)
		now = tl_advance(t, (int64_t)t->insns);
	else if (have_tsc)
		now = tl_advance(t, tl_tsc_ns(t, tsc));
	else
		now = t->last_ns;
	t->insns++;
	/*
	 * A call whose next instruction is the one right after it was not
	 * traced into (a syscall with user-only tracing): no new span.
	 */
	if ((t->depth < 0 && !t->hidden) ||
	    (t->pending_call && insn->ip != t->call_next))
		tl_push(t, st, insn->ip, now);
	t->pending_call = 0;
	switch (insn->iclass) {
	case ptic_call:
	case ptic_far_call:
		t->pending_call = 1;
		t->call_next = insn->ip + insn->size;
		break;
	case ptic_return:
	case ptic_far_return:
		tl_pop(t, now);
		break;
	default:
		break;
	}
}

void tl_gap(struct tl_track *t, const struct ptl_record *r)
{
	const struct timeline *tl = t->tl;
	uint64_t ns = r->end_ns > r->start_ns ? r->end_ns - r->start_ns : 0;
	int64_t start = t->last_ns, end;
	char flags[128];

	if (tl->have_origin && r->start_tsc)
		start = tl_advance(t, tl_tsc_ns(t, r->start_tsc));
	tl_unwind(t, start);
	end = start;
	if (tl->have_origin && r->end_tsc)
		end = tl_advance(t, tl_tsc_ns(t, r->end_tsc));
	tl_event_head(t, "trace lost", "loss", 'B', start);
	fprintf(tl->f, ",\"args\":{\"offset\":\"0x%llx\",\"bytes\":",
		(unsigned long long)r->offset);
	if (r->bytes_known)
		fprintf(tl->f, "%llu", (unsigned long long)r->bytes);
	else
		fputs("\"unknown\"", tl->f);
	fprintf(tl->f,
		",\"not_traced_ns\":%llu,\"record\":%llu,\"start_tsc\":\"0x%llx\",\"end_tsc\":\"0x%llx\",\"flags\":\"%s\"}}",
		(unsigned long long)ns, (unsigned long long)r->seq,
		(unsigned long long)r->start_tsc,
		(unsigned long long)r->end_tsc,
		ptl_flags_str(r->flags, flags, sizeof(flags)));
	tl_event_head(t, "trace lost", "loss", 'E', end);
	fputc('}', tl->f);
}

void tl_drop(struct tl_track *t, const struct ptl_record *r)
{
	char flags[128];

	tl_event_head(t, "bytes dropped", "loss", 'i', t->last_ns);
	fprintf(t->tl->f,
		",\"s\":\"t\",\"args\":{\"offset\":\"0x%llx\",\"bytes\":%llu,\"record\":%llu,\"flags\":\"%s\",\"note\":\"dropped while tracing ran, somewhere after this point\"}}",
		(unsigned long long)r->offset, (unsigned long long)r->bytes,
		(unsigned long long)r->seq,
		ptl_flags_str(r->flags, flags, sizeof(flags)));
}

void tl_error(struct tl_track *t, uint64_t offset, const char *what,
	      uint64_t tsc, int have_tsc)
{
	if (t->tl->have_origin && have_tsc)
		tl_advance(t, tl_tsc_ns(t, tsc));
	tl_unwind(t, t->last_ns);
	tl_event_head(t, "decode error", "error", 'i', t->last_ns);
	fprintf(t->tl->f, ",\"s\":\"t\",\"args\":{\"offset\":\"0x%llx\",\"error\":",
		(unsigned long long)offset);
	tl_json_str(t->tl->f, what);
	fputs("}}", t->tl->f);
}

void tl_track_end(struct tl_track *t)
{
	tl_unwind(t, t->last_ns);
}

int tl_close(struct timeline *tl)
{
	int err;

	fputs("\n],\"otherData\":{\"generator\":\"pt-trace decode\",\"time\":",
	      tl->f);
	if (tl->have_origin)
		fprintf(tl->f,
			"\"microseconds since TSC 0x%llx, the first timestamp of the traces (on the first traced CPU's TSC)\",\"origin_tsc\":%llu,\"tsc_hz\":%.0f,\"tsc_hz_source\":",
			(unsigned long long)tl->origin,
			(unsigned long long)tl->origin, tl->tsc_hz);
	else
		fputs("\"no timestamps in the trace: 1 ns per instruction\",\"tsc_hz_source\":",
		      tl->f);
	tl_json_str(tl->f, tl->hz_source);
	fputs("}}\n", tl->f);
	err = ferror(tl->f);
	if (fclose(tl->f) || err)
		return -EIO;
	return 0;
}
