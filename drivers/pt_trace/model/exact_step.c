// SPDX-License-Identifier: GPL-2.0
/*
 * The stepping machinery of the exact model (model_exact=1; the
 * experiment in shared/research/singlestep.md found these mechanisms):
 *
 * - a task runs with our TF (X86_EFLAGS_TF in its saved user flags) only
 *   while it is on a CPU whose RTIT_CTL is in exact mode (TraceEn, User,
 *   not OS) and passes the CR3 filter: armed when it is switched in
 *   there (our sched_switch probe runs after the driver's, which
 *   switches tracing for followed tasks) or when tracing starts under it
 *   (the enable's IPI interrupted it), disarmed when it is switched out,
 *   exits, or steps once where it is not traced (a "stray" step, e.g.
 *   after a stop IPI).  The armed tasks are in a small table, so a step
 *   that is not ours (a debugger's, the program's own TF) is left alone;
 *   a step of a task a debugger steps too (TIF_SINGLESTEP) is recorded
 *   and passed on (NOTIFY_DONE), never swallowed;
 * - a die notifier catches DIE_DEBUG with DR_STEP from user mode: the
 *   pending instruction retired, and regs->ip is the next one;
 * - SYSCALL clears TF and raises no #DB: a sys_enter probe encodes the
 *   syscall (TIP.PGD), a sys_exit probe sets TF again (the kernel then
 *   returns by IRET) and resumes at regs->ip, the instruction after the
 *   syscall, which the next #DB reports;
 * - exec resets the flags (start_thread()): sys_exit of execve re-arms;
 * - signal delivery clears TF for the handler: a signal_deliver probe
 *   queues a task_work that runs after the frame is built and resumes at
 *   the handler's first instruction (TF set again); a signal raised by
 *   an exception of the pending instruction is BTS's record of that
 *   exception (bts_exact.c);
 * - BTS also stores the kernel's returns to user mode (bts_exact.c): each
 *   resume above says which return it is; interrupts taken in user code
 *   (the hardirq tracepoints, while the task is between our #DB and its
 *   next kernel entry, at its pending IP; the local timer's and devices'
 *   also before its first step after a return, by their frame) and page
 *   faults from user mode (page_fault_user) each add an IRET back to the
 *   pending instruction, and PT's FUP + TIP.PGD at it (its next step:
 *   TIP.PGE);
 * - a die notifier also sees the traps that report DIE_TRAP or DIE_INT3
 *   (#UD, #DE, #BP ...) from user mode, and a signal_generate probe the
 *   fault signals of the others (#GP, #MF, #XM): the task is in the
 *   kernel from there, so an interrupt before its signal is delivered
 *   is not one of user code; a fault's FUP + TIP.PGD is sent at its
 *   signal's generation, an int3's (a trap) and its BTS entry at
 *   DIE_INT3;
 * - fork copies the parent's flags: the child's TF is cleared in the
 *   fork probe, before it runs (an untraced child would die of SIGTRAP);
 * - pt_regs are touched only in the task's own context (the notifier,
 *   probes on current, the task_work), or for a task about to be
 *   switched in (sched_switch's next) or just forked: never for a task
 *   that may have exited.
 *
 * All of it runs with IRQs off on the CPU; no sleeping locks.  The hooks
 * are registered when model_exact is first set with the model running
 * and stay until unload, which waits until no task is armed and no
 * task_work is pending (their code is in this module).
 */
#include <linux/delay.h>
#include <linux/interrupt.h>
#include <linux/irq_work.h>
#include <linux/kdebug.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/debugfs.h>
#include <linux/mutex.h>
#include <linux/pt_trace.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/task_work.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <asm/debugreg.h>
#include <asm/irq_regs.h>
#include <asm/irq_vectors.h>
#include <asm/processor-flags.h>
#include <asm/ptrace.h>
#include <asm/trapnr.h>

#include "model.h"

bool pt_model_exact;

/* Tasks that run with our TF (pointers compared only). */
#define PT_EXACT_TASKS	64
static struct task_struct *pt_exact_tasks[PT_EXACT_TASKS];
static atomic_t pt_exact_ntasks = ATOMIC_INIT(0);
/*
 * Above the highest slot ever used: a lookup (every #DB, system call,
 * switch and interrupt while hooked) scans that far, not the whole
 * table.  Slots are taken lowest first and a task is armed on one CPU
 * at a time, so it stays near the number of CPUs.  Raised by the CPU
 * that arms a task before any lookup of that task (on that CPU, or on
 * another after a switch).
 */
static atomic_t pt_exact_hw = ATOMIC_INIT(0);
static atomic_t pt_exact_works = ATOMIC_INIT(0);	/* task_work pending */
static bool pt_exact_closing;
static bool pt_exact_hooked;
static struct dentry *pt_exact_dir;
static DEFINE_MUTEX(pt_exact_lock);

static int pt_exact_find(struct task_struct *t)
{
	int i, hw;

	if (!atomic_read(&pt_exact_ntasks))
		return -1;
	hw = atomic_read(&pt_exact_hw);
	for (i = 0; i < hw; i++)
		if (READ_ONCE(pt_exact_tasks[i]) == t)
			return i;
	return -1;
}

/* Only ever for one task on one CPU at a time: its own, or next's. */
static bool pt_exact_add(struct task_struct *t)
{
	int i, hw;

	if (pt_exact_find(t) >= 0)
		return true;
	for (i = 0; i < PT_EXACT_TASKS; i++)
		if (!cmpxchg(&pt_exact_tasks[i], NULL, t)) {
			atomic_inc(&pt_exact_ntasks);
			hw = atomic_read(&pt_exact_hw);
			while (hw <= i &&
			       !atomic_try_cmpxchg(&pt_exact_hw, &hw, i + 1))
				;
			return true;
		}
	return false;
}

