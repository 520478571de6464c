// SPDX-License-Identifier: GPL-2.0
/*
 * Function spans for Perfetto, chrome://tracing and speedscope (Chrome
 * trace JSON): a span opens at the first instruction after a call and
 * closes at the matching return, so the picture is the call tree over
 * time, one track per thread (pid/tid), or per CPU while the thread is
 * not known.
 *
 * Each span is one "X" (complete) event written when it ends, children
 * before their parent: half the bytes of "B"/"E" pairs, and a span can
 * be left out when it is shorter than --min-duration.  Time never goes
 * back on a track (a timestamp estimated from MTC/CYC may lag the last
 * one), so spans nest by construction.  Time in the kernel is its own
 * span: "syscall" from a syscall instruction to the return to user mode
 * (also when only user mode was traced: the instruction after the
 * syscall comes back with the kernel's time between), "kernel" for
 * kernel code entered otherwise (an interrupt or exception), with the
 * kernel's function spans inside.  A gap in the trace ends every open
 * span, because nothing says what ran meanwhile, and is itself a "trace
 * lost" span; a decode error ends them too (the stack after the resync
 * is unknown) and is an instant event.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode_out.h"
#include "compiler.h"
#include "tool.h"

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

int tl_open(struct timeline *tl, const char *path, const char *process,
	    int pid)
{
	memset(tl, 0, sizeof(*tl));
	tl->f = fopen(path, "we");
	if (!tl->f)
		return -errno;
	tl->first = 1;
	tl->tsc_hz = 1e9;
	tl->hz_source = "unknown";
	tl->pid = pid > 0 ? pid : 1;
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", tl->f);
	tl_sep(tl);
	fprintf(tl->f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":",
		tl->pid);
	tl_json_str(tl->f, process);
	fputs("}}", tl->f);
	return 0;
}

int tl_parse_duration(const char *s, int64_t *ns)
{
	static const struct { const char *unit; double ns; } units[] = {
		{ "", 1 }, { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 },
		{ "s", 1e9 },
	};
	char *end;
	double v;
	size_t i;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v < 0)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (!strcmp(end, units[i].unit) && v * units[i].ns < 9e18) {
			*ns = (int64_t)(v * units[i].ns + 0.5);
			return 0;
		}
	}
	return -EINVAL;
}

void tl_set_limits(struct timeline *tl, int64_t min_ns, uint64_t max)
{
	tl->min_ns = min_ns;
	tl->max_events = max;
}

void tl_set_clock(struct timeline *tl, double tsc_hz, const char *hz_source,
		  uint64_t origin, int have_origin)
{
	tl->tsc_hz = tsc_hz > 0 ? tsc_hz : 1e9;
	tl->hz_source = hz_source;
	tl->origin = origin;
	tl->have_origin = have_origin;
}

/* A track's name and place, once per pid/tid. */
static void tl_thread_meta(struct timeline *tl, int pid, int tid,
			   const char *name)
{
	tl_sep(tl);
	fprintf(tl->f,
		"{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":",
		pid, tid);
	tl_json_str(tl->f, name);
	fputs("}}", tl->f);
	tl_sep(tl);
	fprintf(tl->f,
		"{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"sort_index\":%d}}",
		pid, tid, tid);
}

