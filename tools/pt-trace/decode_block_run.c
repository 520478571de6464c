// SPDX-License-Identifier: GPL-2.0
/*
 * decode --block-decoder: the options refused with it (it prints ptxed's
 * listing), and the traces decoded whole by decode_block.c, following
 * the recording's processes as the instruction decoder does
 * (decode_follow.c), into the command's counts (decode_block_run.h).
 */
#include <string.h>

#include "decode_block.h"
#include "decode_block_run.h"
#include "decode_follow.h"
#include "decode_image.h"
#include "decode_psb.h"
#include "decode_vmx.h"
#include "tool.h"

/*
 * What --block-decoder does not go with, refused with what to use: 0 or
 * 1 (said).  The block decoder prints ptxed's listing; the rest needs
 * the instruction decoder's walk (decode_walk.c).
 */
int decode_block_refused(const struct decode_ctx *c)
{
	const struct decode_opts *o = &c->o;
	const char *what = NULL;

	if (!o->block) {
		/* with both decoders named, the last one wins (as ptxed) */
		const char *fix = o->insn_dec ?
			"--insn-decoder came after --block-decoder and chose the instruction decoder: leave it out"
			: "give --block-decoder too";

		if (o->show_blocks || o->end_on_call || o->end_on_jump)
			ptt_err("--block:show-blocks, --block:end-on-call and --block:end-on-jump are the block decoder's: %s",
				fix);
		else if (o->stat & DECODE_STAT_BLOCKS)
			ptt_err("--stat:blocks counts the block decoder's blocks: %s (--stat:insn counts instructions)",
				fix);
		else
			return 0;
		return 1;
	}
	if (o->jobs > 1)
		what = "--jobs (the instruction decoder's pieces)";
	else if (o->calls)
		what = "--calls";
	else if (o->timeline)
		what = "--timeline";
	else if (o->fmt_given && (o->fmt.perf || o->fmt.ip_only))
		what = o->fmt.perf ? "--format=perf" : "--format=ip";
	else if (o->fmt.show_time)
		what = "--tsc";
	else if (o->filter.npid || o->filter.ntid || dflt_per_insn(&o->filter))
		what = "--pid, --tid or --time";
	else if (c->vmx.host_only || c->vmx.guest_only || c->vmx.nsel ||
		 c->vmx.summary || c->vmx.nguest || c->vmx.ntsc)
		what = "--host-only, --guest-only, --vmcs, --summary, --guest-image or --guest-tsc";
	if (!what)
		return 0;
	ptt_err("--block-decoder prints ptxed's listing of the instructions and events only: %s needs libipt's instruction decoder, leave out --block-decoder",
		what);
	return 1;
}

/* The trace the block decoder is on, for decode_block_follow(). */
struct decode_block_run {
	struct decode_ctx *c;
	struct decode_trace *t;
	uint64_t insns;		/* the block decoder's count at the last call */
};

/*
 * dblk_ctx.follow: the recording's processes, as the instruction
 * decoder follows them (decode_follow.c): an event's PIP, enable or exec,
 * else the switch records at the decoder's time; the code is then read
 * from the process that runs.  Without @ev, whether the image may have
 * changed (decode_follow_blk()).
 */
static int decode_block_follow(struct dblk_ctx *b,
			       struct pt_block_decoder *dec,
			       const struct pt_event *ev)
{
	struct decode_block_run *r = b->follow_arg;
	int changed = 0;

	/* instructions since the last call ran in st.cur (decode_exec()) */
	if (b->s.insns != r->insns)
		r->t->st.cur_fresh = 0;
	if (ev)
		decode_event_blk(r->c, r->t, dec, ev);
	else if (r->t->st.sw_until != UINT64_MAX)
		changed = decode_follow_blk(r->c, r->t, dec);
	b->p = r->t->st.cur;
	r->insns = b->s.insns;
	return changed;
}

/* A trace's block decoder counts into its decode_stats (bytes are set). */
static void decode_block_count(struct decode_stats *s,
			       const struct dblk_stats *bs)
{
	s->insns = bs->insns;
	s->shown = bs->insns;	/* no filter goes with --block-decoder */
	s->blocks = bs->blocks;
	s->syncs = bs->syncs;
	s->errors = bs->errors;
	s->nomap = bs->nomap;
	s->events = bs->events;
}

/*
 * --block-decoder: each trace whole with libipt's block decoder
 * (decode_block.c), in the address space of the process that runs, as
 * the instruction decoder's (decode_trace.c); each one's counts into its
 * stats (a line each with -q, as the instruction decoder's) and @total.
 */
int decode_blocks(struct decode_ctx *c, struct decode_trace *tr,
		  const struct das_file *files, int nfile,
		  struct decode_stats *total)
{
	struct dblk_ctx b;
	int i, err, ret = PTT_EXIT_OK;

	memset(&b, 0, sizeof(b));
	b.o.show_blocks = c->o.show_blocks;
	b.o.numbered = !!c->o.stat;
	b.o.events = c->o.events;
	b.o.event_time = c->o.event_time;
	b.o.quiet = c->o.quiet;
	b.ob = &c->ob;
	b.fmt = &c->o.fmt;
	b.as = &c->as;
	b.follow = decode_block_follow;
	err = dblk_init(&b, files, (size_t)nfile);
	if (err) {
		ptt_err("--block-decoder: cannot read the --raw files: %s",
			strerror(-err));
		dblk_free(&b);
		return PTT_EXIT_INPUT;
	}
	for (i = 0; i < c->ntraces && !ret; i++) {
		struct decode_trace *t = &tr[i];
		struct decode_block_run run = { c, t, 0 };
		struct pt_config config = c->config;

		if (!dflt_cpu(&c->o.filter, t->cpu))
			continue;
		if (t->lf.n) {
			ptt_err("--block-decoder reads each trace whole: %s has loss records (gaps); give --no-loss to decode it anyway, or leave out --block-decoder",
				t->path);
			ret = PTT_EXIT_USAGE;
			break;
		}
		/* decode_trace()'s line */
		if (c->ntraces > 1 && !c->o.quiet && t->cpu >= 0)
			ob_printf(&c->ob, "[trace %s, cpu %d]\n", t->path,
				  t->cpu);
		else if (c->ntraces > 1 && !c->o.quiet)
			ob_printf(&c->ob, "[trace %s]\n", t->path);
		config.begin = t->buf;
		config.end = t->buf + t->len;
		memset(&b.s, 0, sizeof(b.s));
		/* what decode_trace() sets up for decode_follow.c */
		t->stretch_end = t->len;
		dvmx_scan_tsc(&c->vmx, t->buf, t->len, &t->marks);
		if (c->psb_enables && t->nsw)
			dpsb_scan(t->buf, t->len, &t->psbs);
		b.follow_arg = &run;
		b.p = t->st.cur;
		if (dblk_decode(&b, &config, decode_image(c, t->st.cur)) < 0) {
			ptt_err("libipt could not set up the block decoder");
			ret = PTT_EXIT_INTERNAL;
		}
		dvmx_marks_free(&t->marks);
		dpsb_free(&t->psbs);
		decode_block_count(&t->stats, &b.s);
		decode_sum(total, &t->stats);
		/* the instruction decoder's line per trace (cmd_decode()) */
		if (c->ntraces > 1 && c->o.quiet)
			decode_print_stats(&c->ob, t->path, &t->stats);
	}
	dblk_free(&b);
	return ret;
}
