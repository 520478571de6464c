/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What decode does with each instruction: print it, grow a call tree,
 * or build the timeline of function spans (Chrome trace JSON).
 */
#ifndef PT_TRACE_DECODE_OUT_H
#define PT_TRACE_DECODE_OUT_H

#include <stdint.h>
#include <stdio.h>

#include <intel-pt.h>

#include "decode_lcache.h"
#include "elf_image.h"
#include "lossfile.h"
#include "outbuf.h"

#define TL_MAX_DEPTH	256
#define TL_MAX_VMS	64	/* guests (VMCS) with their own tracks */
/* Guests' pids in the file: above any pid Linux gives (pid_max 2^22). */
#define TL_VM_PID_BASE	0x40000000

/*
 * The whole JSON file: a track (pid/tid) per thread, or per traced CPU
 * while the thread is unknown.  Time is nanoseconds since @origin, a TSC
 * value of the first traced CPU (the first timestamp of all the traces),
 * written as microseconds with three decimals: integers, so that a span
 * never ends after its parent.
 */
struct timeline {
	FILE *f;
	int first;		/* no event written yet */
	double tsc_hz;
	const char *hz_source;
	uint64_t origin;
	int have_origin;	/* else the traces have no timestamps */
	int pid;		/* the traced process, 1 when unknown */
	int64_t min_ns;		/* --min-duration: shorter spans not written */
	uint64_t max_events;	/* --max-events: 0 for no limit */
	uint64_t events;	/* written */
	uint64_t dropped;	/* not written for --max-events */
	uint64_t short_spans;	/* not written for --min-duration */
	/* guests' processes (tl_guest_track()): one per VMCS */
	uint64_t vm_vmcs[TL_MAX_VMS];
	unsigned int nvm;
};

/* What a frame on a track's stack is. */
enum tl_kind {
	TL_FUNC,		/* a function, from its first instruction */
	TL_KERNEL,		/* kernel code entered not by a syscall */
	TL_SYSCALL,		/* from a syscall instruction to the return */
};

struct tl_frame {
	const char *name;
	uint64_t addr;
	int64_t start;		/* ns */
	enum tl_kind kind;
};

/* A span that ended, written after its parent (see tl_span()). */
struct tl_held {
	struct tl_frame fr;
	int64_t end;
	int depth;
};

#define TL_MAX_HELD	64

/*
 * One trace's track: its call stack; each span is written as one "X"
 * (complete) event when it ends, children before their parent.
 */
struct tl_track {
	struct timeline *tl;
	int pid, tid;
	int kernel_depth;	/* the TL_KERNEL/TL_SYSCALL frame, or -1 */
	int64_t call_ns;	/* when the pending call ran */
	int64_t tsc_offset;	/* this CPU's TSC minus the first CPU's */
	int depth;		/* top of @stack, -1 when empty */
	unsigned int hidden;	/* calls deeper than TL_MAX_DEPTH */
	int pending_call;	/* the last instruction was a call */
	uint64_t call_next;	/* the address right after that call */
	int64_t last_ns;	/* time only moves forward on a track */
	uint64_t insns;
	struct tl_frame stack[TL_MAX_DEPTH];
	struct tl_held held[TL_MAX_HELD];
	unsigned int nheld;
};

/* @pid: the traced process (0 when unknown), named @process. */
int tl_open(struct timeline *tl, const char *path, const char *process,
	    int pid);
/* "500ns", "2us", "1.5ms", "1s" or plain nanoseconds; 0 or -EINVAL. */
int tl_parse_duration(const char *s, int64_t *ns);
/* Spans shorter than @min_ns are not written; nor events past @max. */
void tl_set_limits(struct timeline *tl, int64_t min_ns, uint64_t max);
/* Time 0 is TSC @origin; without one, time is the instruction count. */
void tl_set_clock(struct timeline *tl, double tsc_hz, const char *hz_source,
		  uint64_t origin, int have_origin);
void tl_track_init(struct timeline *tl, struct tl_track *t, int tid,
		   const char *name, int64_t tsc_offset);
/*
 * From now on the track's instructions are thread @tid of process @pid
 * (a context switch): every open span ends, the thread gets its track.
 * decode calls it as it follows the CPU's switch records
 * (decode_aspace.h).
 */
void tl_track_thread(struct tl_track *t, int pid, int tid, const char *name);
void tl_insn(struct tl_track *t, const struct elf_symtab *st,
	     const struct pt_insn *insn, uint64_t tsc, int have_tsc);
/*
 * @n instructions that tl_insn() would only count and time (none a call
 * or return, none after one, no change between user and kernel code):
 * the clock moves to the latest @tsc among them (@have_tsc: any had
 * one).  decode --timeline --jobs (timeline_marks.h).
 */
void tl_insn_run(struct tl_track *t, uint64_t n, uint64_t tsc, int have_tsc);
/* A gap: every span ends where it starts; then a "trace lost" span. */
void tl_gap(struct tl_track *t, const struct ptl_record *r);
/* Bytes dropped somewhere after this point: an instant event. */
void tl_drop(struct tl_track *t, const struct ptl_record *r);
/*
 * A decode error (at the decoder's time @tsc when it has one): the call
 * stack is unknown from here, spans end.
 */
void tl_error(struct tl_track *t, uint64_t offset, const char *what,
	      uint64_t tsc, int have_tsc);