/*
 * A set of tasks marked by one CPU and taken by another (or by the
 * task's exit): PT_EXACT_TASKS slots, lock-free.  Taking a task not in
 * the set returns false; adding to a full set drops the mark.
 */
static bool pt_exact_mark_take(struct task_struct **set, struct task_struct *t)
{
	int i;

	for (i = 0; i < PT_EXACT_TASKS; i++)
		if (READ_ONCE(set[i]) == t && cmpxchg(&set[i], t, NULL) == t)
			return true;
	return false;
}

static void pt_exact_mark_add(struct task_struct **set, struct task_struct *t)
{
	int i;

	for (i = 0; i < PT_EXACT_TASKS; i++)
		if (!cmpxchg(&set[i], NULL, t))
			return;
}

/*
 * Tasks whose SYSCALL was retired between it and our sys_enter probe
 * (pt_exact_syscall_retire(): a switch-out, a disable), so that their
 * sys_enter does not retire it again.  Set and cleared for a task by the
 * CPU it runs on (that retire, its sys_enter, its exit).
 */
static struct task_struct *pt_exact_sysdone[PT_EXACT_TASKS];

/*
 * Tasks switched out with a BTS return due from an interrupt or
 * exception at their pending instruction (pt_model_bts_exact_out()):
 * it is due again where they are switched in, on whichever CPU.  Set by
 * the switch-out, taken by the switch-in or the task's exit.
 */
static struct task_struct *pt_exact_kdue[PT_EXACT_TASKS];

/* @t is current, or a child not yet run: its pt_regs exist. */
static void pt_exact_disarm(struct task_struct *t)
{
	int i = pt_exact_find(t);

	if (!test_tsk_thread_flag(t, TIF_SINGLESTEP))
		task_pt_regs(t)->flags &= ~X86_EFLAGS_TF;
	if (i >= 0 && cmpxchg(&pt_exact_tasks[i], t, NULL) == t)
		atomic_dec(&pt_exact_ntasks);
}

/*
 * The CR3 filter.  For current the real CR3 of its user context, compared
 * as the generator does (bits 63:5); for a task not yet switched in, its
 * page-table base (bits 51:12) as a first guess, checked again with the
 * real CR3 at its first event.
 */
static bool pt_exact_cr3_ok(struct pt_model_cpu *st, struct task_struct *t)
{
	const struct pt_model_regs *r = &READ_ONCE(st->active)->regs;
	u64 cr3;

	if (!(r->ctl & PT_CTL_CR3FILTER) || pt_model_bts_exact(st))
		return true;	/* BTS has no CR3 filter: bts_exact.c */
	if (t == current)
		return !((pt_model_ctx_cr3(true) ^ r->cr3_match) &
			 ~GENMASK_ULL(4, 0));
	cr3 = __pa(t->mm->pgd);
	if (boot_cpu_has(X86_FEATURE_PTI))
		cr3 |= BIT_ULL(12);
	return !((cr3 ^ r->cr3_match) & GENMASK_ULL(51, 12));
}

/* Is current traced by this CPU now?  IRQs off. */
static bool pt_exact_traced(struct pt_model_cpu *st)
{
	return pt_model_exact_active(st) && pt_exact_cr3_ok(st, current);
}

/*
 * The stepped task crossed between user and kernel mode here (a step,
 * a kernel entry, a switch): the next BTS 0 -> 1 is no longer a pause
 * of the same kernel visit (pt_exact_arm()).
 */
static void pt_exact_crossed(struct pt_model_cpu *st)
{
	st->xuser = false;
	st->xbts_off = NULL;
}

/*
 * IRQs off (or NMI: a threshold PMI's BTS 0 -> 1, a ToPA PMI's TraceEn
 * 0 -> 1); @t is current or next (sched_switch).  @bts_on: BTS alone
 * was switched on.
 */
static void pt_exact_arm(struct pt_model_cpu *st, struct task_struct *t,
			 bool bts_on)
{
	struct pt_exact_stats *xs = pt_exact_stats_this();
	bool armed = pt_exact_find(t) >= 0;
	struct pt_regs *regs;

	/*
	 * BTS off and on again inside one kernel visit of @t: a threshold
	 * PMI's drain in its NMI (source_bts.c, bts_serve()) or the
	 * driver's switch record.  The CPU stores a BTM (a taken branch,
	 * interrupt or exception) as it happens while TR and BTS are set
	 * (SDM Vol. 3B 18.7.8.3, Table 18-8): DEBUGCTL writes between two
	 * BTMs are no transfer and make no return due, and the task
	 * returns as its kernel entry said.  Made due here, a return was stored at the
	 * next step as an IRET the task never made (the PMI's NMI comes
	 * right after the step whose record reached the threshold; it came
	 * from the kernel), and in NMI context the resume moved xpending
	 * under the code it interrupted.
	 */
	if (bts_on && armed && st->xbts_off == t)
		return;

	if (READ_ONCE(pt_exact_closing) || !t->mm ||
	    (t->flags & (PF_KTHREAD | PF_EXITING | PF_IO_WORKER)))
		return;
	if (!pt_exact_cr3_ok(st, t))
		return;
	if (!pt_exact_add(t)) {
		xs->arm_full++;
		return;
	}
	xs->arms++;
	regs = task_pt_regs(t);
	regs->flags |= X86_EFLAGS_TF;
	/*
	 * Armed already, the task's BTS returns are the probes' (they
	 * follow it whether PT is on or not).  BTS switched on again (as
	 * the driver's switch probe does at prev's switch-out): a return
	 * still due from an entry at its pending instruction stays due,
	 * else the one it makes next is stored.  TraceEn 0 -> 1 (PT's
	 * ToPA PMI restarting the trace in its NMI, a stream restart) is
	 * no BTM and changes nothing of them: made due here, an IRET the
	 * task never made was stored at its next step or interrupt (the
	 * PMI's NMI comes right after the step whose packets filled the
	 * region, in the #DB's kernel visit; tests/vm/bts_exact).
	 */
	if (!armed || (bts_on && !st->xkentered))
		pt_model_bts_exact_in(st, regs, pt_exact_mark_take(pt_exact_kdue, t));
	pt_model_exact_event(PT_EXACT_RESUME, regs->ip, NULL, t, NULL);
}

