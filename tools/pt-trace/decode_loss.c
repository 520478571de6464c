// SPDX-License-Identifier: GPL-2.0
/*
 * decode's loss records (cpuN.loss): where a stretch between two gaps
 * ends, and what a gap or bytes dropped while tracing ran make of the
 * listing, the counts, the timeline and the call tree (decode_loss.h).
 */
#include <linux/pt_trace.h>

#include "decode_calls.h"
#include "decode_loss.h"
#include "decode_out.h"
#include "outbuf.h"

/*
 * The end of the stretch that starts at @start: the next loss record
 * past it inside the file, else the end of the file.  *i walks the
 * records (sorted by offset).
 */
uint64_t decode_stretch_end(const struct decode_trace *t,
			    uint64_t start, size_t *i)
{
	while (*i < t->lf.n && t->lf.rec[*i].offset <= start)
		++*i;
	if (*i < t->lf.n && t->lf.rec[*i].offset < t->len)
		return t->lf.rec[*i].offset;
	return t->len;
}

/* A gap, or bytes dropped while tracing ran, where the record lies. */
void decode_loss(struct decode_ctx *c, struct decode_trace *t,
		 const struct ptl_record *r)
{
	char text[PTL_DESCRIBE_MAX];
	int show = !c->o.quiet && !c->o.fmt.ip_only;

	ptl_describe(r, text, sizeof(text));
	if (r->flags & PT_LOSS_DROPPED) {
		t->stats.dropped += r->bytes;
		t->dropped += r->bytes;
		if (show)
			ob_printf(&c->ob,
				  "[%llx: loss: %s; decode errors in it are expected]\n",
				  (unsigned long long)r->offset, text);
		if (c->tl.f)
			tl_drop(&t->track, r);
		return;
	}
	t->stats.gaps++;
	if (r->bytes_known)
		t->stats.gap_bytes += r->bytes;
	else
		t->stats.gap_unknown++;
	if (r->end_ns > r->start_ns)
		t->stats.gap_ns += r->end_ns - r->start_ns;
	if (show)
		ob_printf(&c->ob, "[%llx: loss: %s; %s]\n",
			  (unsigned long long)r->offset, text,
			  r->offset >= t->len ? "trace lost here, at the end of the file" :
			  c->o.calls ? "trace lost here, the call tree restarts after the gap" :
			  "trace lost here, decoding restarts at the PSB after the gap");
	if (c->tl.f) {
		tl_gap(&t->track, r);
		tl_guests_end(&t->tlg);
	}
	decode_ct_restart(c, t, CTM_LOST);
}
