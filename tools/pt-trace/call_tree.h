/* SPDX-License-Identifier: GPL-2.0 */
/*
 * decode --calls: the call tree of one instruction flow, shared by the PT
 * decoder (every instruction, decode_calls.c) and the BTS decoder (each
 * record's branch and target, decode_bts.c).  A line is printed for each
 * function entered by a call (the first instruction after a call that
 * did not go to the next instruction), indented by the call depth; a
 * return goes one level up.  Where the stack is unknown (the start, a
 * gap, a decode error) the tree restarts: the next instruction is a new
 * root at depth 0.  With several threads on one flow, a thread's depth is
 * kept while it is switched out (ct_suspend(), ct_resume()).
 */
#ifndef PT_TRACE_CALL_TREE_H
#define PT_TRACE_CALL_TREE_H

#include <stdint.h>

#include "outbuf.h"

struct elf_symtab;

struct call_tree {
	int depth;		/* of the function that runs */
	int restart;		/* the next instruction is a new root */
	int resume;		/* a thread's tree goes on at @depth */
	int pending_call;	/* the last instruction was a call */
	uint64_t call_next;	/* the address right after it */
};

/* What the instruction that just ran did to the stack of calls. */
enum ct_branch {
	CT_OTHER,		/* anything else (or not known) */
	CT_CALL,		/* call, far call, syscall, int n */
	CT_RETURN,		/* ret, far ret, iret, sysret */
};

/* The stack is unknown from here: the next instruction is a root. */
void ct_restart(struct call_tree *ct);
/* Trace lost: as ct_restart(), and the depth is forgotten. */
void ct_lost(struct call_tree *ct);
/*
 * The instruction at @ip runs: prints its line (symbol from @st) when it
 * is a root, the first of a called function, or where a resumed thread
 * goes on.
 */
void ct_insn(struct call_tree *ct, struct outbuf *ob,
	     const struct elf_symtab *st, uint64_t ip);
/* It was @kind; @next is the address after it (a call's return address). */
void ct_after(struct call_tree *ct, enum ct_branch kind, uint64_t next);
/* A thread leaves: its depth to keep, -1 when its tree is unknown. */
int ct_suspend(const struct call_tree *ct);
/* A thread comes in with the depth ct_suspend() gave (-1: a new tree). */
void ct_resume(struct call_tree *ct, int depth);

#endif /* PT_TRACE_CALL_TREE_H */