/* The bytes of the instruction at @ip, read without faulting. */
static bool pt_exact_read_insn(u64 ip, struct pt_insn *in)
{
	u8 buf[PT_INSN_MAX_LEN];
	unsigned int first, n;

	first = min_t(unsigned long, PT_INSN_MAX_LEN,
		      PAGE_SIZE - offset_in_page(ip));
	if (copy_from_user_nofault(buf, (const void __user *)ip, first))
		return false;
	n = first;
	if (first < PT_INSN_MAX_LEN &&
	    !copy_from_user_nofault(buf + first,
				    (const void __user *)(ip + first),
				    PT_INSN_MAX_LEN - first))
		n = PT_INSN_MAX_LEN;
	return pt_insn_decode(buf, n, in) > 0;
}

static void pt_exact_stray(struct pt_exact_stats *xs)
{
	xs->strays++;
	pt_exact_truth(PT_TRUTH_STRAY, instruction_pointer(task_pt_regs(current)),
		       current);
	pt_exact_disarm(current);
}

/* #DB of our step: the pending instruction retired, regs->ip is next. */
static void pt_exact_step(struct pt_regs *regs)
{
	struct pt_model_cpu *st = this_cpu_ptr(pt_model_cpus);
	struct pt_exact_stats *xs = pt_exact_stats_this();
	u64 t0 = local_clock(), ip, iip;
	struct pt_insn in;

	pt_exact_crossed(st);
	if (!pt_exact_traced(st)) {
		pt_exact_stray(xs);
		return;
	}
	xs->steps++;
	ip = pt_model_exact_pending(st);
	if (!pt_exact_read_insn(ip, &in)) {
		/* Counted: a test requires none. */
		xs->unclassified++;
		memset(&in, 0, sizeof(in));
		in.cls = PT_INSN_OTHER;
		in.len = regs->ip - ip < PT_INSN_MAX_LEN ? regs->ip - ip : 1;
	} else if (in.rep && regs->ip == ip) {
		/* One #DB per iteration; PT reports the instruction once. */
		xs->rep_iters++;
		goto out;
	}
	if (pt_model_exact_event(PT_EXACT_STEP, regs->ip, &in, current,
				 &iip)) {
		xs->insns++;
		pt_exact_truth_insn(iip, current);
	}
out:
	/*
	 * Still ours: the program may have cleared TF itself (popf, iretq
	 * with TF clear in the frame); silicon would go on tracing, so the
	 * model goes on stepping (tests/vm/exact_hostile).
	 */
	regs->flags |= X86_EFLAGS_TF;
	/* IRQs stay off until the IRET to user mode (no exit work). */
	st->xuser = true;
	xs->step_ns += local_clock() - t0;
}

/*
 * Test knob trap_irq (debugfs exact/): an irq_work queued at each trap
 * of a stepped task's user instruction (pt_exact_trap()), so that its
 * interrupt comes inside the trap's kernel visit as soon as the kernel
 * enables IRQs there (do_error_trap(), do_int3_user()), as a timer's
 * would now and then (tests/vm/bts_exact_signal).
 */
static bool pt_exact_trap_irq;
static DEFINE_PER_CPU(struct irq_work, pt_exact_trap_work);

static void pt_exact_trap_work_fn(struct irq_work *w)
{
}

/*
 * DIE_TRAP (#DE, #OF, #BR, #UD, #TS, #NP, #SS, #AC) or DIE_INT3 from
 * the user mode of a stepped task, IRQs off: its pending instruction
 * entered the kernel by that exception, which has no tracepoint.  The
 * task is in the kernel from here: the kernel enables IRQs before it
 * raises the signal, and an interrupt then, with the saved IP still at
 * the pending instruction, is not one of user code (pt_exact_hardirq()).
 * The exception's BTS record is still stored when its signal is seen
 * (pt_exact_signal()), an int3's here (pt_exact_int3()); one the kernel
 * resolves with no die event nor signal (a uprobe's int3: its notifier
 * stops the chain before ours) leaves no record (model.rst).
 */
static void pt_exact_kentry(struct pt_model_cpu *st, int vec, bool fault,
			    bool user);

/*
 * DIE_INT3 (@regs, after the int3 or int $3): unlike the faults, the
 * instruction was executed, a trap, and the kernel may resolve it with
 * no signal (a tracer that swallows the SIGTRAP, as pt-trace record
 * does).  An entry at the pending instruction if it is that one, as a
 * page fault's: PT's FUP + TIP.PGD there (libipt int-iret-cpl_3.ptt:
 * FUP(CLIP) + TIP.PGD, then TIP.PGE at the next instruction), BTS's
 * entry record and the IRET due after it; its signal, if delivered,
 * stores no second one (pt_model_bts_exact_kentry()).
 */
