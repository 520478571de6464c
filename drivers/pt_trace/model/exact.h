/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The instruction-exact model (model_exact=1, issue 12): while a CPU's
 * RTIT_CTL has TraceEn=1, User=1 and OS=0, the user code that CPU runs
 * is single-stepped (exact_step.c) and every retired instruction is
 * encoded (exact_enc.c) and written through the model's output path
 * (exact.c), instead of the sampled generator's invented branches.  The
 * instructions are also logged as ground truth (exact_truth.c).  See
 * Documentation/model.rst, "Exact mode".
 */
#ifndef _PT_TRACE_MODEL_EXACT_H
#define _PT_TRACE_MODEL_EXACT_H

#include <linux/types.h>

#include "exact_enc.h"

struct pt_model_cpu;
struct pt_model_state;
struct pt_regs;
struct task_struct;
struct dentry;

/* The stream state of exact mode, part of the model's per-CPU state. */
struct pt_model_exact {
	bool on;		/* this enable is exact (decided at TraceEn 0->1) */
	u64 pending;		/* next user instruction of the stepped task */
	/*
	 * Timing (exact.c): the crystal-clock period (CTC >> MTCFreq) of the
	 * last MTC, or of the TMA/enable, when mtc_valid; the TSC of the
	 * last CYC (or of TraceEn 0->1: the cycle counter starts there).
	 */
	u64 mtc_period;
	bool mtc_valid;
	u64 cyc_tsc;
	struct pt_exact_enc enc;
};

/* What a stepped task did, as seen from the kernel (exact.c). */
enum pt_exact_ev {
	PT_EXACT_STEP,		/* the pending instruction retired (#DB) */
	PT_EXACT_SYSCALL,	/* the pending instruction is a syscall, entered */
	PT_EXACT_RESUME,	/* the task returns to user at ip */
	PT_EXACT_OUT,		/* the task leaves the CPU */
	PT_EXACT_KENTRY,	/* an interrupt or exception at the pending IP */
};

extern bool pt_model_exact;

/* exact.c: the stream side. */
void pt_model_exact_on_enable(struct pt_model_state *s);
u32 pt_model_exact_on_disable(struct pt_model_state *s, struct pt_pkt_buf *b);
bool pt_model_exact_active(struct pt_model_cpu *st);
/* The stepped task's next user instruction on this CPU (its pending). */
u64 pt_model_exact_pending(struct pt_model_cpu *st);
/*
 * Feed one event of the task that runs on this CPU (IRQs off); @in is
 * the decoded pending instruction for STEP and SYSCALL.  Returns false
 * when the CPU is not in exact mode.
 */
bool pt_model_exact_event(enum pt_exact_ev ev, u64 ip,
			  const struct pt_insn *in, struct task_struct *t,
			  u64 *insn_ip);
/*
 * Current, in its user code at its pending instruction, entered the
 * kernel by an interrupt or exception (vector @vec, -1: a device
 * interrupt's) that returns there: FUP + TIP.PGD if its code was being
 * traced, and the truth's out line (IRQs off, not NMI).  @fault: a
 * fault of that instruction, or an interrupt whose frame is the user
 * one, so the task ran user code there for sure (TIP.PGE first if
 * PacketEn was 0).
 */
void pt_model_exact_kentry(int vec, bool fault);
/*
 * The truth line of the instruction pt_model_exact_event() gave in
 * *insn_ip (its caller writes it), then the psb line of a PSB+ that
 * event wrote after the instruction's packets.
 */
void pt_exact_truth_insn(u64 ip, struct task_struct *t);

/* exact_step.c: the stepping machinery. */
void pt_model_exact_init(struct dentry *dir);
void pt_model_exact_exit(void);
/*
 * After a TraceEn 0->1 or a BTS 0->1 (@bts_only: BTS alone) was
 * published on this CPU; after a BTS 1->0, pt_model_exact_bts_off().
 */
void pt_model_exact_enabled(struct pt_model_cpu *st, bool bts_only);
void pt_model_exact_bts_off(struct pt_model_cpu *st);
/*
 * Before a TraceEn 1->0 (@pt) or a BTS 1->0 is published on this CPU;
 * pt_model_exact_disable_leaves(): the FUP + TIP.PGD that TraceEn 1->0
 * sends, and where.
 */
void pt_model_exact_disabling(struct pt_model_cpu *st, bool pt);
bool pt_model_exact_disable_leaves(struct pt_model_cpu *st, u64 *ip);

/* exact_truth.c: the ground truth, per CPU. */
enum pt_truth_kind {
	PT_TRUTH_INSN,
	PT_TRUTH_RESUME,
	PT_TRUTH_OUT,
	PT_TRUTH_PSB,
	PT_TRUTH_EXEC,
	PT_TRUTH_STRAY,
	PT_TRUTH_KENTRY,	/* BTS: an interrupt or exception at IP */
	PT_TRUTH_KOUT,		/* PT: out at IP by an interrupt or exception */
};

struct pt_exact_stats {
	u64 steps;		/* #DBs of our steps */
	u64 insns;		/* instructions encoded (truth lines) */
	u64 rep_iters;		/* rep string iterations collapsed */
	u64 unclassified;	/* bytes unreadable or not an instruction */
	u64 strays;		/* steps of a task no longer traced: TF cleared */
	u64 desync;		/* a syscall that was not the pending instruction */
	u64 syscalls_out;	/* retired before sys_enter: a switch-out, a disable */
	u64 restarts;		/* system calls the kernel restarted (ip -= 2) */
	u64 arms, arm_full;	/* tasks armed; refused, table full */
	u64 signals, execs, forks;
	u64 step_ns;		/* time spent in the notifier (bench) */
	u64 traps;		/* DIE_TRAP, DIE_INT3 from a stepped task */
	u64 fault_sigs;		/* its fault signals generated (signal_generate) */
	u64 trap_irqs;		/* irq_works queued there (trap_irq) */
	u64 ret_irqs;		/* interrupts before a return's first step */
};

int pt_exact_truth_alloc(void);
void pt_exact_truth_files(struct dentry *dir);
void pt_exact_truth_free(void);
/* Log a line on this CPU about @t (from NMI: at the CPU's next line). */
void pt_exact_truth(enum pt_truth_kind kind, u64 ip, struct task_struct *t);
/* A kentry line: vector @vec (-1: a device interrupt's, unknown). */
void pt_exact_truth_kentry(u64 ip, struct task_struct *t, int vec);
/* An out line for the FUP + TIP.PGD of such an entry (vector @vec). */
void pt_exact_truth_kout(u64 ip, struct task_struct *t, int vec);
struct pt_exact_stats *pt_exact_stats_this(void);

#endif /* _PT_TRACE_MODEL_EXACT_H */
