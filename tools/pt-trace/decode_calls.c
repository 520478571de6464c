// SPDX-License-Identifier: GPL-2.0
/*
 * decode --calls: the call tree of the instruction decoder's walk, one
 * per thread with switch records, and the marks of a decode --jobs worker
 * for it (decode_calls.h).
 */
#include <stdlib.h>
#include <string.h>

#include "decode_calls.h"
#include "outbuf.h"

static void decode_ctm_put(struct decode_ctx *c, const struct ct_mark *m)
{
	char *p = ob_reserve(&c->ob);

	*p++ = '\0';
	memcpy(p, m, sizeof(*m));
	ob_commit(&c->ob, p + sizeof(*m));
}

enum ct_branch decode_ct_branch(const struct pt_insn *insn)
{
	if (insn->iclass == ptic_call || insn->iclass == ptic_far_call)
		return CT_CALL;
	if (insn->iclass == ptic_return || insn->iclass == ptic_far_return)
		return CT_RETURN;
	return CT_OTHER;
}

/* The tree restarts (@op CTM_RESTART) or the trace was lost (CTM_LOST). */
void decode_ct_restart(struct decode_ctx *c, struct decode_trace *t,
		       int op)
{
	struct ct_mark m = { .op = (uint8_t)op };

	if (c->ct_marks) {
		decode_ctm_put(c, &m);
		t->ctm_due = 1;
	} else if (op == CTM_LOST) {
		ct_lost(&t->ct);
	} else {
		ct_restart(&t->ct);
	}
}

/* A worker's instruction in the tree (decode_insn()). */
void decode_ctm_insn(struct decode_ctx *c, struct decode_trace *t,
		     const struct elf_symtab *st,
		     const struct pt_insn *insn)
{
	enum ct_branch k = decode_ct_branch(insn);
	struct ct_mark m = { .op = CTM_INSN, .ip = insn->ip, .st = st };

	if (t->ctm_due)
		decode_ctm_put(c, &m);
	t->ctm_due = 0;
	if (k == CT_OTHER)
		return;		/* nothing to change after a marked one */
	m.op = CTM_AFTER;
	m.kind = (uint8_t)k;
	m.ip = insn->ip + insn->size;
	m.st = NULL;
	decode_ctm_put(c, &m);
	t->ctm_due = k == CT_CALL;
}

/* A thread's depth in its call tree, kept while it is switched out. */
static struct decode_thread *decode_thread(struct decode_ctx *c, int tid)
{
	struct decode_thread *n;
	size_t i;

	for (i = 0; i < c->nthreads; i++)
		if (c->threads[i].tid == tid)
			return &c->threads[i];
	n = realloc(c->threads, (c->nthreads + 1) * sizeof(*n));
	if (!n)
		return NULL;
	c->threads = n;
	n = &c->threads[c->nthreads++];
	n->tid = tid;
	n->depth = -1;		/* no tree yet */
	return n;
}

/*
 * --calls with switch records: one tree per thread.  The thread leaving
 * keeps its depth; the one coming in goes on where it was (its next
 * instruction is printed at that depth) or starts its tree, under a line
 * that names it.
 */
void decode_calls_threads(struct decode_ctx *c, struct call_tree *ct,
			  int from, int to)
{
	struct decode_thread *th;

	th = from >= 0 ? decode_thread(c, from) : NULL;
	if (th)
		th->depth = ct_suspend(ct);
	th = decode_thread(c, to);
	ct_resume(ct, th ? th->depth : -1);
}

void decode_calls_switch(struct decode_ctx *c, struct decode_trace *t,
			 const struct das_switch *s)
{
	struct ct_mark m = { .op = CTM_SWITCH, .from = t->st.tid,
			     .to = s->tid };

	if (c->ct_marks) {
		decode_ctm_put(c, &m);
		t->ctm_due = 1;
	} else {
		decode_calls_threads(c, &t->ct, t->st.tid, s->tid);
	}
	t->st.hidden = 0;
	if (dflt_task(&c->o.filter, s->pid, s->tid))
		ob_printf(&c->ob, "[thread %s %d/%d, cpu %d]\n", s->comm,
			  s->pid, s->tid, t->cpu);
}