static void pt_exact_int3(struct pt_model_cpu *st, const struct pt_regs *regs)
{
	u64 ip = st->xpending;
	struct pt_insn in;

	if (pt_exact_traced(st) && pt_exact_read_insn(ip, &in) &&
	    (in.cls == PT_INSN_INT3 || in.cls == PT_INSN_INT) &&
	    ip + in.len == regs->ip)
		pt_exact_kentry(st, X86_TRAP_BP, false, true);
}

static void pt_exact_trap(const struct pt_regs *int3)
{
	struct pt_model_cpu *st = this_cpu_ptr(pt_model_cpus);
	struct pt_exact_stats *xs = pt_exact_stats_this();
	unsigned long flags;

	local_irq_save(flags);
	pt_exact_crossed(st);
	if (int3)
		pt_exact_int3(st, int3);
	xs->traps++;
	if (READ_ONCE(pt_exact_trap_irq) &&
	    irq_work_queue(this_cpu_ptr(&pt_exact_trap_work)))
		xs->trap_irqs++;
	local_irq_restore(flags);
}

static int pt_exact_die(struct notifier_block *nb, unsigned long val,
			void *data)
{
	struct die_args *args = data;
	struct pt_regs *regs = args->regs;
	unsigned long *dr6;

	if (!regs || !user_mode(regs))
		return NOTIFY_DONE;
	if (val == DIE_TRAP || val == DIE_INT3) {
		if (pt_exact_find(current) >= 0)
			pt_exact_trap(val == DIE_INT3 ? regs : NULL);
		return NOTIFY_DONE;
	}
	if (val != DIE_DEBUG)
		return NOTIFY_DONE;
	/* Since 5.10 err points to the DR6 value of this #DB. */
	dr6 = (unsigned long *)args->err;
	if (!(*dr6 & DR_STEP))
		return NOTIFY_DONE;
	if (pt_exact_find(current) < 0)
		return NOTIFY_DONE;	/* not our TF */
	pt_exact_step(regs);
	/* A debugger steps it too: its stop must happen. */
	if (test_thread_flag(TIF_SINGLESTEP))
		return NOTIFY_DONE;
	/*
	 * A debugger's watchpoint or breakpoint that hit at the same
	 * instruction shares this #DB: hw_breakpoint_handler() (called
	 * before us) moved its Bn bit into virtual_dr6, or another reason
	 * is left in DR6.  Its SIGTRAP must come: drop only our BS and
	 * pass the #DB on.  (Not run: QEMU's TCG delivers a data
	 * breakpoint and the single step as two #DBs, the second in the
	 * kernel's #DB entry, which the kernel WARNs about.)
	 */
	if ((current->thread.virtual_dr6 & DR_TRAP_BITS) || (*dr6 & ~DR_STEP)) {
		*dr6 &= ~DR_STEP;
		return NOTIFY_DONE;
	}
	return NOTIFY_STOP;
}

static struct notifier_block pt_exact_die_nb = {
	.notifier_call = pt_exact_die,
};

/* ---- probes ---- */

/*
 * The task (current) entered the kernel by the SYSCALL before @regs->ip:
 * is it the pending instruction?  Its address, or 0 (desync).  At its
 * sys_enter (@entry): a system call the kernel restarted (-ERESTART*
 * with no handler to run: regs->ip moved back by 2 after our resume at
 * the instruction after it, which sys_exit made, or the arm of a task
 * stopped in it) returned to user code at the SYSCALL, by IRET, and ran
 * it again: that resume first.  (Elsewhere pending == regs->ip is a task
 * in the body of a system call already retired.)
 */
static u64 pt_exact_syscall_at(struct pt_model_cpu *st,
			       const struct pt_regs *regs, bool entry,
			       struct pt_insn *in)
{
	u64 ip = pt_model_exact_pending(st);
	struct pt_regs back;

	if (entry && ip == regs->ip && pt_exact_read_insn(ip - 2, in) &&
	    in->cls == PT_INSN_SYSCALL && in->len == 2) {
		back = *regs;
		back.ip -= 2;
		pt_exact_stats_this()->restarts++;
		pt_model_bts_exact_resume(st, &back);
		pt_model_exact_event(PT_EXACT_RESUME, back.ip, NULL, current,
				     NULL);
		return back.ip;
	}
	if (ip + 2 != regs->ip || !pt_exact_read_insn(ip, in) ||
	    in->cls != PT_INSN_SYSCALL)
		return 0;
	return ip;
}

static void pt_exact_sys_enter(void *data, struct pt_regs *regs, long id)
{
	struct pt_model_cpu *st;
	unsigned long flags;
	struct pt_insn in;
	u64 iip;

	if (pt_exact_find(current) < 0)
		return;
	local_irq_save(flags);
	st = this_cpu_ptr(pt_model_cpus);
	WRITE_ONCE(st->xsys_probe, true);
	barrier();
	pt_exact_crossed(st);
	/* Retired before this probe (pt_exact_syscall_retire()). */
	if (pt_exact_mark_take(pt_exact_sysdone, current))
		goto out;
	if (!pt_exact_traced(st))
		goto out;
	/* SYSCALL raised no #DB: it is the pending instruction. */
	if (!pt_exact_syscall_at(st, regs, true, &in)) {
		pt_exact_stats_this()->desync++;
		goto out;
	}
	if (pt_model_exact_event(PT_EXACT_SYSCALL, regs->ip, &in, current,
				 &iip)) {
		pt_exact_stats_this()->insns++;
		pt_exact_truth_insn(iip, current);
	}
out:
	barrier();
	WRITE_ONCE(st->xsys_probe, false);
	local_irq_restore(flags);
}

