/* SPDX-License-Identifier: GPL-2.0 */
/*
 * decode --timeline --jobs: a worker does not know the timeline state a
 * segment starts in (each track's stack of spans, a call right before
 * it, the thread on the track, the last CBR), so it writes the timeline's
 * steps into its output as marks (a NUL byte and a struct tl_mark, as
 * --calls does with its own), and decode runs them in the trace's order
 * on the one timeline there is, in the segment's turn.
 *
 * Marked are the instructions tl_insn() may do more with than move the
 * track's clock: calls and returns and the instruction after each,
 * kernel code and the first user instruction after it, the first of a
 * segment and after any other mark, and a change of track (a guest's
 * code).  Between two marked instructions the rest only count and move
 * the clock: one TLM_RUN says how many and to when (tl_insn_run()).
 */
#ifndef PT_TRACE_TIMELINE_MARKS_H
#define PT_TRACE_TIMELINE_MARKS_H

#include <stdint.h>

#include <intel-pt.h>

#include "decode_out.h"
#include "outbuf.h"

/* Above --calls's marks (struct ct_mark, whose ops are small). */
enum {
	TLM_INSN = 0x40,	/* tl_insn() of @ip, @size, @iclass */
	TLM_RUN,		/* @n instructions that only count */
	TLM_ERROR,		/* tl_error() at @offset, @text */
	TLM_THREAD,		/* tl_track_thread(@pid, @tid, @text) */
	TLM_CPU_THREAD,		/* the same, to the CPU's own track */
	TLM_CBR,		/* a CBR of @n */
};

#define TLM_TEXT	64

struct tl_mark {
	uint8_t op;		/* TLM_*: first, as struct ct_mark's op */
	uint8_t iclass;		/* TLM_INSN: enum pt_insn_class */
	uint8_t size;		/* TLM_INSN: the instruction's length */
	uint8_t have_tsc;
	int32_t pid, tid;	/* TLM_THREAD */
	uint64_t vmcs;		/* the guest's track (@guest), else 0 */
	int32_t guest;		/* the instruction ran in a guest */
	uint64_t ip;		/* TLM_INSN: its IP; TLM_ERROR: offset */
	uint64_t tsc;
	uint64_t n;		/* TLM_RUN: instructions; TLM_CBR: ratio */
	const struct elf_symtab *st;	/* TLM_INSN: its symbols */
	char text[TLM_TEXT];	/* TLM_ERROR, TLM_THREAD: NUL-ended */
};

/* A worker's marking state for one trace. */
struct tl_marker {
	int due;		/* mark the next instruction */
	int prev_kernel;	/* the last instruction was kernel code */
	uint64_t vmcs;		/* the last instruction's track */
	int guest;
	uint64_t run;		/* unmarked instructions not yet written */
	uint64_t run_tsc;	/* the latest time among them */
	int run_have;		/* ... if any had one */
};

/* A segment starts: its first instruction is marked. */
void tlm_start(struct tl_marker *m);
/* One instruction of @vmcs's guest (@guest) or the host (0, 0). */
void tlm_insn(struct tl_marker *m, struct outbuf *ob,
	      const struct elf_symtab *st, const struct pt_insn *insn,
	      uint64_t tsc, int have_tsc, uint64_t vmcs, int guest);
/*
 * Any other mark @k (its op and fields set): after the instructions
 * before it, and the next instruction is marked.
 */
void tlm_put(struct tl_marker *m, struct outbuf *ob, const struct tl_mark *k);
/* The segment ends: its last unmarked instructions are written. */
void tlm_flush(struct tl_marker *m, struct outbuf *ob);

/* The size of the mark at @p (after the NUL): a tl_mark, or 0. */
static inline size_t tlm_size(const char *p)
{
	return (uint8_t)p[0] >= TLM_INSN ? sizeof(struct tl_mark) : 0;
}

/* TLM_INSN's instruction, as tl_insn() takes it. */
void tlm_to_insn(const struct tl_mark *k, struct pt_insn *insn);

#endif /* PT_TRACE_TIMELINE_MARKS_H */
