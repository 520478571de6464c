// SPDX-License-Identifier: GPL-2.0
/*
 * decode --calls (call_tree.h): one state machine for the PT and BTS
 * decoders, so that both print the same tree for the same flow.
 */
#include "call_tree.h"
#include "decode_out.h"

void ct_restart(struct call_tree *ct)
{
	ct->restart = 1;
	ct->pending_call = 0;
}

void ct_lost(struct call_tree *ct)
{
	ct_restart(ct);
	ct->depth = 0;
}

void ct_insn(struct call_tree *ct, struct outbuf *ob,
	     const struct elf_symtab *st, uint64_t ip)
{
	if (ct->restart) {
		ct->depth = 0;
		decode_print_call(ob, st, ip, 0);
	} else if (ct->pending_call && ip != ct->call_next) {
		/* a call to the next instruction (PIC's call/pop) is none */
		decode_print_call(ob, st, ip, ++ct->depth);
	} else if (ct->resume) {
		decode_print_call(ob, st, ip, ct->depth);
	}
	ct->restart = 0;
	ct->resume = 0;
	ct->pending_call = 0;
}

void ct_after(struct call_tree *ct, enum ct_branch kind, uint64_t next)
{
	ct->restart = 0;
	ct->resume = 0;
	ct->pending_call = kind == CT_CALL;
	ct->call_next = next;
	if (kind == CT_RETURN && ct->depth > 0)
		ct->depth--;
}

int ct_suspend(const struct call_tree *ct)
{
	return ct->restart ? -1 : ct->depth;
}

void ct_resume(struct call_tree *ct, int depth)
{
	ct->pending_call = 0;
	if (depth >= 0) {
		ct->depth = depth;
		ct->restart = 0;
		ct->resume = 1;
	} else {
		ct->restart = 1;
	}
}
