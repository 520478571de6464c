// SPDX-License-Identifier: GPL-2.0
/*
 * decode of BTS files (record --bts): the options that do not apply
 * refused, each file's branches through decode_bts.c (a listing, a call
 * tree or a timeline), and the counts at the end (decode_bts_files.h).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bts_dump.h"
#include "decode_bts.h"
#include "decode_bts_files.h"
#include "decode_stats.h"
#include "decode_timeline.h"
#include "tool.h"
#include "trace_config.h"

/*
 * --timeline of BTS files: no time in the records.  With the sideband's
 * switch records (sideband.perf) each run's branches are spread over its
 * time (decode_bts.c, dbts_when()), time 0 the first switch-in; without
 * them the clock counts the records (two ticks a record: its source and
 * its target).  One track per file (CPU), and per thread.
 */
static int decode_bts_timeline(struct decode_ctx *c, const struct ptsb *sb)
{
	uint64_t origin = 0;
	int have_origin = 0, err;
	const struct das_switch *sw;
	const char *source;
	size_t i, n;
	double hz;

	err = decode_tl_create(c, sb, "BTS");
	if (err)
		return err;
	for (i = 0; i < c->as.ncpu; i++) {
		sw = das_switches(&c->as, c->as.cpu[i].cpu, &n);
		if (n && (!have_origin || sw[0].tsc < origin)) {
			origin = sw[0].tsc;
			have_origin = 1;
		}
	}
	if (!have_origin) {
		tl_set_clock(&c->tl, 0, "none: BTS records carry no time", 0, 0);
		ptt_warn("BTS records carry no time and the recording has no switch records: the timeline counts 1 ns per branch source and per branch target");
		return PTT_EXIT_OK;
	}
	decode_tsc_hz(c, sb, &hz, &source);
	tl_set_clock(&c->tl, hz, source, origin, 1);
	ptt_warn("BTS records carry no time: the timeline spreads each run's branches evenly over its time in the sideband's switch records");
	return PTT_EXIT_OK;
}

/* FILE.bts...: the branches (decode_bts.c), then the counts. */
int decode_bts_files(struct decode_ctx *c, char **paths,
		     const struct ptsb *sb)
{
	struct decode_bts_stats st, sum = { 0 };
	struct tl_track *track = NULL;
	int i, ret = PTT_EXIT_OK;

	if (c->o.events) {
		ptt_err("--events: a BTS file (.bts) holds only branch records (from, to) and the driver's thread switches, no events: BTS stores no time, mode, paging, power, VMX or interrupt packets.  Its gaps are the [lost N branches] lines of the listing (-q counts them) and its switches the [thread ...] lines; for events decode --events the recording's cpuN.pt (record --bts writes PT beside BTS)");
		return PTT_EXIT_USAGE;
	}
	if (c->o.fmt_given || c->o.filter.have_time ||
	    c->vmx.summary || c->vmx.nsel || c->vmx.host_only ||
	    c->vmx.guest_only) {
		ptt_err("a BTS file (.bts) is decoded as a list of branches, a call tree (--calls) or a timeline: --format, --time and the VMX options need the times and packets of PT traces (.pt)");
		return PTT_EXIT_USAGE;
	}
	for (i = 0; i < c->ntraces; i++)
		if (!bts_dump_is_bts(paths[i])) {
			ptt_err("%s: give either BTS files (.bts) or PT traces, not both",
				paths[i]);
			return PTT_EXIT_USAGE;
		}
	if (c->o.timeline) {
		track = calloc(1, sizeof(*track));
		if (!track) {
			ptt_err("out of memory");
			return PTT_EXIT_INTERNAL;
		}
		ret = decode_bts_timeline(c, sb);
		if (ret) {
			free(track);
			return ret;
		}
	}
	if (ob_init(&c->ob, STDOUT_FILENO, 1 << 20)) {
		ptt_err("out of memory");
		free(track);
		return PTT_EXIT_INTERNAL;
	}
	for (i = 0; i < c->ntraces && !ret; i++) {
		int cpu = ptt_file_cpu(paths[i], ".bts"), have = 0;
		struct ptl_file lf = { 0 };
		uint8_t *buf = NULL;
		size_t len = 0;
		int err;

		if (!dflt_cpu(&c->o.filter, cpu))
			continue;
		err = ptt_map_file(paths[i], &buf, &len);
		if (err) {
			ptt_err("cannot read %s: %s", paths[i], strerror(-err));
			ret = PTT_EXIT_INPUT;
			break;
		}
		if (!c->o.no_loss)
			ret = ptt_load_loss(paths[i], c->o.loss_path, &lf, &have);
		if (!ret) {
			if (c->o.calls && !c->o.quiet && c->ntraces > 1)
				ob_printf(&c->ob, "[trace %s, cpu %d]\n",
					  paths[i], cpu);
			if (track) {
				char name[64];

				snprintf(name, sizeof(name), cpu >= 0 ?
					 "cpu %d" : "file %d", cpu >= 0 ? cpu : i);
				memset(track, 0, sizeof(*track));
				tl_track_init(&c->tl, track,
					      cpu >= 0 ? cpu : 100000 + i, name,
					      0);
			}
			decode_bts(&c->as, buf, len, cpu, have ? &lf : NULL,
				   c->o.quiet, c->o.calls, &c->o.filter, track,
				   &c->ob, &st);
			if (st.partial)
				ptt_warn("%s: %llu bytes after the last whole 24-byte record",
					 paths[i], (unsigned long long)st.partial);
			sum.records += st.records;
			sum.gaps += st.gaps;
			sum.lost += st.lost;
			sum.unknown += st.unknown;
			sum.unread += st.unread;
			sum.switches += st.switches;
			sum.hidden += st.hidden;
		}
		ptl_free(&lf);
		if (buf)
			ptt_unmap_file(buf, len);
	}
	if (!ret && c->o.quiet) {
		ob_printf(&c->ob, "%llu branches", (unsigned long long)sum.records);
		if (sum.gaps)
			ob_printf(&c->ob, ", %llu gaps: %llu branches lost%s",
				  (unsigned long long)sum.gaps,
				  (unsigned long long)sum.lost,
				  sum.unknown ? " and some of unknown number" : "");
		ob_puts(&c->ob, "\n");
	}
	ob_free(&c->ob);
	ret = decode_write_error(&c->ob, ret);
	free(track);
	if (c->tl.f && tl_close(&c->tl) && !ret) {
		ptt_err("writing %s failed", c->o.timeline);
		ret = PTT_EXIT_INPUT;
	}
	if (!ret && sum.unread)
		ptt_warn("the instructions of %llu of %llu branches are in no file given (the recording's sideband maps, kernel.text, --elf): they are neither calls nor returns in the tree or timeline",
			 (unsigned long long)sum.unread,
			 (unsigned long long)sum.records);
	if (!ret && (c->o.filter.npid || c->o.filter.ntid) && !sum.switches)
		ptt_warn("--pid/--tid: these BTS files have no switch records (a recording of an older pt-trace): no branch is any thread's");
	if (!ret && !sum.records) {
		ptt_err("no BTS record in the file(s) given");
		ret = PTT_EXIT_INPUT;
	}
	return ret;
}