void tl_track_init(struct timeline *tl, struct tl_track *t, int tid,
		   const char *name, int64_t tsc_offset)
{
	memset(t, 0, sizeof(*t));
	t->tl = tl;
	t->pid = tl->pid;
	t->tid = tid;
	t->tsc_offset = tsc_offset;
	t->depth = -1;
	t->kernel_depth = -1;
	tl_thread_meta(tl, t->pid, tid, name);
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

/* Room for one more event under --max-events? */
static int tl_room(struct timeline *tl)
{
	if (tl->max_events && tl->events >= tl->max_events) {
		tl->dropped++;
		return 0;
	}
	tl->events++;
	return 1;
}

static void tl_event_head(struct tl_track *t, const char *name,
			  const char *cat, char ph, int64_t ns)
{
	FILE *f = t->tl->f;

	tl_sep(t->tl);
	fputs("{\"name\":", f);
	tl_json_str(f, name);
	if (cat)
		fprintf(f, ",\"cat\":\"%s\"", cat);
	fprintf(f, ",\"ph\":\"%c\",", ph);
	tl_ts(f, ns);
	fprintf(f, ",\"pid\":%d,\"tid\":%d", t->pid, t->tid);
}

static void tl_frame_name(const struct tl_frame *fr, char *buf, size_t len)
{
	if (fr->kind == TL_SYSCALL)
		snprintf(buf, len, "syscall");
	else if (fr->kind == TL_KERNEL)
		snprintf(buf, len, "kernel");
	else if (fr->name)
		snprintf(buf, len, "%s", fr->name);
	else
		snprintf(buf, len, "0x%llx", (unsigned long long)fr->addr);
}

/* A span from @fr->start to @end: one complete event, unless too short. */
static void tl_write_span(struct tl_track *t, const struct tl_frame *fr,
			  int64_t end)
{
	static const char *const cats[] = {
		[TL_FUNC] = NULL, [TL_KERNEL] = "kernel",
		[TL_SYSCALL] = "syscall",
	};
	char name[256];
	int64_t dur = end - fr->start;

	if (dur < t->tl->min_ns) {
		t->tl->short_spans++;
		return;
	}
	if (!tl_room(t->tl))
		return;
	tl_frame_name(fr, name, sizeof(name));
	tl_event_head(t, name, cats[fr->kind], 'X', fr->start);
	fprintf(t->tl->f, ",\"dur\":%lld.%03lld}", (long long)(dur / 1000),
		(long long)(dur % 1000));
}

/* The held spans deeper than @depth, shallowest first, then gone. */
static void tl_flush_held(struct tl_track *t, int depth)
{
	unsigned int i, n = 0;
	int d;

	for (d = depth + 1; d <= TL_MAX_DEPTH; d++) {
		for (i = 0; i < t->nheld; i++) {
			if (t->held[i].depth == d) {
				tl_write_span(t, &t->held[i].fr,
					      t->held[i].end);
				t->held[i].depth = -2;
			}
		}
	}
	for (i = 0; i < t->nheld; i++)
		if (t->held[i].depth != -2)
			t->held[n++] = t->held[i];
	t->nheld = n;
}

/*
 * The span of frame @fr at stack depth @depth ends at @end.  Viewers
 * order spans that start and end together by their place in the file,
 * the first outermost, and spans are written as they end, children
 * first: so a span that starts when its parent does is held back and
 * written after the parent (a few at a time: past TL_MAX_HELD they go
 * out in end order).
 */
static void tl_span(struct tl_track *t, const struct tl_frame *fr, int depth,
		    int64_t end)
{
	if (depth > 0 && fr->start == t->stack[depth - 1].start &&
	    t->nheld < TL_MAX_HELD) {
		struct tl_held *h = &t->held[t->nheld++];

		h->fr = *fr;
		h->end = end;
		h->depth = depth;
		return;
	}
	tl_write_span(t, fr, end);
	tl_flush_held(t, depth);
}

static void tl_push(struct tl_track *t, const struct elf_symtab *st,
		    uint64_t ip, int64_t now, enum tl_kind kind)
{
	const struct elf_sym *s = st && kind == TL_FUNC ?
				  elf_symtab_lookup(st, ip) : NULL;
	struct tl_frame *fr;

	if (t->depth + 1 >= TL_MAX_DEPTH) {
		t->hidden++;
		return;
	}
	fr = &t->stack[++t->depth];
	fr->name = s ? s->name : NULL;
	fr->addr = s ? s->addr : ip;
	fr->start = now;
	fr->kind = kind;
	if (kind != TL_FUNC)
		t->kernel_depth = t->depth;
}

static void tl_pop(struct tl_track *t, int64_t now)
{
	if (t->hidden) {
		t->hidden--;
		return;
	}
	if (t->depth < 0)
		return;
	/* A return inside the kernel does not end its kernel span. */
	if (t->depth == t->kernel_depth)
		return;
	tl_span(t, &t->stack[t->depth], t->depth, now);
	t->depth--;
}

/* End every span down to depth @depth (-1: all). */
static void tl_unwind_to(struct tl_track *t, int depth, int64_t now)
{
	t->hidden = 0;
	while (t->depth > depth) {
		tl_span(t, &t->stack[t->depth], t->depth, now);
		t->depth--;
	}
	if (t->kernel_depth > t->depth)
		t->kernel_depth = -1;
}

static void tl_unwind(struct tl_track *t, int64_t now)
{
	tl_unwind_to(t, -1, now);
	t->pending_call = 0;
}

void tl_track_thread(struct tl_track *t, int pid, int tid, const char *name)
{
	if (t->pid == pid && t->tid == tid)
		return;
	tl_unwind(t, t->last_ns);
	t->pid = pid;
	t->tid = tid;
	tl_thread_meta(t->tl, pid, tid, name);
}

/* Kernel addresses: the upper half of the canonical address space. */
static int tl_kernel_ip(uint64_t ip)
{
	return (int64_t)ip < 0;
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
	if (t->kernel_depth >= 0 && !tl_kernel_ip(insn->ip)) {
		/* Back in user mode: the kernel's spans end here. */
		tl_unwind_to(t, t->kernel_depth - 1, now);
		t->pending_call = 0;
	} else if (t->kernel_depth < 0 && tl_kernel_ip(insn->ip)) {
		/* Into the kernel: by the syscall just run, or otherwise. */
		tl_push(t, st, insn->ip, t->pending_call == 2 ? t->call_ns : now,
			t->pending_call == 2 ? TL_SYSCALL : TL_KERNEL);
		t->pending_call = 1;
	} else if (t->pending_call == 2 && insn->ip == t->call_next) {
		/* A syscall that was not traced into: its time is the kernel's. */
		struct tl_frame fr = {
			.start = t->call_ns, .kind = TL_SYSCALL,
		};

		tl_span(t, &fr, t->depth + 1, now);
		t->pending_call = 0;
	}
	/*
	 * A call whose next instruction is the one right after it was not
	 * traced into: no new span.
	 */
	if ((t->depth < 0 && !t->hidden) ||
	    (t->pending_call && insn->ip != t->call_next))
		tl_push(t, st, insn->ip, now, TL_FUNC);
	t->pending_call = 0;
	switch (insn->iclass) {
	case ptic_call:
		t->pending_call = 1;
		t->call_next = insn->ip + insn->size;
		break;
	case ptic_far_call:
		/* syscall, sysenter, int: 2 marks a system call */
		t->pending_call = 2;
		t->call_ns = now;
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

void tl_insn_run(struct tl_track *t, uint64_t n, uint64_t tsc, int have_tsc)
{
	if (!n)
		return;
	/* tl_insn()'s clock, n times: the last one is the latest */
	if (!t->tl->have_origin)
		tl_advance(t, (int64_t)(t->insns + n - 1));
	else if (have_tsc)
		tl_advance(t, tl_tsc_ns(t, tsc));
	t->insns += n;
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
	/* Gaps are written whatever the limits: they say what is missing. */
	tl_event_head(t, "trace lost", "loss", 'X', start);
	fprintf(tl->f, ",\"dur\":%lld.%03lld",
		(long long)((end - start) / 1000),
		(long long)((end - start) % 1000));
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

void tl_counter(struct tl_track *t, const char *name, const char *unit,
		uint64_t tsc, int have_tsc, unsigned int value)
{
	struct timeline *tl = t->tl;
	int64_t ns = t->last_ns;

	if (tl->have_origin && have_tsc)
		ns = tl_advance(t, tl_tsc_ns(t, tsc));
	/* not a span: written whatever the limits, as gaps are (rare) */
	tl_sep(tl);
	fputs("{\"name\":", tl->f);
	tl_json_str(tl->f, name);
	fputs(",\"ph\":\"C\",", tl->f);
	tl_ts(tl->f, ns);
	fprintf(tl->f, ",\"pid\":%d,\"args\":{", tl->pid);
	tl_json_str(tl->f, unit);
	fprintf(tl->f, ":%u}}", value);
}

/* The pid of guest @vmcs's process, named on first use; -1: too many. */
static int tl_vm_pid(struct timeline *tl, uint64_t vmcs)
{
	char name[64];
	unsigned int i;

	for (i = 0; i < tl->nvm; i++)
		if (tl->vm_vmcs[i] == vmcs)
			return TL_VM_PID_BASE + (int)i;
	if (tl->nvm == TL_MAX_VMS)
		return -1;
	tl->vm_vmcs[tl->nvm] = vmcs;
	snprintf(name, sizeof(name), "guest VMCS 0x%llx",
		 (unsigned long long)vmcs);
	tl_sep(tl);
	fprintf(tl->f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":",
		TL_VM_PID_BASE + (int)tl->nvm);
	tl_json_str(tl->f, name);
	fputs("}}", tl->f);
	return TL_VM_PID_BASE + (int)tl->nvm++;
}

struct tl_track *tl_guest_track(struct tl_guests *g, struct tl_track *host,
				uint64_t vmcs, int cpu_tid,
				const char *cpu_name)
{
	struct tl_track **tr, *t;
	uint64_t *v;
	size_t i;
	int pid;

	for (i = 0; i < g->n; i++)
		if (g->vmcs[i] == vmcs)
			return g->tr[i];
	pid = tl_vm_pid(host->tl, vmcs);
	t = pid < 0 ? NULL : malloc(sizeof(*t));
	tr = t ? realloc(g->tr, (g->n + 1) * sizeof(*tr)) : NULL;
	if (tr)
		g->tr = tr;
	v = tr ? realloc(g->vmcs, (g->n + 1) * sizeof(*v)) : NULL;
	if (!v) {
		free(t);
		return NULL;
	}
	g->vmcs = v;
	memset(t, 0, sizeof(*t));
	t->tl = host->tl;
	t->pid = pid;
	t->tid = cpu_tid;
	t->tsc_offset = host->tsc_offset;
	t->depth = -1;
	t->kernel_depth = -1;
	/* the guest's time starts where the host's is */
	t->last_ns = host->last_ns;
	tl_thread_meta(t->tl, pid, cpu_tid, cpu_name);
	g->tr[g->n] = t;
	g->vmcs[g->n++] = vmcs;
	return t;
}

void tl_guests_end(struct tl_guests *g)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		tl_track_end(g->tr[i]);
}

void tl_guests_free(struct tl_guests *g)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		free(g->tr[i]);
	free(g->tr);
	free(g->vmcs);
	memset(g, 0, sizeof(*g));
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
	fprintf(tl->f,
		",\"spans\":%llu,\"min_duration_ns\":%lld,\"spans_shorter_left_out\":%llu,\"max_events\":%llu,\"spans_past_max_left_out\":%llu}}\n",
		(unsigned long long)tl->events, (long long)tl->min_ns,
		(unsigned long long)tl->short_spans,
		(unsigned long long)tl->max_events,
		(unsigned long long)tl->dropped);
	if (tl->dropped)
		ptt_warn("the timeline stopped at --max-events %llu: %llu more spans were left out (raise it, or give --min-duration)",
			 (unsigned long long)tl->max_events,
			 (unsigned long long)tl->dropped);
	err = ferror(tl->f);
	if (fclose(tl->f) || err)
		return -EIO;
	return 0;
}
