// SPDX-License-Identifier: GPL-2.0
/*
 * BTS fed by the exact model (model_exact=1, Documentation/model.rst,
 * "BTS in exact mode"): while IA32_DEBUGCTL has TR and BTS and not
 * BTS_OFF_USR, the user code the CPU runs is single-stepped (exact_step.c,
 * as for PT with User=1, OS=0) and each taken branch of it becomes one
 * record (from = the branch instruction, to = where it went), as silicon
 * stores them: a branch is taken when the next instruction is not the one
 * after it in memory.
 *
 * Transfers between user and kernel mode are BTMs too (the SDM's TR flag:
 * "a taken branch, interrupt, or exception").  BTS_OFF_OS skips the BTMs
 * "if CPL is 0" and BTS_OFF_USR those with CPL > 0: the model reads that
 * as the CPL where the transfer lands, the CPL the record is stored at,
 * which is what the hardware does as GDB's BTS reader (written by Intel's
 * BTS maintainer) describes it: with user-only BTS "the hardware may
 * report branches from kernel into user space.  Branches from user into
 * kernel space will be suppressed".  So:
 *
 *   SYSCALL             user IP -> IA32_LSTAR           CPL 0: not with -u
 *   exception, #PF      user IP -> its IDT gate         CPL 0: not with -u
 *   interrupt           interrupted IP -> IDT gate      CPL 0: not with -u
 *   return to user      SYSRET/IRET -> the user IP      CPL 3: stored
 *   (after a system call, interrupt, exception, into a signal handler,
 *   after rt_sigreturn, at exec)
 *
 * The kernel's SYSRET and IRET are found in its entry code (bts_kret.c);
 * which of them returns is decided as the kernel decides it without the
 * model's TF (do_syscall_64(): SYSRET when RCX = RIP, R11 = RFLAGS, the
 * user CS/SS, a canonical user RIP and no RF; pt_bts_kret_kind()).  The
 * return's record is stored at the task's next stepped instruction, so a
 * return that is replaced before it happens (a signal delivered at a
 * system call's exit: one IRET into the handler) is stored once.
 *
 * The records go through the same stage and NMI as the sampled ones
 * (bts.c), so the DS area rules, filtering, threshold PMIs and wrap are
 * the same.  BTS has no CR3 filter: every user task on the CPU is
 * stepped while BTS records user branches (PT's CR3 filter still decides
 * what PT encodes, exact.c).  The sampled tick then invents kernel
 * branches only.
 */
#include <linux/kernel.h>
#include <linux/pt_trace.h>
#include <asm/desc.h>
#include <asm/msr.h>
#include <asm/trapnr.h>

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

/* The records of one event, stored in one batch. */
#define PT_BTS_EXACT_BATCH	2
struct pt_bts_exact_batch {
	unsigned int n;
	struct pt_model_bts_branch br[PT_BTS_EXACT_BATCH];
};

static void pt_bts_exact_add(struct pt_bts_exact_batch *b, u64 from, u64 to,
			     bool kernel)
{
	if (b->n < ARRAY_SIZE(b->br))
		b->br[b->n++] = (struct pt_model_bts_branch){
			.from = from, .to = to, .kernel = kernel };
}

static void pt_bts_exact_store(struct pt_model_cpu *st,
			       const struct pt_bts_exact_batch *b)
{
	struct pt_model_bts_branch *br;

	if (!b->n)
		return;
	br = pt_model_bts_slots(st);
	if (!br) {
		/* The last batch's NMI has not run: silicon loses nothing. */
		atomic64_add(b->n, &st->stats.bts_exact_busy);
		return;
	}
	memcpy(br, b->br, b->n * sizeof(*br));
	pt_model_bts_commit(st, b->n);
}

/* The return to user mode that resumed the task landed at @to. */
static void pt_bts_exact_kret(struct pt_model_cpu *st,
			      struct pt_bts_exact_batch *b, u64 to)
{
	if (st->xkret) {
		pt_bts_exact_add(b, st->xkret, to, false);
		atomic64_inc(&st->stats.bts_exact_returns);
	}
	st->xkret = 0;
	st->xkentered = false;
	st->xkswitched = false;
}

