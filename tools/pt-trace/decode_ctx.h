/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The instruction decoder's state, shared by the files of pt-trace decode
 * (cmd_decode.c and the decode_*.c it calls): the options (decode_opts),
 * one trace and where its decoding is (decode_trace, decode_state), and
 * the command's context (decode_ctx), of which decode --jobs gives each
 * worker thread a copy (decode_jobs.c).
 */
#ifndef PT_TRACE_DECODE_CTX_H
#define PT_TRACE_DECODE_CTX_H

#include <stddef.h>
#include <stdint.h>

#include <intel-pt.h>

#include "call_tree.h"
#include "decode_aspace.h"
#include "decode_filter.h"
#include "decode_loop.h"
#include "decode_out.h"
#include "decode_par.h"
#include "decode_psb.h"
#include "decode_stats.h"
#include "decode_tcal.h"
#include "decode_vmx.h"
#include "lossfile.h"
#include "outbuf.h"
#include "timeline_marks.h"

/*
 * ptxed's statistics lines: --stat:insn "insn: N.", --stat:blocks
 * "blocks: N.", --stat alone both that the decoder has (ptxed's rule).
 */
#define DECODE_STAT_INSN	1

#define DECODE_STAT_BLOCKS	2

#define DECODE_STAT_ALL		4

struct decode_opts {
	int calls;
	int events;
	int event_time;		/* ptxed's --event:time: each event's TSC */
	int ticks;		/* ptxed's --event:tick: libipt's tick events */
	int stat;		/* ptxed's --stat*: DECODE_STAT_* */
	int block;		/* --block-decoder: libipt's block decoder */
	int insn_dec;		/* --insn-decoder came after --block-decoder */
	int show_blocks;	/* --block:show-blocks */
	int end_on_call;	/* --block:end-on-call */
	int end_on_jump;	/* --block:end-on-jump */
	int quiet;
	int no_loss;
	struct decode_fmt fmt;	/* how instruction lines look */
	int fmt_given;		/* --format: else perf's with sideband.perf */
	struct decode_filter filter;
	const char *timeline;
	int open_timeline;	/* --open: show it in a viewer at the end */
	const char *loss_path;
	double tsc_hz;		/* --tsc-hz, 0 when not given */
	int64_t tl_min_ns;	/* --min-duration */
	uint64_t tl_max;	/* --max-events */
	unsigned int jobs;	/* --jobs: decoding threads */
	/*
	 * The recording's RTIT_CTL has CYCEn: where anything uses libipt's
	 * time, --jobs gives each piece's decoder libipt's CYC calibration
	 * (decode_tcal.h, decode_ctx.tcal), which goes on through a PSB in
	 * one decoder and starts again at a sync.
	 */
	int cyc;
};

/*
 * Whose code runs on a trace's CPU, and what decides it next: the state
 * a decoder carries along the trace.  decode --jobs takes it from one
 * segment's end to the next one's start (struct decode_carry).
 */
struct decode_state {
	struct das_proc *cur;	/* its address space */
	int cur_fresh;		/* no instruction since cur was set */
	long cur_sw;		/* the switch run in effect, -1 before the first */
	uint64_t sw_until;	/* its end: past it, decode_follow() looks */
	int pid, tid;		/* -1 while unknown */
	char comm[16];		/* "" while unknown */
	uint64_t last_cr3;	/* of the last PIP, when cr3_fresh */
	int cr3_fresh;		/* a PIP since the last switch record */
	int enable_timing;	/* a CBR outside PSB+ since tracing stopped */
	int enable_has_tsc;	/* enable_tsc is known */
	uint64_t enable_tsc;	/* that CBR's time: the enable's TSC */
	/* a PSB+ and no TIP.PGE or PGD since (decode_follow_psb()) */
	int psb_pending, psb_has_tsc;
	uint64_t psb_raw;	/* its TSC packet's value */
	uint64_t psb_tsc;	/* that TSC on the host's clock */
	uint64_t psb_off;	/* the decoder's file offset after it */
	int hidden;		/* the filters took the last instruction */
	/*
	 * decode --jobs: an error in the walk past a segment's last packet
	 * (decode_seg_tail()), which one decoder reports after reading the
	 * next PSB+: the next segment reports it there.  0: none.
	 */
	int tail_err;
	uint64_t tail_ip;	/* the IP it names */
	/*
	 * decode --jobs: the decoder is reading on here (not searching for
	 * a PSB after an error): one decoder reads through the next PSB+,
	 * it does not synchronise there (decode_walk()).
	 */
	int in_sync;
	/*
	 * --summary: whether the last instruction had a time, and that
	 * time (dvmx_count() counts the span to the next one); @prev_keep:
	 * no instruction since the piece's first sync, at which one decoder
	 * reads on, so the ones before the piece stand (decode_seg_accept()).
	 */
	int have_prev, prev_keep;
	uint64_t prev_tsc;
	/*
	 * decode --jobs on a CYCEn trace where the time is used: libipt's
	 * CYC calibration here (decode_tcal.h), which one decoder reading
	 * on has and a piece's decoder is given (decode_stretch_one()).
	 */
	struct dtcal tcal;
};

