// SPDX-License-Identifier: GPL-2.0
/*
 * decode --timeline for PT traces: creating the file, its TSC rate and
 * origin (the first timestamp of all traces), a track per trace, the CBR
 * counter tracks, and the marks of decode --jobs workers (decode_timeline.h).
 * The timeline itself is timeline.c's.
 */
#include <stdio.h>
#include <string.h>

#include <linux/pt_trace.h>

#include "decode_insn.h"
#include "decode_loss.h"
#include "decode_out.h"
#include "decode_timeline.h"
#include "tool.h"
#include "trace_config.h"

/* The CBR counter's new value @ratio on the trace's timeline. */
static void decode_tl_counter(struct decode_ctx *c, struct decode_trace *t,
			      unsigned int ratio, uint64_t tsc, int have_tsc)
{
	char name[96];

	if (ratio == t->tl_cbr)
		return;
	t->tl_cbr = ratio;
	snprintf(name, sizeof(name), "%s core %s", t->tl_name,
		 c->bus_mhz ? "frequency" : "clock ratio");
	tl_counter(&t->track, name, c->bus_mhz ? "MHz" : "ratio", tsc,
		   have_tsc, c->bus_mhz ? ratio * c->bus_mhz : ratio);
}

/*
 * --timeline: the core frequency as a counter track per CPU, from each
 * CBR that changes it (PSB+ repeats the last one): the ratio times the
 * bus clock (decode_cbr.c) in MHz, or the ratio when the clock is not
 * known.
 */
void decode_tl_cbr(struct decode_ctx *c, struct decode_trace *t,
		   struct pt_insn_decoder *dec, unsigned int ratio)
{
	uint32_t lost_mtc, lost_cyc;
	uint64_t tsc = 0;
	int have_tsc;

	if (!ratio || (!c->tl_marks && ratio == t->tl_cbr))
		return;
	have_tsc = decode_time(t, dec, &tsc, &lost_mtc, &lost_cyc) >= 0;
	if (c->tl_marks) {
		/* whether it changes the ratio, the trace's timeline says */
		struct tl_mark k = {
			.op = TLM_CBR, .n = ratio, .tsc = tsc,
			.have_tsc = (uint8_t)have_tsc,
		};

		tlm_put(&t->tlm, &c->ob, &k);
		return;
	}
	decode_tl_counter(c, t, ratio, tsc, have_tsc);
}

/* decode --timeline --jobs: a worker's mark @k on the trace's timeline. */
void decode_tl_mark(struct decode_ctx *c, struct decode_trace *t,
		    const struct tl_mark *k)
{
	struct tl_track *track = &t->track;
	struct pt_insn insn;

	if (k->guest && (k->op == TLM_INSN || k->op == TLM_RUN)) {
		track = tl_guest_track(&t->tlg, &t->track, k->vmcs, t->tl_tid,
				       t->tl_name);
		if (!track)
			track = &t->track;
	}
	switch (k->op) {
	case TLM_INSN:
		tlm_to_insn(k, &insn);
		tl_insn(track, k->st, &insn, k->tsc, k->have_tsc);
		break;
	case TLM_RUN:
		tl_insn_run(track, k->n, k->tsc, k->have_tsc);
		break;
	case TLM_ERROR:
		tl_error(track, k->ip, k->text, k->tsc, k->have_tsc);
		tl_guests_end(&t->tlg);
		break;
	case TLM_THREAD:
		tl_track_thread(track, k->pid, k->tid, k->text);
		break;
	case TLM_CPU_THREAD:
		tl_track_thread(track, c->tl.pid, t->tl_tid, t->tl_name);
		break;
	case TLM_CBR:
		decode_tl_counter(c, t, (unsigned int)k->n, k->tsc,
				  k->have_tsc);
		break;
	}
}

/*
 * The first timestamp of a trace on the first CPU's clock: the first TSC
 * packet of each stretch and the start of each gap, whichever is first.
 */
