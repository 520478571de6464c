// SPDX-License-Identifier: GPL-2.0
/*
 * decode --timeline --jobs: a worker's timeline steps as marks in its
 * output (timeline_marks.h), run on the trace's timeline in order.
 */
#include <string.h>

#include "timeline_marks.h"

static void tlm_write(struct outbuf *ob, const struct tl_mark *k)
{
	char *p = ob_reserve(ob);

	*p++ = '\0';
	memcpy(p, k, sizeof(*k));
	ob_commit(ob, p + sizeof(*k));
}

void tlm_start(struct tl_marker *m)
{
	memset(m, 0, sizeof(*m));
	m->due = 1;
}

void tlm_flush(struct tl_marker *m, struct outbuf *ob)
{
	struct tl_mark k;

	if (!m->run)
		return;
	memset(&k, 0, sizeof(k));
	k.op = TLM_RUN;
	k.n = m->run;
	k.tsc = m->run_tsc;
	k.have_tsc = (uint8_t)m->run_have;
	k.vmcs = m->vmcs;
	k.guest = m->guest;
	tlm_write(ob, &k);
	m->run = 0;
	m->run_tsc = 0;
	m->run_have = 0;
}

static int tlm_branch(enum pt_insn_class c)
{
	return c == ptic_call || c == ptic_far_call || c == ptic_return ||
	       c == ptic_far_return;
}

void tlm_insn(struct tl_marker *m, struct outbuf *ob,
	      const struct elf_symtab *st, const struct pt_insn *insn,
	      uint64_t tsc, int have_tsc, uint64_t vmcs, int guest)
{
	int kernel = (int64_t)insn->ip < 0;	/* as tl_insn() tells */
	struct tl_mark k;

	if (!m->due && !kernel && !m->prev_kernel && !tlm_branch(insn->iclass) &&
	    vmcs == m->vmcs && guest == m->guest) {
		m->run++;
		if (have_tsc && (!m->run_have || tsc > m->run_tsc))
			m->run_tsc = tsc;
		m->run_have |= have_tsc;
		return;
	}
	tlm_flush(m, ob);
	memset(&k, 0, sizeof(k));
	k.op = TLM_INSN;
	k.iclass = (uint8_t)insn->iclass;
	k.size = insn->size;
	k.have_tsc = (uint8_t)have_tsc;
	k.vmcs = vmcs;
	k.guest = guest;
	k.ip = insn->ip;
	k.tsc = tsc;
	k.st = st;
	tlm_write(ob, &k);
	m->due = tlm_branch(insn->iclass);
	m->prev_kernel = kernel;
	m->vmcs = vmcs;
	m->guest = guest;
}

void tlm_put(struct tl_marker *m, struct outbuf *ob, const struct tl_mark *k)
{
	tlm_flush(m, ob);
	tlm_write(ob, k);
	m->due = 1;
}

void tlm_to_insn(const struct tl_mark *k, struct pt_insn *insn)
{
	memset(insn, 0, sizeof(*insn));
	insn->ip = k->ip;
	insn->size = k->size;
	insn->iclass = (enum pt_insn_class)k->iclass;
}
