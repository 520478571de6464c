/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-CPU tracing core: configuration, start/stop and state of each
 * CPU's trace, brought up and down with the CPUs through cpuhp.  The
 * character device (chardev.c) calls down into it; it calls down into
 * the trace source (source.h: source_pt.c for Intel PT) and the output
 * layer (buffer.c, topa.c).
 */
#ifndef _PT_TRACE_CORE_H
#define _PT_TRACE_CORE_H

#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/pt_trace.h>

#include "topa.h"

struct bts_cpu;
struct dentry;
struct file;
struct mm_struct;
struct poll_table_struct;
struct pt_buffer;
struct pt_follow;
struct pt_source_ops;

/* /sys/kernel/debug/pt_trace/, created at load. */
extern struct dentry *pt_debugfs_root;

/*
 * Streaming state of one CPU (stream*.c).  The fields above 'wq' belong
 * to the traced CPU: they are changed only there, with IRQs off (the
 * start/stop/kick IPIs) or in the PMI (NMI).  The only interleaving is
 * an NMI inside an IPI, which 'handle_nmi' (cleared while an IPI works,
 * as in perf's pt.c) turns into a deferred 'pmi_pending'.  Other CPUs
 * only read them (READ_ONCE): counters and flags for status and poll.
 * Positions are stream bytes since START; readers see them through the
 * control page (data_head, data_tail, the loss records).
 */
struct pt_stream {
	bool armed;			/* a stream session: bit-55 PMIs are ours */
	bool flight;			/* ... or a flight session */
	bool lap_pmi;			/* flight: INT per lap armed (laps) */
	bool handle_nmi;		/* the PMI may service the hardware */
	bool busy;			/* an IPI or the watchdog works on it */
	bool hw_on;			/* TraceEn set by us */
	bool stalled;			/* not tracing: a gap is open */
	bool error;			/* STATUS.Error: stays stopped */
	bool pmi_pending;		/* a PMI came in while an IPI worked */
	bool taken_over;		/* foreign PT state: hands off for good */
	/*
	 * Following (follow.c): set by the start IPI, cleared by the stop
	 * IPI; parked while no followed task runs here (TraceEn off by us,
	 * not a gap), with a flight recorder's pointers kept for resuming.
	 */
	bool follow_on;
	bool parked;
	u64 park_status, park_base, park_mask;
	u32 loss_flags;			/* PT_LOSS_* of the open gap */
	u64 ctl;			/* RTIT_CTL without TraceEn */
	u64 wm;				/* watermark, bytes */
	u64 head;			/* bytes written */
	u64 start_pos;			/* head at the last hardware start */
	u64 tail;			/* the reader, as last seen (sane) */
	struct pt_topa_marks marks;
	bool marks_set;
	u64 rtit_status;
	u64 stall_pos, stall_ns, stall_tsc;
	u64 gap_bytes;			/* lost in the open gap, so far */
	u64 run_ns, run_tsc;		/* when the hardware last started */
	bool lost_known;		/* the backend counts lost bytes */
	u64 lost_mark;			/* its count at the last accounting */
	u64 services;			/* runs of the service routine */
	/* The watchdog (a PMI that never came), see stream_watchdog.c. */
	bool wd_on;			/* its timer may re-arm itself */
	bool wd_suspect;		/* the last tick saw a PMI due */
	u64 wd_services;		/* 'services' at that tick */
	/* The PMI rate limit (stream_pmi.c): PMIs in the current window. */
	u64 pmi_win_ns;
	u32 pmi_win_count;
	bool throttled;			/* held stopped until throttle_until */
	u64 throttle_until;
	u64 throttles;			/* times the limit was hit */
	u64 deferred;			/* PMIs served by an IPI's service */
	/* Counters. */
	u64 pmis, nmis_foreign, bytes, stops, losses, errors, pad_bytes;
	u64 lost_ns, handler_ns, handler_max_ns, resumes;
	u64 lost_bytes;			/* sum over the records */
	u64 watchdog;			/* services the watchdog had to run */
	u64 laps;			/* flight: wraps of the buffer */
	bool hw_stopped;		/* flight: a pause saw Stopped (poll) */
	/* A PMI raised before our last halt may come after it (stream_pmi.c). */
	u64 owed_until;			/* pt_stream_now_ns() deadline, 0: none */
	bool owed_nobit;		/* owed NMI's bit 55 acked by us */
	u64 late_pmis;			/* such PMIs claimed */
	u64 takeovers;			/* traces found stopped or replaced */
	struct hrtimer wd_timer;	/* pinned to the traced CPU, hardirq */
	/* Process context. */
	struct mutex read_lock;		/* one read(2) at a time */
	wait_queue_head_t wq;		/* readers, poll */
	struct irq_work wake_work;	/* NMI -> wake-up */
	struct delayed_work kick_work;	/* resume when space is freed */
};

