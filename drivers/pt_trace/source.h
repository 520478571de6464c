/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A trace source: the hardware-specific half of a per-CPU trace device.
 *
 * The core (core.c) owns what every source shares: the per-CPU device
 * lifecycle (open, release, CPU hotplug, suspend), the configuration
 * staging and its locking, the buffer and its control page, START/STOP/
 * status sequencing, ownership checks and debugfs.  A source says how its
 * hardware is configured, started, stopped and read back, always through
 * pt_rdmsr()/pt_wrmsr() (hw.h).  Intel PT is the source in source_pt.c.
 *
 * Every operation is called with pc->lock held unless said otherwise;
 * the *_ipi ones run on the traced CPU with IRQs off
 * (smp_call_function_single()).
 */
#ifndef _PT_TRACE_SOURCE_H
#define _PT_TRACE_SOURCE_H

#include <linux/types.h>

struct pt_cpu;
struct task_struct;
struct pt_trace_caps;
struct pt_trace_config;

/* Who holds the source's MSRs on a CPU, against the values we wrote. */
enum pt_hw_holder { PT_HW_OURS, PT_HW_CLEARED, PT_HW_FOREIGN };

/* What the core hands a source's start, stop and peek IPIs. */
struct pt_hw_args {
	struct pt_cpu *pc;
	u64 base, mask, ctl;
	u64 status;
	u64 laps;		/* ToPA flight: wraps counted by the PMI */
	bool wrapped;		/* flight: the zeroed window was written */
	int ret;
	bool vmx;		/* refused: VMX operation (caps.h) */
	bool foreign;		/* refused: TraceEn already set */
	enum pt_hw_holder holder;	/* at stop or peek */
	u64 found_ctl;		/* ... to this RTIT_CTL */
};

struct pt_source_ops {
	const char *name;		/* "pt": /dev/ptN */
	const char *label;		/* "PT", in log lines */
	/* A fresh open's configuration and the control value it gives. */
	void (*defaults)(struct pt_trace_config *cfg, u64 *ctl);
	/*
	 * Check a whole configuration against the caps and the caller's
	 * privileges (not while running); the control value for @cfg in
	 * @ctl.  Nothing is committed.
	 */
	int (*check_config)(struct pt_cpu *pc,
			    const struct pt_trace_config *cfg, u64 *ctl);
	/*
	 * Optional, SET_CONFIG before pc->lock (no driver lock held):
	 * register what @cfg needs from the kernel (tracepoints take the
	 * CPU hotplug lock, which hotplug holds around pc->lock).
	 */
	int (*config_hooks)(const struct pt_trace_config *cfg);
	/* START: may the caller (still) trace what pc is configured for? */
	int (*may_start)(struct pt_cpu *pc);
	/*
	 * START, before the IPI: lay the buffer out, compute the pointers
	 * and control value into @a.  From here the source's PMIs may
	 * come: a failed START calls disarm().
	 */
	int (*prepare)(struct pt_cpu *pc, struct pt_hw_args *a);
	/* The START itself (IPI and refusal messages); 0 when tracing. */
	int (*start)(struct pt_cpu *pc, struct pt_hw_args *a);
	void (*disarm)(struct pt_cpu *pc);
	/* Stop and account (pc->running set); clears pc->running. */
	int (*stop)(struct pt_cpu *pc);
	/* A status while running: bring pc's head/offset/flags up to date. */
	int (*refresh)(struct pt_cpu *pc);
	/* The source's NMI_LOCAL handler body on this CPU (NMI context). */
	int (*nmi)(struct pt_cpu *pc);
	/*
	 * cpuhp online, on the CPU: false (after a log line) when its caps
	 * are not the boot CPU's the configurations were checked against.
	 */
	bool (*cpu_agrees)(unsigned int cpu);
	void (*get_caps)(struct pt_cpu *pc, struct pt_trace_caps *caps);
	/*
	 * perf or another agent holds the hardware on @cpu: refuse START.
	 * Hotplug excluded by the caller (cpus_read_lock()).
	 */
	int (*reserve)(unsigned int cpu);
	/*
	 * Optional: the last close, after the final stop and the buffer's
	 * release (no lock held): free what the source allocated.
	 */
	void (*release)(struct pt_cpu *pc);
	/*
	 * Optional: @pc's CPU goes down (its hotplug callback, after the
	 * stop; hotplug lock held, pc->lock not): drop what perf detaches.
	 */
	void (*offline)(struct pt_cpu *pc);
};

extern const struct pt_source_ops pt_source_pt;
/* Branch Trace Store (source_bts.c): /dev/btsN. */
extern const struct pt_source_ops pt_source_bts;

/* At load and unload, for the BTS devices the core allocated. */
int bts_src_init(struct pt_cpu *pcs, unsigned int n);
void bts_src_exit(struct pt_cpu *pcs, unsigned int n);
/*
 * The scheduler's sched_switch probe (follow.c), on the switching CPU
 * with IRQs off: a switch record to @next where BTS records them.
 */
void bts_src_switch(struct task_struct *next);

#endif /* _PT_TRACE_SOURCE_H */
