// SPDX-License-Identifier: GPL-2.0
/*
 * The PSB+ list of a trace (decode_psb.h): a pass with pkt_walk(), a
 * TSC packet between PSB and PSBEND is that PSB+'s.  An OVF or a place
 * where libipt lost sync is a barrier: what came before it is not known
 * to be complete, so no answer looks across it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "decode_psb.h"
#include "pkt_walk.h"

struct dpsb_walk {
	struct dpsb_list *out;
	size_t cap;
	int in_psb;
	int nomem;
};

static int dpsb_add(struct dpsb_walk *w, uint64_t off, int barrier)
{
	struct dpsb_list *l = w->out;

	if (l->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 256;
		struct dpsb *p = realloc(l->p, cap * sizeof(*p));

		if (!p) {
			w->nomem = 1;
			return -1;
		}
		l->p = p;
		w->cap = cap;
	}
	memset(&l->p[l->n], 0, sizeof(l->p[0]));
	l->p[l->n].off = off;
	l->p[l->n].barrier = (uint8_t)barrier;
	l->n++;
	return 0;
}

static int dpsb_packet(void *arg, const struct pt_packet *pkt, uint64_t off,
		       int err)
{
	struct dpsb_walk *w = arg;
	struct dpsb *last;

	if (err < 0 || pkt->type == ppt_ovf) {
		w->in_psb = 0;
		return dpsb_add(w, off, 1);
	}
	switch (pkt->type) {
	case ppt_psb:
		w->in_psb = 1;
		return dpsb_add(w, off, 0);
	case ppt_psbend:
		w->in_psb = 0;
		break;
	case ppt_tsc:
		if (!w->in_psb)
			break;
		last = &w->out->p[w->out->n - 1];
		last->tsc = pkt->payload.tsc.tsc;
		last->has_tsc = 1;
		break;
	default:
		break;
	}
	return 0;
}

int dpsb_scan(const uint8_t *buf, size_t len, struct dpsb_list *out)
{
	struct dpsb_walk w = { .out = out };

	memset(out, 0, sizeof(*out));
	pkt_walk_mapped(buf, len, dpsb_packet, &w);
	if (w.nomem) {
		dpsb_free(out);
		return -ENOMEM;
	}
	return 0;
}

void dpsb_free(struct dpsb_list *l)
{
	free(l->p);
	memset(l, 0, sizeof(*l));
}

int dpsb_next_tsc(const struct dpsb_list *l, uint64_t off, uint64_t tsc,
		  uint64_t end, uint64_t *next, uint64_t *next_off)
{
	size_t lo = 0, hi = l->n, i;

	/* The first entry past @off, then back to that PSB+. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->p[mid].off <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* It is one of the last few before @off (libipt reads ahead). */
	for (i = lo; i-- > 0 && lo - i <= 4;) {
		if (l->p[i].barrier)
			return -1;
		if (l->p[i].has_tsc && l->p[i].tsc == tsc)
			break;
	}
	if (i == (size_t)-1 || lo - i > 4)
		return -1;
	if (++i >= l->n || l->p[i].off >= end)
		return 1;
	if (l->p[i].barrier || !l->p[i].has_tsc)
		return -1;
	*next = l->p[i].tsc;
	*next_off = l->p[i].off;
	return 0;
}
