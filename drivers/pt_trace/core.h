/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-CPU tracing core: configuration, start/stop and state of each
 * CPU's trace, brought up and down with the CPUs through cpuhp.  The
 * character device (chardev.c) calls down into it; it calls down into
 * the output layer (buffer.c, topa.c), rtit_ctl.c and the hw ops.
 */
#ifndef _PT_TRACE_CORE_H
#define _PT_TRACE_CORE_H

#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/pt_trace.h>

struct dentry;
struct pt_buffer;

/* /sys/kernel/debug/pt_trace/, created at load. */
extern struct dentry *pt_debugfs_root;

/*
 * One per possible CPU.  'lock' serialises every configuration change,
 * start and stop (ioctls, release, CPU hotplug); lock order:
 * cpu_hotplug_lock (cpus_read_lock) before 'lock'.
 */
struct pt_cpu {
	unsigned int cpu;
	struct mutex lock;		/* see above */
	unsigned long flags;		/* PT_CPU_* bits */
	bool online;
	bool running;
	struct pt_trace_config cfg;	/* staged, always valid */
	u64 ctl;			/* RTIT_CTL from cfg, no TraceEn */
	u64 hw_ctl;			/* value written while running */
	struct pt_buffer *buf;		/* NULL until first needed */
	/* Results of the last stop (or live read). */
	u64 rtit_status;
	u64 offset;
	u64 head;
	u32 status_flags;		/* PT_STATUS_* */
	u64 starts;
	u64 generation;
	u64 start_ns, stop_ns;		/* duration of the last IPI */
};

#define PT_CPU_OPEN	0		/* bit in pt_cpu.flags */

int pt_core_init(void);
void pt_core_exit(void);

struct pt_cpu *pt_core_cpu(unsigned int cpu);

int pt_core_open(struct pt_cpu *pc);
void pt_core_release(struct pt_cpu *pc);

void pt_core_get_caps(struct pt_cpu *pc, struct pt_trace_caps *caps);
int pt_core_set_config(struct pt_cpu *pc, const struct pt_trace_config *cfg);
void pt_core_get_config(struct pt_cpu *pc, struct pt_trace_config *cfg);
int pt_core_set_cr3(struct pt_cpu *pc, struct pt_trace_cr3 *req);
int pt_core_set_cyc(struct pt_cpu *pc, const struct pt_trace_cyc *req);
int pt_core_set_addr(struct pt_cpu *pc, const struct pt_trace_addr *req);
int pt_core_set_bufsize(struct pt_cpu *pc, u64 size);
int pt_core_start(struct pt_cpu *pc);
int pt_core_stop(struct pt_cpu *pc);
int pt_core_get_status(struct pt_cpu *pc, struct pt_trace_status *st);

/* The buffer to map, allocated if needed; a reference for the caller. */
struct pt_buffer *pt_core_get_buffer(struct pt_cpu *pc);

#endif /* _PT_TRACE_CORE_H */
