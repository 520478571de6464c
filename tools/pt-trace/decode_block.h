/* SPDX-License-Identifier: GPL-2.0 */
/*
 * decode --block-decoder: libipt's block decoder (pt_blk_*) instead of
 * its instruction decoder, as ptxed --block-decoder runs it.  A block is
 * a run of instructions libipt followed without reading trace; it gives
 * only the first IP, the last and their count, so the instructions in
 * between are found here (the code's bytes, each one's length).
 */
#ifndef PT_TRACE_DECODE_BLOCK_H
#define PT_TRACE_DECODE_BLOCK_H

#include <stdint.h>

#include <intel-pt.h>

#include "decode_aspace.h"
#include "decode_loop.h"
#include "decode_out.h"
#include "outbuf.h"

struct dblk_raw;

struct dblk_opts {
	int show_blocks;	/* --block:show-blocks: "[block]" first */
	int numbered;		/* "[block N]": ptxed's, when it counts (--stat) */
	int events;		/* --events */
	int event_time;		/* --event:time */
	int quiet;		/* -q: errors only */
};

struct dblk_stats {
	uint64_t insns;
	uint64_t blocks;
	uint64_t errors;
	uint64_t nomap;		/* errors that are "no memory mapped" */
	uint64_t events;	/* all libipt gave, printed or not */
	uint64_t syncs;		/* PSBs the decoder synchronised at */
};

struct dblk_ctx {
	struct dblk_opts o;
	struct dblk_stats s;
	struct outbuf *ob;
	struct decode_fmt *fmt;		/* how instruction lines look */
	const struct decode_aspaces *as;	/* ELF and kernel bytes */
	const struct das_proc *p;	/* the address space decoded now */
	/*
	 * Whose code runs, followed between blocks (decode_block_run.c):
	 * with each event taken, and before each block (@ev NULL).  It may
	 * set the decoder's image, and @p to go with it; before a block,
	 * it returns whether it did.  Or NULL.
	 */
	int (*follow)(struct dblk_ctx *b, struct pt_block_decoder *dec,
		      const struct pt_event *ev);
	void *follow_arg;
	struct dblk_raw *raw;		/* --raw files, read here */
	size_t nraw;
	size_t cs;			/* capstone handle: lengths, targets */
	void *ci;			/* its cs_insn */
	enum pt_exec_mode cs_mode;	/* the mode it is set to */
	struct dloop loop;		/* the loop search (decode_loop.h) */
};

/*
 * Sets up @b to read the code of @p in @as and of the --raw files among
 * @files: 0, or -errno.
 */
int dblk_init(struct dblk_ctx *b, const struct das_file *files, size_t nfile);
void dblk_free(struct dblk_ctx *b);

/*
 * Decodes the trace @config names with @image, printing into b->ob as
 * ptxed --block-decoder prints (the --stat lines are the caller's).
 * 0, or -pte_nomem when libipt cannot set up the decoder.
 */
int dblk_decode(struct dblk_ctx *b, const struct pt_config *config,
		struct pt_image *image);

#endif /* PT_TRACE_DECODE_BLOCK_H */
