/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recorder's sideband from perf: a software dummy event per CPU
 * (following a task and its descendants, or every task), whose ring
 * buffers carry mmap2, comm, fork/exit and context-switch records;
 * drained into DIR/sideband.perf (format in perfsb.h).
 */
#ifndef PT_TRACE_PERF_COLLECT_H
#define PT_TRACE_PERF_COLLECT_H

#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "build_id.h"
#include "perfsb.h"

struct pcol_ring;

struct pcol {
	struct pcol_ring *ring;
	int n;
	int out;			/* sideband.perf */
	struct ptpsb_header hdr;
	uint64_t records, bytes, lost;
	struct bid_cache bids;		/* build-ids the kernel did not give */
	/* record --no-inherit: the one process traced (0: all it names) */
	uint32_t only_pid;
};

/*
 * Open a dummy event on each of @cpus for @pid and its descendants
 * (@pid = -1: every task, system-wide) and create @dir/sideband.perf.
 * 0, or -errno with @why set to what went wrong.
 */
int pcol_open(struct pcol *pc, const int *cpus, int n, pid_t pid,
	      const char *dir, char *why, size_t whylen);

/* Append a record the recorder made (a synthesized mmap2 or comm). */
void pcol_synth_maps(struct pcol *pc, pid_t pid);

/*
 * The rings' descriptors for poll(), POLLIN (half a ring unread:
 * wakeup_watermark): at most @max into @pfd; how many.
 */
int pcol_pollfds(const struct pcol *pc, struct pollfd *pfd, int max);

/* Copy every new record of every ring to the file. */
int pcol_drain(struct pcol *pc);

/*
 * System-wide: CPU @cpu's event again after the CPU went offline and came
 * back (perf drops a CPU's events from it at offline); 0 or -errno with
 * @why set.
 */
int pcol_reopen_cpu(struct pcol *pc, int cpu, char *why, size_t whylen);

/*
 * Drain, close, write @dir/sideband.perf.txt, and a task= line per
 * task the records name (only @pc->only_pid when set) to @sb (and a
 * summary to stderr); 0 or -errno.
 */
int pcol_close(struct pcol *pc, const char *dir, FILE *sb);

#endif /* PT_TRACE_PERF_COLLECT_H */