static int decode_first_tsc(const struct decode_ctx *c,
			    const struct decode_trace *t, uint64_t *first)
{
	uint64_t start = 0, end;
	size_t i = 0;
	int found = 0;

	for (i = 0; i < t->lf.n; i++) {
		const struct ptl_record *r = &t->lf.rec[i];
		uint64_t v = r->start_tsc - (uint64_t)t->tsc_offset;

		if ((r->flags & PT_LOSS_DROPPED) || !r->start_tsc)
			continue;
		if (!found || v < *first)
			*first = v;
		found = 1;
	}
	for (i = 0;; start = end) {
		struct pt_config config = c->config;
		struct pt_packet_decoder *dec;
		struct pt_packet pkt;

		end = decode_stretch_end(t, start, &i);
		config.begin = t->buf + start;
		config.end = t->buf + end;
		dec = pt_pkt_alloc_decoder(&config);
		if (dec && pt_pkt_sync_forward(dec) >= 0) {
			for (;;) {
				if (pt_pkt_next(dec, &pkt, sizeof(pkt)) < 0) {
					if (pt_pkt_sync_forward(dec) < 0)
						break;
					continue;
				}
				if (pkt.type != ppt_tsc)
					continue;
				pkt.payload.tsc.tsc -= (uint64_t)t->tsc_offset;
				if (!found || pkt.payload.tsc.tsc < *first)
					*first = pkt.payload.tsc.tsc;
				found = 1;
				break;
			}
		}
		pt_pkt_free_decoder(dec);
		if (end == t->len)
			break;
	}
	return found;
}

void decode_tsc_hz(const struct decode_ctx *c, const struct ptsb *sb,
		   double *hz, const char **source)
{
	if (c->o.tsc_hz > 0) {
		*hz = c->o.tsc_hz;
		*source = "--tsc-hz";
		return;
	}
	ptt_tsc_hz(sb, &c->config, hz, source);
}

/*
 * The timeline file of --timeline, named after the recorded command (else
 * @what) and its process, with --min-duration/--max-events applied.
 */
int decode_tl_create(struct decode_ctx *c, const struct ptsb *sb,
		     const char *what)
{
	const char *cmd = sb ? ptsb_get(sb, "cmd") : NULL;
	char name[4200];
	uint64_t pid;
	int err;

	snprintf(name, sizeof(name), "pt-trace: %s", cmd ? cmd : what);
	if (!sb || ptsb_get_u64(sb, "pid", &pid) || pid > INT32_MAX)
		pid = 0;
	err = tl_open(&c->tl, c->o.timeline, name, (int)pid);
	if (err) {
		ptt_err("cannot create %s: %s", c->o.timeline, strerror(-err));
		return PTT_EXIT_INPUT;
	}
	tl_set_limits(&c->tl, c->o.tl_min_ns, c->o.tl_max);
	return 0;
}

/* Timeline: the TSC rate, time 0 and one track per trace. */
int decode_open_timeline(struct decode_ctx *c, struct decode_trace *tr,
			 const struct ptsb *sb)
{
	uint64_t origin = 0, first = 0;
	int have_origin = 0, i, err;
	const char *source;
	char name[4200];
	double hz;

	err = decode_tl_create(c, sb, tr[0].path);
	if (err)
		return err;
	decode_tsc_hz(c, sb, &hz, &source);
	for (i = 0; i < c->ntraces; i++) {
		if (decode_first_tsc(c, &tr[i], &first) &&
		    (!have_origin || first < origin)) {
			origin = first;
			have_origin = 1;
		}
	}
	if (have_origin && !strncmp(source, "unknown", 7))
		ptt_warn("no TSC rate in the sideband or the options: the timeline assumes 1 GHz (give --tsc-hz)");
	if (!have_origin)
		ptt_warn("the trace has no timestamps (TSC packets): the timeline counts 1 ns per instruction");
	tl_set_clock(&c->tl, hz, source, origin, have_origin);
	for (i = 0; i < c->ntraces; i++) {
		/* Traces of unknown CPUs go after any CPU number. */
		int tid = tr[i].cpu >= 0 ? tr[i].cpu : 100000 + i;

		if (tr[i].cpu >= 0)
			snprintf(name, sizeof(name), "cpu %d", tr[i].cpu);
		else
			snprintf(name, sizeof(name), "%s", tr[i].path);
		tl_track_init(&c->tl, &tr[i].track, tid, name,
			      tr[i].tsc_offset);
		tr[i].tl_tid = tid;
		snprintf(tr[i].tl_name, sizeof(tr[i].tl_name), "%.63s", name);
		/*
		 * Its threads come from decode_switch_to(), as the decoder
		 * follows the CPU's switch records.
		 */
	}
	return PTT_EXIT_OK;
}