void tl_track_end(struct tl_track *t);
/*
 * A counter track @name (Chrome "C" event) of the timeline's process:
 * @value from the time @tsc (else the track's last time) on; @unit names
 * the value ("MHz", "ratio").
 */
void tl_counter(struct tl_track *t, const char *name, const char *unit,
		uint64_t tsc, int have_tsc, unsigned int value);

/*
 * Under VMX, guest code goes on tracks of its own: a process per guest
 * VMCS (a vCPU's; KVM has one per vCPU) named "guest VMCS 0x...", with a
 * thread per traced CPU named as the CPU's host track; the host's code
 * stays on the CPU's or thread's track.  A trace's guest tracks:
 */
struct tl_guests {
	struct tl_track **tr;
	uint64_t *vmcs;		/* each track's guest */
	size_t n;
};

/*
 * The track of guest @vmcs on @host's CPU (@cpu_tid, @cpu_name), made on
 * first use; NULL when out of memory or past TL_MAX_VMS guests (then the
 * guest's code stays on @host).
 */
struct tl_track *tl_guest_track(struct tl_guests *g, struct tl_track *host,
				uint64_t vmcs, int cpu_tid,
				const char *cpu_name);
/* Every guest track's open spans end (a gap, an error, the end). */
void tl_guests_end(struct tl_guests *g);
void tl_guests_free(struct tl_guests *g);
int tl_close(struct timeline *tl);
/*
 * decode --open (timeline_view.c): run speedscope on @path when it is on
 * PATH, else print how to view the file; 0 or PTT_EXIT_INTERNAL.
 */
int tl_view(const char *path);

/* What an instruction line holds, and the disassembler for --insn. */
struct decode_fmt {
	int ip_only;		/* --format=ip: one hex IP per line */
	int show_time;		/* --time: the TSC first */
	int insn;		/* --insn: disassembly instead of bytes */
	int lines;		/* --lines: FILE:LINE and inlined function */
	int perf;		/* perf script's columns (see decode_who) */
	size_t cs;		/* capstone handle (csh) */
	struct cs_insn *ci;	/* its instruction, set when open */
	enum pt_exec_mode cs_mode;
	/* set up by decode_fmt_init(), one per decoding thread: */
	struct decode_lcache *lc;	/* recent lines by IP (decode_print.c) */
	/* perf's "comm pid/tid [cpu] " columns of the last line, its task */
	char who_text[104];
	size_t who_len;		/* 0: none yet */
	char who_name[17];
	int who_pid, who_tid, who_cpu;
	/* the time column's "%5llu." seconds, of @sec_val */
	char sec_text[24];
	size_t sec_len;		/* 0: none yet */
	uint64_t sec_val;
};

/*
 * Who ran an instruction, where and when, for perf script's columns:
 * "comm pid/tid [cpu] sec.nsec: ip sym+off (dso)".
 */
struct decode_who {
	const char *comm;	/* NULL: unknown */
	int pid, tid;		/* -1: unknown */
	int cpu;		/* -1: unknown */
	int have_time;
	uint64_t ns;		/* the recording's time (das_tsc_ns()) */
};

/*
 * Sets up @f's caches and the disassembler for --insn: 0 or -1.  A copy
 * of a decode_fmt (another thread's) is set up again before use.
 */
int decode_fmt_init(struct decode_fmt *f);
void decode_fmt_free(struct decode_fmt *f);
void decode_print_insn(struct outbuf *ob, struct decode_fmt *f,
		       const struct elf_symtab *st,
		       const struct pt_insn *insn, uint64_t tsc,
		       const struct decode_who *who);
/*
 * decode_print_insn() for the listing's own lines without --time (not
 * --format=perf or ip): inline, a kept line copied without a call.
 */
static inline void decode_print_kept(struct outbuf *ob, struct decode_fmt *f,
				     const struct elf_symtab *st,
				     const struct pt_insn *insn)
{
	struct dl_slot *d;
	struct dl_key k;
	char *p = unlikely(insn->speculative) ? NULL :
		  dl_line(f->lc, st, insn, ob_reserve(ob), &d, &k);

	/* decode_print_insn() puts ptxed's "? " before a speculative one */
	if (unlikely(!p)) {
		decode_print_insn(ob, f, st, insn, 0, NULL);
		return;
	}
	*p++ = '\n';
	ob_commit(ob, p);
}

/*
 * Both decoders' walks (decode_walk.c, decode_block.c) when libipt has
 * followed direct branches for 256 Ki instructions without reading trace.
 */
#define DECODE_SPIN_MSG \
	"error: no trace read in 256 Ki instructions (a loop of direct branches?)"

/* One call-tree line: indented by @depth. */
void decode_print_call(struct outbuf *ob, const struct elf_symtab *st,
		       uint64_t ip, int depth);

/* One line "[NAME...]" per event, as ptxed --event:ip words it. */
/* @with_time: ptxed's --event:time, the event's TSC first where it has one. */
void decode_print_event(struct outbuf *ob, const struct pt_event *ev,
			int with_time);

/* "sym+0xoff" or "" into @buf. */
const char *decode_symbolize(const struct elf_symtab *st, uint64_t ip,
			     char *buf, size_t len);

#endif /* PT_TRACE_DECODE_OUT_H */