static void pt_exact_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	struct pt_model_cpu *st;
	unsigned long flags;

	if (pt_exact_find(current) < 0)
		return;
	local_irq_save(flags);
	st = this_cpu_ptr(pt_model_cpus);
	/*
	 * A mark its sys_enter did not take: the kernel skipped the
	 * tracepoint (seccomp's verdict, ptrace's SYSEMU, syscall user
	 * dispatch); left, it made the next system call's probe skip that.
	 */
	pt_exact_mark_take(pt_exact_sysdone, current);
	if (!pt_exact_traced(st)) {
		pt_exact_stray(pt_exact_stats_this());
	} else {
		/* exec and sigreturn set new flags: ours again. */
		regs->flags |= X86_EFLAGS_TF;
		pt_model_bts_exact_resume(st, regs);
		pt_model_exact_event(PT_EXACT_RESUME, regs->ip, NULL, current,
				     NULL);
	}
	local_irq_restore(flags);
}

/*
 * @t (current) is in the kernel between its SYSCALL and our sys_enter
 * probe (the entry code enables IRQs first: a preemptible kernel can
 * switch it out there, an IPI or the PMI can stop the trace there; a
 * debug kernel's entry work makes the window long).  Silicon retired the
 * SYSCALL when it ran (TIP.PGD at its target); the model sends it at the
 * probe.  Something that ends the trace's view of @t before the probe
 * (a switch-out, TraceEn or BTS 1 -> 0) retires it first, so the trace
 * and the truth show the syscall, not an asynchronous leave at it (FUP +
 * TIP.PGD at the SYSCALL, and a resume past it: the probe's desync);
 * the probe then skips it.  Also in NMI (the PMI's stream service):
 * the mark is a cmpxchg, the truth defers its line (exact_truth.c).
 */
static void pt_exact_syscall_retire(struct pt_model_cpu *st,
				    struct task_struct *t)
{
	struct pt_regs *regs = task_pt_regs(t);
	struct pt_insn in;
	u64 iip;

	/* The probe or another retire at work here: an NMI inside it. */
	if ((long)regs->orig_ax < 0 || READ_ONCE(st->xsys_probe) ||
	    !pt_exact_traced(st))
		return;
	WRITE_ONCE(st->xsys_probe, true);
	barrier();
	if (pt_exact_syscall_at(st, regs, false, &in)) {
		pt_exact_stats_this()->syscalls_out++;
		if (pt_model_exact_event(PT_EXACT_SYSCALL, regs->ip, &in, t,
					 &iip)) {
			pt_exact_stats_this()->insns++;
			pt_exact_truth_insn(iip, t);
		}
		pt_exact_mark_add(pt_exact_sysdone, t);
	}
	barrier();
	WRITE_ONCE(st->xsys_probe, false);
}

/*
 * TraceEn (@pt) or BTS 1 -> 0 on this CPU, published next (model.c):
 * the driver's stop, its stream service (an IPI, the PMI), a follower's
 * switch-out in its sched_switch probe, which runs before ours.  A task
 * still in user code as far as PT knows (the disable came in its #DB's
 * kernel visit: a PMI's NMI, a follower's switch at its return) leaves
 * there with FUP + TIP.PGD (pt_model_exact_on_disable()): the truth's
 * out line, as a switch-out's (pt_exact_switch()) when PT is still on.
 */
void pt_model_exact_disabling(struct pt_model_cpu *st, bool pt)
{
	u64 ip;

	if (!READ_ONCE(pt_exact_hooked) || pt_exact_find(current) < 0)
		return;
	pt_exact_syscall_retire(st, current);
	if (pt && pt_model_exact_disable_leaves(st, &ip))
		pt_exact_truth(PT_TRUTH_OUT, ip, current);
}

/* Runs after the driver's probe (lower priority), IRQs off. */
static void pt_exact_switch(void *data, bool preempt,
			    struct task_struct *prev,
			    struct task_struct *next,
			    unsigned int prev_state)
{
	struct pt_model_cpu *st = this_cpu_ptr(pt_model_cpus);

	pt_exact_crossed(st);
	if (pt_exact_find(prev) >= 0) {
		pt_exact_syscall_retire(st, prev);
		if (pt_model_bts_exact_out(st))
			pt_exact_mark_add(pt_exact_kdue, prev);
		pt_model_exact_event(PT_EXACT_OUT, 0, NULL, prev, NULL);
		pt_exact_disarm(prev);
	}
	if (pt_model_exact_active(st))
		pt_exact_arm(st, next, false);
}

static void pt_exact_fork(void *data, struct task_struct *parent,
			  struct task_struct *child)
{
	if (pt_exact_find(parent) < 0)
		return;
	/* Not yet run: it is armed when switched in where it is traced. */
	if (!test_tsk_thread_flag(child, TIF_SINGLESTEP))
		task_pt_regs(child)->flags &= ~X86_EFLAGS_TF;
	pt_exact_stats_this()->forks++;
}

static void pt_exact_task_exit(void *data, struct task_struct *p)
{
	unsigned long flags;

	pt_exact_mark_take(pt_exact_sysdone, p);
	pt_exact_mark_take(pt_exact_kdue, p);
	if (pt_exact_find(p) < 0)
		return;
	local_irq_save(flags);
	pt_model_bts_exact_out(this_cpu_ptr(pt_model_cpus));
	pt_model_exact_event(PT_EXACT_OUT, 0, NULL, p, NULL);
	pt_exact_disarm(p);
	local_irq_restore(flags);
}

static void pt_exact_exec(void *data, struct task_struct *p, pid_t old_pid,
			  struct linux_binprm *bprm)
{
	unsigned long flags;

	if (pt_exact_find(p) < 0)
		return;
	local_irq_save(flags);
	pt_exact_stats_this()->execs++;
	pt_exact_truth(PT_TRUTH_EXEC, 0, p);
	local_irq_restore(flags);
}

