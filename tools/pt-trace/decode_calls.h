/* SPDX-License-Identifier: GPL-2.0 */
/*
 * decode --calls on the instruction decoder's walk: the call tree's steps
 * (call_tree.h) per instruction, restart and thread switch, and under
 * decode --jobs the marks a worker writes for them (struct ct_mark), run
 * later on the trace's one tree (decode_jobs.c, decode_marks_emit()).
 */
#ifndef PT_TRACE_DECODE_CALLS_H
#define PT_TRACE_DECODE_CALLS_H

#include <stdint.h>

#include <intel-pt.h>

#include "call_tree.h"
#include "decode_aspace.h"
#include "decode_ctx.h"
#include "elf_image.h"

/*
 * decode --calls --jobs: a worker does not know the call tree a segment
 * starts in (the depth, a call right before it, each thread's tree), so
 * it writes the tree's steps into its output as marks, a NUL byte and a
 * struct ct_mark (a listing has no NUL), and decode_marks_emit() runs
 * them in the trace's order on the one tree a decoder has, printing what
 * ct_insn() prints.  Marked are the steps that can change the tree or
 * print: calls and returns, restarts, thread switches, and the
 * instruction after each of them and a segment's first.
 */
struct ct_mark {
	uint8_t op;		/* CTM_* */
	uint8_t kind;		/* CTM_AFTER: enum ct_branch */
	int32_t from, to;	/* CTM_SWITCH: the threads (-1: none) */
	uint64_t ip;		/* CTM_INSN: its IP, CTM_AFTER: the next */
	const struct elf_symtab *st;	/* CTM_INSN: its symbols */
};

enum { CTM_INSN = 1, CTM_AFTER, CTM_RESTART, CTM_LOST, CTM_SWITCH };

/* Whether @insn calls, returns or neither, for ct_after(). */
enum ct_branch decode_ct_branch(const struct pt_insn *insn);

/* The tree restarts (@op CTM_RESTART) or the trace was lost (CTM_LOST). */
void decode_ct_restart(struct decode_ctx *c, struct decode_trace *t,
		       int op);

/* A --jobs worker's instruction in the tree: its marks. */
void decode_ctm_insn(struct decode_ctx *c, struct decode_trace *t,
		     const struct elf_symtab *st,
		     const struct pt_insn *insn);

/* Thread @from (-1: none) leaves @ct, thread @to goes on in it. */
void decode_calls_threads(struct decode_ctx *c, struct call_tree *ct,
			  int from, int to);

/* --calls at switch record @s: the threads' trees and the [thread ...] line. */
void decode_calls_switch(struct decode_ctx *c, struct decode_trace *t,
			 const struct das_switch *s);

#endif /* PT_TRACE_DECODE_CALLS_H */
