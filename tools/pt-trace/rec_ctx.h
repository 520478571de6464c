/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pt-trace record's shared state: the options (struct rec_opts), one
 * recorder per traced device (struct rec_cpu: /dev/ptN, or /dev/btsN with
 * --bts) and what the recording follows besides the devices (struct
 * rec_run).  cmd_record.c fills them in; the rec_*.c files that set up,
 * drain, restart, snapshot and finish the recording (listed at the top of
 * cmd_record.c) all work on them.
 */
#ifndef PT_TRACE_REC_CTX_H
#define PT_TRACE_REC_CTX_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <linux/pt_trace.h>

#include "lossfile.h"
#include "perf_collect.h"
#include "proc_maps.h"
#include "ptdev.h"
#include "rec_command.h"
#include "rec_end.h"

struct rec_tsc {
	uint64_t tsc, ns, err_ns;
	int ok;
};

struct rec_cpu {
	int cpu;
	int fd;
	int out;
	struct ptdev_map map;
	struct pt_trace_config cfg;	/* as the driver will program it */
	uint64_t tail;		/* stream: bytes consumed */
	uint64_t written;	/* bytes in cpuN.pt */
	uint64_t skipped;	/* stream bytes not in the file (overrun) */
	FILE *lossf;		/* stream: cpuN.loss (flight: at a restart) */
	uint64_t loss_next;	/* next loss record to read */
	/*
	 * The driver stops a trace whose CPU goes offline (or at a suspend)
	 * and leaves it stopped (abi.rst, "CPU hotplug"): rec_hotplug()
	 * reads what it has, STARTs it again once the CPU is back, appends
	 * the new run to cpuN.pt and writes a loss record for the gap.
	 * Each run (a "generation") has its own stream positions and loss
	 * records from 0: base is the offset of its first byte in cpuN.pt,
	 * seq_base the loss file's index of its record 0.
	 */
	uint64_t base, seq_base;
	uint64_t seen_ns, seen_tsc;	/* last seen running */
	int down;		/* stopped by the driver, read: to START again */
	int down_offline;	/* ... and the CPU was seen offline */
	int given_up;		/* not restartable (taken over, error) */
	int sb_again;		/* down: its perf sideband event reopened */
	unsigned int restarts;
	struct ptl_sum loss;
	int hup;		/* poll said the trace stopped */
	struct rec_tsc tsc[2];	/* before START, after STOP */
	struct pt_trace_status status;
	int bts;		/* /dev/btsN: cpuN.bts, cpuN.bts.loss */
	int wrapped;		/* flight: a run before this one wrapped */
};

struct rec_opts {
	const char *outdir;
	double duration;
	pid_t pid;
	int have_cr3;
	uint64_t cr3;
	int user, kernel;
	int cyc;
	uint32_t cyc_thresh;
	int mtc;		/* 1 --mtc, 0 --no-mtc, -1 where the CPU can */
	uint32_t mtc_freq;
	int tsc;
	int psb;
	uint32_t psb_freq;
	int ptw, pwr;
	int disretc;		/* --no-ret-compression: DisRETC=1 */
	int by_cr3;		/* --cr3-filter: the target by its CR3 */
	int nranges;
	/* sym: from --filter/--stop-at SYMBOL (its own sideband line) */
	struct { uint64_t a, b; uint32_t cfg; int sym; } range[PT_TRACE_MAX_ADDR_RANGES];
	uint64_t bufsize;
	uint32_t mode;
	uint64_t watermark;
	double drain_ms;	/* stream: fixed drain period, 0 = poll */
	char **cmd;
	int all;		/* -a: every task on the CPUs */
	int mode_set;		/* -m given */
	int snapshot;		/* -S: flight, a snapshot at each SIGUSR2 */
	const char *stop_sym;	/* --stop-at SYMBOL (one) */
	int nsyms;		/* --filter and --stop-at SYMBOLs, in order */
	struct { const char *name; uint32_t cfg; } sym[PT_TRACE_MAX_ADDR_RANGES];
	int stop_armed;		/* a TraceStop range is programmed */
	pid_t target;		/* the process traced (command or -p) */
	int following;		/* the driver follows target's tasks */
	int no_inherit;		/* --no-inherit: not what target forks */
	int bts;		/* --bts: DIR/cpuN.bts beside cpuN.pt */
	uint32_t output;	/* --output-scheme: PT_OUTPUT_* */
};

/* What the recording loop follows besides the CPUs. */
struct rec_run {
	struct rcmd cmd;	/* the command (cmd.pid -1: none) */
	int child_status;
	int exited;		/* child_status is its end */
	FILE *sb;
	struct ptt_maps maps;
	struct pcol perf;	/* the perf sideband (perf.ring: open) */
	int snaps;		/* -S: snapshots written */
	int stop_cpu;		/* --stop-at: the CPU that stopped, or -1 */
	struct rec_cpu *bts;	/* --bts -m stream: /dev/btsN drained as PT */
	int nbts;
	struct rec_end end;	/* -p: the process to outlive */
	int gone;		/* it has gone: the recording ended there */
};

/*
 * Set by the signal handlers (cmd_record.c): SIGINT/SIGTERM end the
 * recording, SIGUSR2 asks -S for a snapshot.  Atomic loads/stores keep
 * them out of registers.
 */
extern int rec_stop, rec_snap;

/* Flight: did any run of this CPU's trace overwrite older data? */
static inline int rec_wrapped(const struct rec_cpu *rc)
{
	return rc->wrapped || !!(rc->status.flags & PT_STATUS_WRAPPED);
}

#endif /* PT_TRACE_REC_CTX_H */
