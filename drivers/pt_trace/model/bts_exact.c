// SPDX-License-Identifier: GPL-2.0
/*
 * BTS fed by the exact model (model_exact=1, Documentation/model.rst,
 * "Exact mode"): while IA32_DEBUGCTL has TR and BTS and not BTS_OFF_USR,
 * the user code the CPU runs is single-stepped (exact_step.c, as for PT
 * with User=1, OS=0) and each taken branch of it becomes one record
 * (from = the branch instruction, to = where it went), as silicon stores
 * them: a branch is taken when the next instruction is not the one
 * after it in memory.  SYSCALL is a branch out of user mode (CPL 3 when it
 * starts, so BTS_OFF_OS does not drop it): its record goes to the
 * kernel's entry point, IA32_LSTAR.  The records go through the same
 * stage and NMI as the sampled ones (bts.c), so the DS area rules,
 * filtering, threshold PMIs and wrap are the same.
 *
 * BTS has no CR3 filter: every user task on the CPU is stepped while BTS
 * records user branches (PT's CR3 filter still decides what PT encodes,
 * exact.c).  The sampled tick then invents kernel branches only.
 */
#include <linux/kernel.h>
#include <linux/pt_trace.h>
#include <asm/msr.h>

#include "../bts_regs.h"
#include "model.h"

bool pt_model_bts_exact(struct pt_model_cpu *st)
{
	const struct pt_model_regs *r = &READ_ONCE(st->active)->regs;

	return READ_ONCE(pt_model_exact) && pt_model_bts_on(r) &&
	       !(r->debugctl & BTS_DEBUGCTL_OFF_USR);
}

/* The linear address SYSCALL loads into RIP. */
static u64 pt_bts_syscall_target(void)
{
	u64 v;

	rdmsrl(MSR_LSTAR, v);
	return v;
}

bool pt_model_bts_exact_insn(struct pt_model_cpu *st, enum pt_exact_ev ev,
			     u64 from, const struct pt_insn *in, u64 next)
{
	struct pt_model_bts_branch *br;
	u64 to;

	if (!pt_model_bts_exact(st))
		return false;
	if (ev == PT_EXACT_SYSCALL)
		to = pt_bts_syscall_target();
	else if (next != from + in->len)
		to = next;
	else
		return true;	/* not taken: no record */
	br = pt_model_bts_slots(st);
	if (!br) {
		/* The last batch's NMI has not run: silicon loses nothing. */
		atomic64_inc(&st->stats.bts_exact_busy);
		return true;
	}
	br[0].from = from;
	br[0].to = to;
	br[0].kernel = false;
	pt_model_bts_commit(st, 1);
	return true;
}