/*
 * The PT MSRs as the previous owner left them, read at START (TraceEn=0)
 * and written back at the final stop (pt_src_hw_restore()): see source_pt.c.
 */
struct pt_hw_saved {
	bool valid;
	u64 base, mask, status, cr3_match;
	u64 addr[PT_TRACE_MAX_ADDR_RANGES][2];
};

/*
 * One per possible CPU.  'lock' serialises every configuration change,
 * start and stop (ioctls, release, CPU hotplug); lock order:
 * cpu_hotplug_lock (cpus_read_lock) before 'lock'; mmap_lock (mmap) and
 * stream.read_lock (read) before 'lock'; stream.read_lock (START) before
 * cpu_hotplug_lock.  No mm reference is dropped
 * under 'lock' (see pt_src_set_cr3()).
 */
struct pt_cpu {
	unsigned int cpu;
	const struct pt_source_ops *src;	/* the hardware below */
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
	u64 driver_stop_ns, driver_stop_tsc;	/* see pt_stop_by_driver() */
	bool started_since_open;
	/*
	 * PT_CR3_BY_PID: the CR3 derived (0: none) and its mm, grabbed so
	 * that its page tables are not reused while the filter names them.
	 */
	u64 cr3_derived;
	struct mm_struct *cr3_mm;
	bool caps_differ;		/* CPUID 0x14 not the boot CPU's */
	bool stuck_logged;		/* see pt_hw_stuck_on() */
	struct pt_buffer *kept;		/* leaked there, until unload */
	struct pt_hw_saved saved;	/* traced CPU only, IRQs off */
	/*
	 * The PT MSRs were found holding another agent's state: nothing is
	 * written for this trace again, and its buffer is never freed.
	 */
	bool taken_over;
	/* BTS devices only: the DS area and its session (source_bts.c). */
	struct bts_cpu *bts;
	/* PT_TRACE_IOC_FOLLOW's set (follow.c), NULL: the whole CPU. */
	struct pt_follow *follow;
	struct pt_stream stream;
};

#define PT_CPU_OPEN	0		/* bit in pt_cpu.flags */

int pt_core_init(void);
void pt_core_exit(void);

struct pt_cpu *pt_core_cpu(unsigned int cpu);
/* /dev/btsN's state, NULL where the CPU has no BTS (source_bts.c). */
struct pt_cpu *pt_core_bts_cpu(unsigned int cpu);

int pt_core_open(struct pt_cpu *pc);
void pt_core_release(struct pt_cpu *pc);

int pt_core_set_config(struct pt_cpu *pc, const struct pt_trace_config *cfg);
void pt_core_get_config(struct pt_cpu *pc, struct pt_trace_config *cfg);
int pt_core_set_bufsize(struct pt_cpu *pc, u64 size);
int pt_core_start(struct pt_cpu *pc);
int pt_core_stop(struct pt_cpu *pc);
int pt_core_get_status(struct pt_cpu *pc, struct pt_trace_status *st);
/* read(2) on a fresh open: switch to streaming and start. */
int pt_core_autostart(struct pt_cpu *pc);

/* Streaming (stream_read.c). */
ssize_t pt_core_read(struct pt_cpu *pc, char __user *ubuf, size_t len,
		     bool nonblock);
__poll_t pt_core_poll(struct pt_cpu *pc, struct file *file,
		      struct poll_table_struct *wait);

/*
 * For the sources (source.h).  Validate (through the source) and commit
 * a whole configuration; pc->lock held.
 */
int pt_core_commit_config(struct pt_cpu *pc, const struct pt_trace_config *cfg);
/* The buffer size @cfg asks for (0: the module's default). */
u64 pt_core_cfg_buffer_size(const struct pt_trace_config *cfg);
/* Publish pc's state in the control page (data_head last, released). */
void pt_core_update_ctrl(struct pt_cpu *pc);
/* A disabling write failed on the calling CPU (pt_hw_note_stuck()). */
bool pt_core_hw_stuck(void);

/*
 * The buffer to map at page @pgoff for @npages pages, allocated if
 * needed: a reference and a count in buf->maps for the caller's mapping;
 * -EINVAL when the shape does not fit it.
 */
struct pt_buffer *pt_core_get_buffer(struct pt_cpu *pc, unsigned long pgoff,
				     unsigned long npages);

#endif /* _PT_TRACE_CORE_H */