/* The handler's first instruction: the frame is built, regs->ip is it. */
static void pt_exact_signal_work(struct callback_head *w)
{
	struct pt_regs *regs = task_pt_regs(current);
	unsigned long flags;

	kfree(w);
	local_irq_save(flags);
	if (!(current->flags & PF_EXITING) && pt_exact_find(current) >= 0) {
		if (!pt_exact_traced(this_cpu_ptr(pt_model_cpus))) {
			pt_exact_stray(pt_exact_stats_this());
		} else {
			regs->flags |= X86_EFLAGS_TF;
			/* An IRET into the handler (RCX is not its IP). */
			pt_model_bts_exact_resume(this_cpu_ptr(pt_model_cpus),
						  regs);
			pt_model_exact_event(PT_EXACT_RESUME, regs->ip, NULL,
					     current, NULL);
		}
	}
	local_irq_restore(flags);
	/* Last: unload waits for this (the rest of this function is a ret). */
	atomic_dec(&pt_exact_works);
}

/*
 * Current's pending user instruction entered the kernel (vector @vec;
 * @fault: the exception that raised its signal): BTS's record of that
 * entry (bts_exact.c) and, if it stored one, its truth line; and, taken
 * in user code (an interrupt; a page fault, @user: from user code for
 * sure), PT's FUP + TIP.PGD there (exact.c).  A fault's signal needs
 * none here: its generation sent them (pt_exact_siggen()), or else the
 * resume into its handler, or the exit, does.  IRQs off.
 */
static void pt_exact_kentry(struct pt_model_cpu *st, int vec, bool fault,
			    bool user)
{
	if (pt_model_bts_exact_kentry(st, vec, fault))
		pt_exact_truth_kentry(st->xpending, current, vec);
	if (!fault)
		pt_model_exact_kentry(vec, user);
}

/*
 * A signal the kernel raised for an exception of the user instruction
 * that was pending, whose handler set thread.trap_nr: a fault's signal
 * from the kernel (si_code > 0: not kill() or a timer) while current
 * was not in a system call (a signal at a syscall's return is none of
 * its instruction's exceptions).  Its own registers say so (orig_ax:
 * the call's number in one, -1 after an exception or interrupt), not
 * the CPU's last stepped instruction, which is another task's after a
 * switch (BTS steps every user task on the CPU).
 */
static bool pt_exact_fault_signal(int sig, const struct kernel_siginfo *info)
{
	if (!info || info->si_code <= 0 ||
	    (long)task_pt_regs(current)->orig_ax >= 0)
		return false;
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL ||
	       sig == SIGFPE || sig == SIGTRAP;
}

/*
 * Current left its user code for the kernel by vector @vec: a page
 * fault (@regs, its user frame), an entry of the pending instruction if
 * at its IP while traced; or the exception whose signal @sig (@info) is
 * delivered (@regs NULL), stored whatever the signal's disposition.
 */
static void pt_exact_entered(int vec, const struct pt_regs *regs, int sig,
			     const struct kernel_siginfo *info)
{
	struct pt_model_cpu *st;
	unsigned long flags;

	local_irq_save(flags);
	st = this_cpu_ptr(pt_model_cpus);
	pt_exact_crossed(st);
	if (regs ? regs->ip == st->xpending && pt_exact_traced(st) :
		   pt_exact_fault_signal(sig, info))
		pt_exact_kentry(st, vec, !regs, !!regs);
	local_irq_restore(flags);
}

/*
 * A signal generated for current (IRQs off, its siglock held): one the
 * kernel raised for an exception of the pending user instruction
 * (pt_exact_fault_signal()) is the first the model hears of the
 * exceptions the kernel reports on no die chain from user mode (#GP,
 * #MF, #XM): the task is in the kernel from here, as after DIE_TRAP
 * (pt_exact_trap()), so an interrupt in the rest of that kernel visit,
 * before the signal is delivered, is not one of user code.  (One
 * between the exception and this point still is: the kernel enables
 * IRQs first.)  Its BTS record still comes with the signal's delivery
 * (pt_exact_signal()), whatever its disposition.  Test knob
 * trap_irq: an irq_work, taken when the kernel enables IRQs again in
 * that visit (tests/vm/exact_exc, bts_exact_exc).
 */
static void pt_exact_siggen(void *data, int sig, struct kernel_siginfo *info,
			    struct task_struct *task, int group, int result)
{
	struct pt_model_cpu *st;
	unsigned long flags;

	if (task != current || info == SEND_SIG_NOINFO ||
	    info == SEND_SIG_PRIV || pt_exact_find(current) < 0)
		return;
	local_irq_save(flags);
	st = this_cpu_ptr(pt_model_cpus);
	if (pt_exact_fault_signal(sig, info)) {
		int vec = current->thread.trap_nr;

		/*
		 * A fault of the pending instruction (its IP; a trap's is
		 * past it, int3's entry was DIE_INT3's) other than a page
		 * fault (its tracepoint's entry): PT's FUP + TIP.PGD now,
		 * with its vector, TIP.PGE first if PacketEn was 0 (an
		 * interrupt there before it), as a page fault's.
		 */
		if (vec != X86_TRAP_PF &&
		    task_pt_regs(current)->ip == st->xpending &&
		    pt_exact_traced(st))
			pt_model_exact_kentry(vec, true);
		/* In the kernel from here, as after DIE_TRAP. */
		pt_exact_crossed(st);
		pt_exact_stats_this()->fault_sigs++;
		if (READ_ONCE(pt_exact_trap_irq) &&
		    irq_work_queue(this_cpu_ptr(&pt_exact_trap_work)))
			pt_exact_stats_this()->trap_irqs++;
	}
	local_irq_restore(flags);
}

