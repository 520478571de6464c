// SPDX-License-Identifier: GPL-2.0
/*
 * Function spans for the Perfetto / chrome://tracing UI: a span opens at
 * the first instruction after a call and closes at the matching return,
 * so the picture is the call tree over time.  Events are "X" (complete)
 * events in microseconds since the first timestamp of the trace.
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

static void tl_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

int tl_open(struct timeline *tl, const char *path, double ticks_per_us,
	    int tid)
{
	memset(tl, 0, sizeof(*tl));
	tl->f = fopen(path, "we");
	if (!tl->f)
		return -errno;
	tl->first = 1;
	tl->depth = -1;
	tl->ticks_per_us = ticks_per_us > 0 ? ticks_per_us : 1000.0;
	tl->tid = tid;
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", tl->f);
	return 0;
}

static void tl_emit(struct timeline *tl, const struct tl_frame *fr,
		    double end_us)
{
	char name[32];

	if (!fr->name)
		snprintf(name, sizeof(name), "0x%llx",
			 (unsigned long long)fr->addr);
	fprintf(tl->f, "%s\n{\"name\":", tl->first ? "" : ",");
	tl->first = 0;
	tl_json_str(tl->f, fr->name ? fr->name : name);
	fprintf(tl->f, ",\"cat\":\"pt\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,",
		fr->start_us, end_us - fr->start_us);
	fprintf(tl->f, "\"pid\":1,\"tid\":%d,\"args\":{\"addr\":\"0x%llx\"}}",
		tl->tid, (unsigned long long)fr->addr);
}

static void tl_push(struct timeline *tl, const struct elf_symtab *st,
		    uint64_t ip, double now)
{
	const struct elf_sym *s = st ? elf_symtab_lookup(st, ip) : NULL;
	struct tl_frame *fr;

	if (tl->depth + 1 >= TL_MAX_DEPTH)
		return;
	fr = &tl->stack[++tl->depth];
	fr->name = s ? s->name : NULL;
	fr->addr = s ? s->addr : ip;
	fr->start_us = now;
}

void tl_insn(struct timeline *tl, const struct elf_symtab *st,
	     const struct pt_insn *insn, uint64_t tsc, int have_tsc)
{
	double now = tl->last_us;

	if (have_tsc) {
		if (!tl->have_tsc0) {
			tl->tsc0 = tsc;
			tl->have_tsc0 = 1;
		}
		if (tsc >= tl->tsc0)
			now = (double)(tsc - tl->tsc0) / tl->ticks_per_us;
		if (now < tl->last_us)
			now = tl->last_us;
		tl->last_us = now;
	}
	/*
	 * A call whose next instruction is the one right after it was not
	 * traced into (a syscall with user-only tracing): no new span.
	 */
	if (tl->depth < 0 ||
	    (tl->pending_call && insn->ip != tl->call_next))
		tl_push(tl, st, insn->ip, now);
	tl->pending_call = 0;
	switch (insn->iclass) {
	case ptic_call:
	case ptic_far_call:
		tl->pending_call = 1;
		tl->call_next = insn->ip + insn->size;
		break;
	case ptic_return:
	case ptic_far_return:
		if (tl->depth >= 0) {
			tl_emit(tl, &tl->stack[tl->depth], now);
			tl->depth--;
		}
		break;
	default:
		break;
	}
}

int tl_close(struct timeline *tl)
{
	int err;

	while (tl->depth >= 0) {
		tl_emit(tl, &tl->stack[tl->depth], tl->last_us);
		tl->depth--;
	}
	fputs("\n]}\n", tl->f);
	err = ferror(tl->f);
	if (fclose(tl->f) || err)
		return -EIO;
	return 0;
}
