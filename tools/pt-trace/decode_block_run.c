// SPDX-License-Identifier: GPL-2.0
/*
 * decode --block-decoder: the options refused with it (it prints ptxed's
 * listing of one address space), and the traces decoded whole by
 * decode_block.c into the command's counts (decode_block_run.h).
 */
#include <string.h>

#include "decode_block.h"
#include "decode_block_run.h"
#include "decode_image.h"
#include "tool.h"

/*
 * What --block-decoder does not go with, refused with what to use: 0 or
 * 1 (said).  The block decoder prints ptxed's listing of one address
 * space; the rest needs the instruction decoder's walk (decode_walk.c).
 */
int decode_block_refused(const struct decode_ctx *c)
{
	const struct decode_opts *o = &c->o;
	const char *what = NULL;

	if (!o->block) {
		if (o->show_blocks || o->end_on_call || o->end_on_jump)
			ptt_err("--block:show-blocks, --block:end-on-call and --block:end-on-jump are the block decoder's: give --block-decoder too");
		else if (o->stat & DECODE_STAT_BLOCKS)
			ptt_err("--stat:blocks counts the block decoder's blocks: give --block-decoder too (--stat:insn counts instructions)");
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
 * --block-decoder: each trace whole with libipt's block decoder, in the
 * default address space (decode_block.c); each one's counts into its
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
	b.p = &c->as.dflt;
	err = dblk_init(&b, files, (size_t)nfile);
	if (err) {
		ptt_err("--block-decoder: cannot read the --raw files: %s",
			strerror(-err));
		dblk_free(&b);
		return PTT_EXIT_INPUT;
	}
	for (i = 0; i < c->ntraces && !ret; i++) {
		struct pt_config config = c->config;

		if (!dflt_cpu(&c->o.filter, tr[i].cpu))
			continue;
		if (tr[i].lf.n) {
			ptt_err("--block-decoder reads each trace whole: %s has loss records (gaps); give --no-loss to decode it anyway, or leave out --block-decoder",
				tr[i].path);
			ret = PTT_EXIT_USAGE;
			break;
		}
		/* decode_trace()'s line */
		if (c->ntraces > 1 && !c->o.quiet && tr[i].cpu >= 0)
			ob_printf(&c->ob, "[trace %s, cpu %d]\n", tr[i].path,
				  tr[i].cpu);
		else if (c->ntraces > 1 && !c->o.quiet)
			ob_printf(&c->ob, "[trace %s]\n", tr[i].path);
		config.begin = tr[i].buf;
		config.end = tr[i].buf + tr[i].len;
		memset(&b.s, 0, sizeof(b.s));
		if (dblk_decode(&b, &config, decode_image(c, &c->as.dflt)) < 0) {
			ptt_err("libipt could not set up the block decoder");
			ret = PTT_EXIT_INTERNAL;
		}
		decode_block_count(&tr[i].stats, &b.s);
		decode_sum(total, &tr[i].stats);
		/* the instruction decoder's line per trace (cmd_decode()) */
		if (c->ntraces > 1 && c->o.quiet)
			decode_print_stats(&c->ob, tr[i].path, &tr[i].stats);
	}
	dblk_free(&b);
	return ret;
}