static void pt_exact_signal(void *data, int sig, struct kernel_siginfo *info,
			    struct k_sigaction *ka)
{
	struct callback_head *w;

	if (pt_exact_find(current) < 0)
		return;
	pt_exact_entered(current->thread.trap_nr, NULL, sig, info);
	if (ka->sa.sa_handler == SIG_IGN || ka->sa.sa_handler == SIG_DFL)
		return;
	w = kmalloc(sizeof(*w), GFP_ATOMIC);
	if (!w)
		return;
	init_task_work(w, pt_exact_signal_work);
	atomic_inc(&pt_exact_works);
	if (task_work_add(current, w, TWA_RESUME)) {
		kfree(w);
		atomic_dec(&pt_exact_works);
		return;
	}
	pt_exact_stats_this()->signals++;
}

/*
 * The frame a hardirq with vector @vec interrupted, where the kernel says
 * (set_irq_regs()): the local timer's and devices' (@vec -1) handlers
 * set it before their tracepoints; the IPIs' (reschedule, call function,
 * irq_work) do not.
 */
static struct pt_regs *pt_exact_irq_frame(int vec)
{
	return vec == LOCAL_TIMER_VECTOR || vec < 0 ? get_irq_regs() : NULL;
}

/*
 * A hardirq on this CPU (vector @vec, -1: a device's, unknown): did it
 * interrupt the armed task's user code?  Between our #DB and the task's
 * next kernel entry it runs user code, and the interrupt's frame is its
 * user frame at the pending instruction.  Before the task's first step
 * after a return the model did not step (a system call's, a signal
 * handler's, another interrupt's) only the interrupt's own frame says
 * whether it came from user code: where the kernel gives it, an
 * interrupt there is an entry too, as one after a step: PT's return
 * TIP.PGE first (as a page fault's, exact.c), then FUP + TIP.PGD; BTS's
 * record of the return, stored now, then the entry's (bts_exact.c,
 * pt_model_bts_exact_kentry(): not with BTS_OFF_OS) and an IRET due
 * (tests/vm/bts_exact_irq).
 */
static void pt_exact_hardirq(int vec)
{
	struct pt_regs *user = task_pt_regs(current), *frame;
	struct pt_model_cpu *st;

	if (pt_exact_find(current) < 0)
		return;
	st = this_cpu_ptr(pt_model_cpus);
	if (!st->xuser) {
		frame = pt_exact_irq_frame(vec);
		if (frame == user && user_mode(frame) &&
		    frame->ip == st->xpending && pt_exact_traced(st)) {
			pt_exact_stats_this()->ret_irqs++;
			st->xbts_off = NULL;
			pt_exact_kentry(st, vec, false, true);
		}
		return;
	}
	/*
	 * Its own frame, where the kernel gives it, is not the user one:
	 * the task is in the kernel already, by an entry the model has not
	 * seen (the start of a #GP's kernel visit, before its signal's
	 * generation; exit work with IRQs on after our #DB).
	 */
	frame = pt_exact_irq_frame(vec);
	if (frame && frame != user) {
		pt_exact_crossed(st);
		return;
	}
	st->xbts_off = NULL;
	if (user->ip == st->xpending && pt_exact_traced(st))
		pt_exact_kentry(st, vec, false, false);
}

static void pt_exact_vector(void *data, int vector)
{
	pt_exact_hardirq(vector);
}

static void pt_exact_irq(void *data, int irq, struct irqaction *action)
{
	pt_exact_hardirq(-1);
}

/* A page fault of the pending instruction (handled, or its signal next). */
static void pt_exact_pf_user(void *data, unsigned long address,
			     struct pt_regs *regs, unsigned long error_code)
{
	if (pt_exact_find(current) < 0)
		return;
	pt_exact_entered(X86_TRAP_PF, regs, 0, NULL);
}

static struct {
	const char *name;
	void *probe;
	int prio;
	bool optional;		/* interrupt records, trap_irq only */
	struct tracepoint *tp;
} pt_exact_tps[] = {
	{ "sys_enter", pt_exact_sys_enter, TRACEPOINT_DEFAULT_PRIO },
	{ "sys_exit", pt_exact_sys_exit, TRACEPOINT_DEFAULT_PRIO },
	/* After the driver's (default priority): tracing is switched. */
	{ "sched_switch", pt_exact_switch, TRACEPOINT_DEFAULT_PRIO - 5 },
	{ "sched_process_fork", pt_exact_fork, TRACEPOINT_DEFAULT_PRIO },
	{ "sched_process_exit", pt_exact_task_exit, TRACEPOINT_DEFAULT_PRIO },
	{ "sched_process_exec", pt_exact_exec, TRACEPOINT_DEFAULT_PRIO },
	{ "signal_deliver", pt_exact_signal, TRACEPOINT_DEFAULT_PRIO },
	{ "signal_generate", pt_exact_siggen, TRACEPOINT_DEFAULT_PRIO, true },
	{ "page_fault_user", pt_exact_pf_user, TRACEPOINT_DEFAULT_PRIO, true },
	{ "local_timer_entry", pt_exact_vector, TRACEPOINT_DEFAULT_PRIO, true },
	{ "reschedule_entry", pt_exact_vector, TRACEPOINT_DEFAULT_PRIO, true },
	{ "call_function_entry", pt_exact_vector, TRACEPOINT_DEFAULT_PRIO,
	  true },
	{ "call_function_single_entry", pt_exact_vector,
	  TRACEPOINT_DEFAULT_PRIO, true },
	{ "irq_work_entry", pt_exact_vector, TRACEPOINT_DEFAULT_PRIO, true },
	{ "irq_handler_entry", pt_exact_irq, TRACEPOINT_DEFAULT_PRIO, true },
};

