// SPDX-License-Identifier: GPL-2.0
/*
 * A PT trace from its file to its decoding: decode_load_traces() sets
 * each one up, decode_trace() decodes it stretch by stretch
 * (decode_trace.h).
 */
#include <string.h>

#include "call_tree.h"
#include "decode_follow.h"
#include "decode_jobs.h"
#include "decode_loss.h"
#include "decode_out.h"
#include "decode_psb.h"
#include "decode_trace.h"
#include "decode_vmx.h"
#include "decode_walk.h"
#include "tool.h"
#include "trace_config.h"

static int decode_stretch(struct decode_ctx *c, struct decode_trace *t,
			  uint64_t start, uint64_t end)
{
	t->stretch_end = end;
	if (decode_par_ok(c, start, end))
		return decode_stretch_par(c, t, start, end);
	return decode_stretch_one(c, t, start, end);
}

int decode_trace(struct decode_ctx *c, struct decode_trace *t)
{
	uint64_t start = 0, end;
	size_t i = 0, next = 0;
	int ret = PTT_EXIT_OK;

	int notes = !c->o.quiet && !c->o.fmt.ip_only;

	if (c->ntraces > 1 && notes && t->cpu >= 0)
		ob_printf(&c->ob, "[trace %s, cpu %d]\n", t->path, t->cpu);
	else if (c->ntraces > 1 && notes)
		ob_printf(&c->ob, "[trace %s]\n", t->path);
	if (t->lf.lapped && notes)
		ob_printf(&c->ob,
			  "[loss: %llu more records were overwritten before the recorder read them: where they lie is unknown]\n",
			  (unsigned long long)t->lf.lapped);
	ct_restart(&t->ct);
	c->vmx.trace = t->buf;
	dvmx_scan_tsc(&c->vmx, t->buf, t->len, &t->marks);
	/* Without the list decode_follow_psb() leaves the time rule alone. */
	if (c->psb_enables && t->nsw)
		dpsb_scan(t->buf, t->len, &t->psbs);
	for (;;) {
		end = decode_stretch_end(t, start, &i);
		/* The records at or before this stretch's start. */
		t->dropped = 0;
		while (next < t->lf.n && t->lf.rec[next].offset <= start)
			decode_loss(c, t, &t->lf.rec[next++]);
		ret = decode_stretch(c, t, start, end);
		if (ret || end == t->len)
			break;
		start = end;
	}
	/* Gaps at the end of the file, after the last byte. */
	while (!ret && next < t->lf.n)
		decode_loss(c, t, &t->lf.rec[next++]);
	if (c->tl.f)
		tl_track_end(&t->track);
	tl_guests_end(&t->tlg);
	tl_guests_free(&t->tlg);
	dvmx_marks_free(&t->marks);
	dpsb_free(&t->psbs);
	return ret;
}

/* The CPU a trace is of: cpuN.pt, else the loss file's "cpu N". */
static int decode_trace_cpu(const char *path, const struct ptl_file *lf)
{
	int cpu = ptt_file_cpu(path, ".pt");

	return cpu >= 0 ? cpu : lf->cpu;
}

int decode_load_traces(struct decode_ctx *c, struct decode_trace *tr,
		       char **paths, const struct ptsb *sb)
{
	int i, ret, err;

	for (i = 0; i < c->ntraces; i++) {
		struct decode_trace *t = &tr[i];

		t->path = paths[i];
		err = ptt_map_file(t->path, &t->buf, &t->len);
		if (err) {
			ptt_err("cannot read %s: %s", t->path, strerror(-err));
			return PTT_EXIT_INPUT;
		}
		if (!c->o.no_loss) {
			ret = ptt_load_loss(t->path, c->o.loss_path, &t->lf,
					    &t->have_loss);
			if (ret)
				return ret;
		}
		t->stats.have_loss = t->have_loss;
		t->stats.bytes = t->len;
		t->stats.lapped = t->lf.lapped;
		t->cpu = decode_trace_cpu(t->path, &t->lf);
		ptt_tsc_offset(sb, t->cpu, &t->tsc_offset);
		/*
		 * Before its first switch record the CPU runs the recorded
		 * command, as far as anyone knows.
		 */
		t->st.cur = das_use(&c->as,
				    das_find_at(&c->as, c->as.main_pid, 0));
		t->st.cur_fresh = 1;
		if (!t->st.cur) {
			ptt_err("out of memory");
			return PTT_EXIT_INTERNAL;
		}
		t->st.pid = -1;
		t->st.tid = -1;
		t->sw = das_switches(&c->as, t->cpu, &t->nsw);
		t->have_stop = !ptt_tsc_end(sb, t->cpu, &t->stop_tsc);
		decode_stop_early(t);
		t->st.cur_sw = -1;
		t->st.sw_until = t->nsw ? 0 : UINT64_MAX;
	}
	return PTT_EXIT_OK;
}
