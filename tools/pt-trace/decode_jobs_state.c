// SPDX-License-Identifier: GPL-2.0
/*
 * decode --jobs: taking a trace's decoding state out of a decoder and
 * putting it into another, comparing two, and predicting a segment's
 * from its PSB+ and the switch records (decode_jobs_state.h).
 */
#include <string.h>

#include "decode_image.h"
#include "decode_jobs_state.h"
#include "decode_tcal.h"
#include "decode_vmx.h"

void decode_state_get(const struct decode_ctx *c,
		      const struct decode_trace *t,
		      struct decode_carry *s)
{
	s->st = t->st;
	s->st.have_prev = c->vmx.have_prev;
	s->st.prev_tsc = c->vmx.prev_tsc;
	s->st.prev_keep = t->first_due;
	s->host_cr3 = c->vmx.host_cr3;
	s->nr_no_pip = c->vmx.nr_no_pip;
	s->nr_no_exit_pip = c->vmx.nr_no_exit_pip;
}

/*
 * The counts go to workers only: the main context's are the pieces'
 * counts added up (decode_seg_accept()), where a piece that started
 * from a count past DVMX_NO_PIP_WARN, not the true one, counted right.
 */
void decode_state_set(struct decode_ctx *c, struct decode_trace *t,
		      const struct decode_carry *s)
{
	t->st = s->st;
	c->vmx.host_cr3 = s->host_cr3;
	if (!c->worker)
		return;
	c->vmx.nr_no_pip = s->nr_no_pip;
	c->vmx.nr_no_exit_pip = s->nr_no_exit_pip;
}

/* A count of DVMX_NO_PIP_WARN or more warns no more. */
static inline int decode_warn_eq(uint64_t a, uint64_t b)
{
	return a == b || (a >= DVMX_NO_PIP_WARN && b >= DVMX_NO_PIP_WARN);
}

/*
 * Whether two states decode alike: what a field is read for decides
 * whether it counts.  With @pip (the segment's PSB+ has a host's PIP,
 * NR 0, and a FUP) the CR3 seen before does not: the PSB+'s PIP replaces
 * it before anything reads it (decode_pip(), and the host's CR3 the VMX
 * code keeps).  Whether the process ran an
 * instruction yet counts only where it execs later (decode_exec()), the
 * enable's time only after an enable's timing packets
 * (decode_follow_enable()).  Whether the filters hid the last
 * instruction does not: it restarts --calls's tree, and keeps the
 * listing off decode_plain_run(), which a listing with filters does not
 * take anyway (and --calls is not decoded in segments: decode_par_ok()).
 * Whether the decoder was in sync does not either: a piece is decoded as
 * if it were, and decode_seg_accept() mends the sync count and
 * --summary's time where it was not.
 */
int decode_state_eq(const struct decode_carry *ca,
		    const struct decode_carry *cb, int pip)
{
	const struct decode_state *a = &ca->st, *b = &cb->st;

	return (pip || ca->host_cr3 == cb->host_cr3) && a->cur == b->cur &&
	       dtcal_eq(&a->tcal, &b->tcal) &&
	       decode_warn_eq(ca->nr_no_pip, cb->nr_no_pip) &&
	       decode_warn_eq(ca->nr_no_exit_pip, cb->nr_no_exit_pip) &&
	       (!a->cur->next || a->cur_fresh == b->cur_fresh) &&
	       a->cur_sw == b->cur_sw && a->sw_until == b->sw_until &&
	       a->pid == b->pid && a->tid == b->tid &&
	       !strncmp(a->comm, b->comm, sizeof(a->comm)) &&
	       (pip || (a->last_cr3 == b->last_cr3 &&
			a->cr3_fresh == b->cr3_fresh)) &&
	       a->enable_timing == b->enable_timing &&
	       a->tail_err == b->tail_err &&
	       (!a->tail_err || a->tail_ip == b->tail_ip) &&
	       (!a->enable_timing ||
		(a->enable_has_tsc == b->enable_has_tsc &&
		 (!a->enable_has_tsc || a->enable_tsc == b->enable_tsc)));
}

/*
 * The state one decoder reading on would have at a segment's start,
 * from the last known state @s (of an earlier point) and the segment's
 * PSB+ (@h): the switch records' run at the PSB+'s TSC, by the rule of
 * decode_follow() (which that decoder applies at the instructions just
 * before the PSB, whose time is already the PSB+'s: decode_time()).
 * What only decoding the segments between shows (a PIP's CR3 naming
 * another process, an exec, an enable before a switch-in record) it
 * cannot know: dpar_ops.stands finds those, and the segment is decoded
 * again from the state the one before left.
 */
void decode_predict(struct decode_ctx *c, const struct decode_trace *t,
		    struct decode_state *s, const struct dpar_psb *h)
{
	const struct das_switch *w;
	struct das_proc *p;
	size_t i;

	/*
	 * The segments between ran instructions (the one before it, those
	 * of its end, which decode_follow() sees already at the PSB+'s time)
	 */
	s->cur_fresh = 0;
	/* the segment before reports no error for this one to name */
	s->tail_err = 0;
	if (!h->has_tsc || h->tsc <= s->sw_until)
		return;
	for (i = s->cur_sw < 0 ? 0 : (size_t)s->cur_sw;
	     i < t->nsw && t->sw[i].out < h->tsc; i++)
		;
	if (i == t->nsw) {
		s->sw_until = UINT64_MAX;
		return;
	}
	s->sw_until = t->sw[i].out;
	if ((long)i == s->cur_sw)
		return;
	w = &t->sw[i];
	s->cur_sw = (long)i;
	s->cr3_fresh = 0;
	s->pid = w->pid;
	s->tid = w->tid;
	memcpy(s->comm, w->comm, sizeof(s->comm));
	p = decode_use_at(c, w->pid, w->tsc);
	if (p)
		s->cur = p;
}