static void pt_exact_find_tp(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pt_exact_tps); i++)
		if (!strcmp(tp->name, pt_exact_tps[i].name))
			pt_exact_tps[i].tp = tp;
}

static void pt_exact_unhook(unsigned int n)
{
	while (n--)
		if (pt_exact_tps[n].tp)
			tracepoint_probe_unregister(pt_exact_tps[n].tp,
						    pt_exact_tps[n].probe, NULL);
	tracepoint_synchronize_unregister();
}

/* pt_exact_lock held. */
static int pt_exact_hook(void)
{
	unsigned int i;
	int ret;

	if (pt_exact_hooked)
		return 0;
	if (!pt_exact_dir)
		return 0;	/* the model is not running: at its init */
	ret = pt_exact_truth_alloc();
	if (ret)
		return ret;
	for_each_kernel_tracepoint(pt_exact_find_tp, NULL);
	pt_model_kret_init();
	for (i = 0; i < ARRAY_SIZE(pt_exact_tps); i++) {
		if (!pt_exact_tps[i].tp && pt_exact_tps[i].optional)
			continue;
		if (!pt_exact_tps[i].tp) {
			pr_err("model_exact needs the tracepoint %s, which this kernel does not have\n",
			       pt_exact_tps[i].name);
			ret = -ENOENT;
			break;
		}
		ret = tracepoint_probe_register_prio(pt_exact_tps[i].tp,
						     pt_exact_tps[i].probe,
						     NULL, pt_exact_tps[i].prio);
		if (ret)
			break;
	}
	if (!ret)
		ret = register_die_notifier(&pt_exact_die_nb);
	if (ret) {
		pt_exact_unhook(i);
		return ret;
	}
	pt_exact_truth_files(pt_exact_dir);
	pt_exact_hooked = true;
	pr_info("model: exact mode: user code traced with TraceEn, User=1, OS=0 is single-stepped\n");
	return 0;
}

static int pt_exact_param_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int ret = kstrtobool(val, &on);

	if (ret)
		return ret;
	mutex_lock(&pt_exact_lock);
	if (on)
		ret = pt_exact_hook();
	if (!ret)
		WRITE_ONCE(pt_model_exact, on);
	mutex_unlock(&pt_exact_lock);
	return ret;
}

static const struct kernel_param_ops pt_exact_param_ops = {
	.set = pt_exact_param_set,
	.get = param_get_bool,
};
module_param_cb(model_exact, &pt_exact_param_ops, &pt_model_exact, 0644);
MODULE_PARM_DESC(model_exact,
		 "single-step user code traced with User=1, OS=0 and encode it exactly (default 0; Documentation/model.rst, Exact mode)");

void pt_model_exact_enabled(struct pt_model_cpu *st, bool bts_only)
{
	if (!READ_ONCE(pt_exact_hooked) || !pt_model_exact_active(st))
		return;
	/*
	 * TraceEn 0 -> 1 in NMI: a PMI handler restarting the trace it
	 * halted, which changes nobody's stepping.  current is whatever the
	 * NMI interrupted: in a switch (a PMI raised by the resume of the
	 * task switched in) it is the task switched out, disarmed already;
	 * armed there, it took the pending IP of the task about to run and
	 * was stepped where it is not traced.
	 */
	if (in_nmi() && !bts_only && pt_exact_find(current) < 0)
		return;
	pt_exact_arm(st, current, bts_only);
}

void pt_model_exact_bts_off(struct pt_model_cpu *st)
{
	if (READ_ONCE(pt_exact_hooked) && pt_exact_find(current) >= 0)
		st->xbts_off = current;
}

void pt_model_exact_init(struct dentry *dir)
{
	int cpu;

	for_each_possible_cpu(cpu)
		init_irq_work(per_cpu_ptr(&pt_exact_trap_work, cpu),
			      pt_exact_trap_work_fn);
	mutex_lock(&pt_exact_lock);
	pt_exact_closing = false;
	pt_exact_dir = debugfs_create_dir("exact", dir);
	debugfs_create_bool("trap_irq", 0600, pt_exact_dir, &pt_exact_trap_irq);
	if (pt_model_exact && pt_exact_hook())
		WRITE_ONCE(pt_model_exact, false);
	mutex_unlock(&pt_exact_lock);
}

void pt_model_exact_exit(void)
{
	int cpu, ms = 0;

	mutex_lock(&pt_exact_lock);
	WRITE_ONCE(pt_exact_closing, true);
	if (pt_exact_hooked) {
		/* Armed tasks disarm at their next step or switch. */
		while ((atomic_read(&pt_exact_ntasks) ||
			atomic_read(&pt_exact_works)) && ms < 10000) {
			msleep(20);
			ms += 20;
		}
		if (atomic_read(&pt_exact_ntasks) || atomic_read(&pt_exact_works))
			pr_err("model: exact mode: %d tasks still stepped, %d signal works pending at unload\n",
			       atomic_read(&pt_exact_ntasks),
			       atomic_read(&pt_exact_works));
		pt_exact_unhook(ARRAY_SIZE(pt_exact_tps));
		unregister_die_notifier(&pt_exact_die_nb);
		pt_exact_hooked = false;
	}
	WRITE_ONCE(pt_exact_trap_irq, false);
	for_each_possible_cpu(cpu)
		irq_work_sync(per_cpu_ptr(&pt_exact_trap_work, cpu));
	debugfs_remove(pt_exact_dir);
	pt_exact_dir = NULL;
	pt_exact_truth_free();
	mutex_unlock(&pt_exact_lock);
}
