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
 * kernel's entry point, IA32_LSTAR.  An exception a user instruction
 * raises (a fault, or the trap of INT3/INTO) is a transfer from CPL 3
 * too: its record goes from that instruction to the handler in the IDT
 * (the SDM's BTMs are taken branches, interrupts and exceptions;
 * BTS_OFF_OS skips those with CPL 0).  The model sees it when the
 * kernel delivers the signal the exception raised (exact_step.c); the
 * return to user mode (IRET/SYSRET at CPL 0, into a signal handler or
 * back) is a CPL 0 branch: silicon stores it only without BTS_OFF_OS,
 * and the model does not know its source, so it is not stored.  The
 * records go through the same stage and NMI as the sampled ones (bts.c),
 * so the DS area rules, filtering, threshold PMIs and wrap are the same.
 *
 * BTS has no CR3 filter: every user task on the CPU is stepped while BTS
 * records user branches (PT's CR3 filter still decides what PT encodes,
 * exact.c).  The sampled tick then invents kernel branches only.
 */
#include <linux/kernel.h>
#include <linux/pt_trace.h>
#include <asm/desc.h>
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

/* The handler of IDT vector @vec (0 when the IDT has none). */
static u64 pt_bts_idt_target(unsigned int vec)
{
	struct desc_ptr dt;

	store_idt(&dt);
	if ((vec + 1) * sizeof(gate_desc) > (unsigned long)dt.size + 1)
		return 0;
	return gate_offset((const gate_desc *)dt.address + vec);
}

/* One record of a branch from user code (CPL 3). */
static void pt_bts_exact_store(struct pt_model_cpu *st, u64 from, u64 to)
{
	struct pt_model_bts_branch *br = pt_model_bts_slots(st);

	if (!br) {
		/* The last batch's NMI has not run: silicon loses nothing. */
		atomic64_inc(&st->stats.bts_exact_busy);
		return;
	}
	br[0].from = from;
	br[0].to = to;
	br[0].kernel = false;
	pt_model_bts_commit(st, 1);
}

bool pt_model_bts_exact_insn(struct pt_model_cpu *st, enum pt_exact_ev ev,
			     u64 from, const struct pt_insn *in, u64 next)
{
	u64 to;

	if (!pt_model_bts_exact(st))
		return false;
	if (ev == PT_EXACT_SYSCALL)
		to = pt_bts_syscall_target();
	else if (next != from + in->len)
		to = next;
	else
		return true;	/* not taken: no record */
	pt_bts_exact_store(st, from, to);
	return true;
}

void pt_model_bts_exact_exception(struct pt_model_cpu *st, unsigned int vec)
{
	u64 to;

	if (!pt_model_bts_exact(st) || vec >= 32)
		return;
	to = pt_bts_idt_target(vec);
	if (!to)
		return;
	/* The pending instruction raised it: it did not retire. */
	pt_bts_exact_store(st, st->xpending, to);
	atomic64_inc(&st->stats.bts_exact_exceptions);
}