bool pt_model_bts_exact_insn(struct pt_model_cpu *st, enum pt_exact_ev ev,
			     u64 from, const struct pt_insn *in, u64 next)
{
	struct pt_bts_exact_batch b = { 0 };

	if (!pt_model_bts_exact(st)) {
		st->xkret = 0;
		return false;
	}
	pt_bts_exact_kret(st, &b, from);
	if (ev == PT_EXACT_SYSCALL)
		pt_bts_exact_add(&b, from, pt_bts_syscall_target(), true);
	else if (next != from + in->len)
		pt_bts_exact_add(&b, from, next, false);
	pt_bts_exact_store(st, &b);
	return true;
}

/*
 * Would the kernel return to @regs by SYSRET, had the model not set TF?
 * do_syscall_64()'s test (6.1: in entry_SYSCALL_64), after a system call
 * only: orig_ax is its number there, -1 after an interrupt or exception
 * and after rt_sigreturn.
 */
static bool pt_bts_kret_sysret(const struct pt_regs *regs)
{
	const unsigned long tf = X86_EFLAGS_TF;

	return (long)regs->orig_ax >= 0 && regs->cx == regs->ip &&
	       (regs->r11 & ~tf) == (regs->flags & ~tf) &&
	       regs->cs == __USER_CS && regs->ss == __USER_DS &&
	       regs->ip < TASK_SIZE_MAX && !(regs->flags & X86_EFLAGS_RF);
}

void pt_model_bts_exact_resume(struct pt_model_cpu *st,
			       const struct pt_regs *regs)
{
	/* It replaces a pending IRET: a signal's handler instead. */
	st->xkret = pt_bts_kret_sysret(regs) ? pt_model_kret_sysret :
					       pt_model_kret_iret;
	st->xkentered = false;
	st->xkswitched = false;
}

bool pt_model_bts_exact_out(struct pt_model_cpu *st)
{
	bool due = st->xkret && st->xkentered;

	/* Switched out in the kernel: it returns where it is switched in. */
	st->xkret = 0;
	st->xkentered = false;
	st->xkswitched = false;
	return due;
}

/*
 * Switched in (in the kernel) to return to @regs.  @kentered: an entry
 * at the pending instruction was seen before the switch-out and its
 * return is still due (pt_model_bts_exact_out()): that return happens
 * (to the instruction, or, had it faulted since, before the fault).
 * Otherwise the return is due only if nothing else comes first: a
 * signal of that instruction's exception seen now (the task was stopped
 * under ptrace inside the exception's kernel visit, before the
 * signal_deliver probe) was raised before the switch-out, and silicon
 * stores no return in between (pt_model_bts_exact_kentry()).
 */
void pt_model_bts_exact_in(struct pt_model_cpu *st,
			   const struct pt_regs *regs, bool kentered)
{
	pt_model_bts_exact_resume(st, regs);
	st->xkentered = kentered;
	st->xkswitched = !kentered;
}

bool pt_model_bts_exact_kentry(struct pt_model_cpu *st, int vec,
			       bool fault_sig)
{
	struct pt_bts_exact_batch b = { 0 };
	u64 to;

	if (!pt_model_bts_exact(st))
		return false;
	/*
	 * The signal of a page fault the #PF probe saw, or of an int3 the
	 * die chain reported (DIE_INT3): the same entry.
	 */
	if (fault_sig && (vec == X86_TRAP_PF || vec == X86_TRAP_BP) &&
	    st->xkentered)
		return false;
	/*
	 * Its signal seen after a switch-in, with no entry here seen before
	 * the switch-out: the task has not left the kernel since the
	 * exception, so the return the switch-in made due did not happen.
	 */
	if (fault_sig && st->xkswitched)
		st->xkret = 0;
	/* An earlier one here returned here: the instruction ran again. */
	pt_bts_exact_kret(st, &b, st->xpending);
	/* The handler; unknown for a device interrupt (@vec < 0). */
	to = vec >= 0 ? pt_bts_idt_target(vec) : 0;
	/* The pending instruction did not retire: it is the source. */
	if (to)
		pt_bts_exact_add(&b, st->xpending, to, true);
	pt_bts_exact_store(st, &b);
	st->xkret = pt_model_kret_iret;
	st->xkentered = true;
	atomic64_inc(&st->stats.bts_exact_exceptions);
	return true;
}