/* One trace file and where its decoding is. */
struct decode_trace {
	const char *path;
	int cpu;		/* from cpuN.pt or the loss file, else -1 */
	uint8_t *buf;		/* mapped (ptt_map_file) */
	size_t dropped_to;	/* bytes before this are out of memory */
	size_t len;
	struct ptl_file lf;
	int have_loss;
	int64_t tsc_offset;
	struct decode_stats stats;
	struct tl_track track;
	struct tl_guests tlg;	/* guest code's tracks (--timeline) */
	unsigned int tl_cbr;	/* the last CBR on the timeline, 0: none */
	int tl_tid;		/* the CPU's own track, for the idle task */
	char tl_name[64];
	struct dvmx_marks marks;	/* TSC packets, for --guest-tsc */
	/* the stretch being decoded */
	uint64_t base;		/* its file offset */
	uint64_t dropped;	/* bytes dropped somewhere in it */
	struct call_tree ct;	/* --calls */
	int ctm_due;		/* --calls --jobs: mark the next instruction */
	struct tl_marker tlm;	/* --timeline --jobs: a worker's marks */
	/* the CPU's switch records, in TSC order */
	const struct das_switch *sw;
	size_t nsw;
	/*
	 * decode_follow_psb(): the trace's PSB+s (with switch records on a
	 * CPU that sends PSB+ at every enable), the end of the stretch
	 * being decoded, and the TSC record read after the CPU stopped.
	 */
	struct dpsb_list psbs;
	uint64_t stretch_end;
	uint64_t stop_tsc;
	int have_stop;
	struct decode_state st;	/* whose code runs, and more */
	uint64_t spin_off;	/* decode_spinning(): the trace offset seen */
	unsigned int spin_n;	/* checks in a row that found it unmoved */
	struct dloop loop;	/* decode_looping()'s search (decode_loop.h) */
	int loop_hit;		/* ... found a loop */
	/* decode --jobs: this is a segment of the stretch (decode_par.h) */
	int in_seg, seg_last;
	int seg_eos;		/* its decoder has used up its packets */
	/*
	 * What one decoder does next only decoding on shows: a walk of
	 * 64 Ki instructions on no trace, or a tail (decode_seg_tail())
	 * that ran out of packets or hit code the VMX code would look for
	 * on the other side.  The rest of the stretch is decoded in one
	 * piece from this segment (decode_seg_stands()).
	 */
	int seg_rest;
	struct dpar_psb seg_next;	/* what the next segment's PSB+ holds */
	uint64_t seg_end;	/* its file offset, the segment's end */
	/*
	 * decode --jobs: the piece starts where one decoder reads on (the
	 * piece before ended in sync): its first sync is none of that
	 * decoder's, not counted.  The first instruction after it (its
	 * time and context) is noted in @first_*: that decoder counts the
	 * time from the piece before's last instruction to it (--summary),
	 * which decode_seg_accept() adds.  @first_sync: the piece's first
	 * search found its PSB (a decoder not in sync counts that sync).
	 */
	int seg_cont;
	int first_due, first_set, first_have, first_cur, first_sync;
	uint64_t first_tsc;
	/*
	 * decode --jobs, decode_ctx.tcal: the file offset of the PSB of the
	 * piece's last sync but its first (where libipt's calibration
	 * starts again), UINT64_MAX: none.
	 */
	uint64_t tcal_sync;
};

/* A process's CR3 (PCID bits cleared), as its first switch-in showed it. */
struct decode_cr3 {
	uint64_t cr3;
	struct das_switch who;
};

/* --calls: where each thread's tree is, while other threads run. */
struct decode_thread {
	int tid;
	int depth;
};

/* decode --jobs: a worker's own copy of a process's image. */
struct decode_img {
	const struct das_proc *p;
	struct pt_image *image;
};

struct decode_ctx {
	struct decode_opts o;
	struct outbuf ob;
	struct decode_aspaces as;
	/*
	 * The address spaces: &as, or a --jobs worker's main context's
	 * (das_use() under decode_das_lock there), and the worker's own
	 * copies of their images (decode_image()).
	 */
	struct decode_aspaces *asp;
	int worker;
	int ct_marks;		/* --calls in a worker: marks (decode_ctm_put()) */
	int tl_marks;		/* --timeline in a worker: timeline_marks.h */
	struct decode_img *imgs;
	size_t nimgs;
	struct decode_thread *threads;
	size_t nthreads;
	struct decode_cr3 *cr3s;	/* CR3 values learned from switches */
	size_t ncr3;
	struct timeline tl;
	struct pt_config config;
	struct decode_vmx vmx;	/* contexts under VMX, their filters */
	unsigned int bus_mhz;	/* CBR's bus clock (decode_cbr.c), 0: unknown */
	/* the CPU sends PSB+ at every enable (sideband caps.psb_periods 0) */
	int psb_enables;
	int ntraces;
	char sb_dir[2048];	/* the sideband's directory, "" without */
	/* per stretch (decode_stretch_one()), for decode_insn()'s checks */
	int need_time;		/* an output or filter uses the time */
	int task_filter;	/* --pid, --tid or --time: dflt_per_insn() */
	int need_who;		/* that, or perf's columns: decode_wanted() */
	int plain;		/* none of those, of --calls, -q, --timeline */
	/*
	 * decode --jobs: a piece's decoder gets the CYC calibration one
	 * decoder would have at its start (decode_state.tcal)
	 */
	int tcal;
};

#endif /* PT_TRACE_DECODE_CTX_H */
