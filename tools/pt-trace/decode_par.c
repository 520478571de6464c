// SPDX-License-Identifier: GPL-2.0
/*
 * decode --jobs: split a stretch at PSBs and decode the pieces in
 * threads, output in order (decode_par.h).
 *
 * Segments of about DPAR_SEG bytes are handed out in order; the worker
 * whose segment is the oldest not yet written (the "turn") writes as it
 * goes, the others keep their output in memory (outbuf's @turn) until
 * their turn.  A worker does not start a segment more than 2 * jobs
 * ahead of the turn, so memory holds at most that many segments' output.
 *
 * Where one segment ends the next one's PSB+ says, with its FUP, at
 * which instruction the code went on: the earlier segment's decoder walks
 * on past its last packet up to that IP (as a decoder reading on through
 * the PSB+ would), and no further.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <intel-pt.h>

#include "decode_par.h"

#define DPAR_SEG	(16u << 10)

static const uint8_t dpar_psb[16] = {
	2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82
};

struct dpar {
	struct dpar_seg *segs;
	unsigned long nsegs;
	unsigned long next;	/* the next segment to hand out */
	unsigned long turn;	/* the oldest segment not written yet */
	unsigned long ahead;	/* how far past @turn a worker may start */
	struct outbuf **obs;
	/* finished segments waiting for their turn: buffer, length, size */
	char **kept;
	size_t *kept_len, *kept_cap;
	/*
	 * Buffers written out, for the next segments to keep their output
	 * in: a segment's output is megabytes, and fresh memory each time
	 * (malloc maps it, free unmaps it) would be page faults on every
	 * page of it, a good part of a thread's time.  At most @ahead.
	 */
	char **spare;
	size_t *spare_cap;
	unsigned long nspare;
	int (*seg)(void *arg, unsigned int worker, const struct dpar_seg *s);
	void *arg;
	int ret;
	pthread_mutex_t lock;
	pthread_cond_t moved;	/* @turn advanced */
};

struct dpar_worker {
	struct dpar *d;
	unsigned int idx;
};

int dpar_has_pip(const uint8_t *buf, uint64_t start, uint64_t end)
{
	static const uint8_t pip[2] = { 2, 0x43 };

	return !!memmem(buf + start, end - start, pip, sizeof(pip));
}

/* The IP of the FUP in the PSB+ at @buf[off], from a packet decoder. */
static int dpar_psb_ip(const uint8_t *buf, uint64_t off, uint64_t end,
		       uint64_t *ip)
{
	struct pt_config cfg;
	struct pt_packet_decoder *pd;
	struct pt_packet pkt;
	int found = 0;

	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)buf + off;
	cfg.end = (uint8_t *)buf + end;
	pd = pt_pkt_alloc_decoder(&cfg);
	if (!pd)
		return 0;
	if (pt_pkt_sync_set(pd, 0) >= 0) {
		while (pt_pkt_next(pd, &pkt, sizeof(pkt)) >= 0 &&
		       pkt.type != ppt_psbend) {
			if (pkt.type != ppt_fup)
				continue;
			/* last-IP is 0 after a PSB: every form is the IP */
			switch (pkt.payload.ip.ipc) {
			case pt_ipc_suppressed:
				break;
			case pt_ipc_sext_48:
				*ip = (uint64_t)((int64_t)(pkt.payload.ip.ip << 16) >> 16);
				found = 1;
				break;
			default:
				*ip = pkt.payload.ip.ip;
				found = 1;
				break;
			}
		}
	}
	pt_pkt_free_decoder(pd);
	return found;
}

/* Cut [start, end) at the first PSB past every DPAR_SEG bytes. */
static int dpar_split(struct dpar *d, const uint8_t *buf, uint64_t start,
		      uint64_t end)
{
	uint64_t from = start;
	unsigned long cap = 16;

	d->segs = calloc(cap, sizeof(*d->segs));
	if (!d->segs)
		return -ENOMEM;
	for (;;) {
		uint64_t want = from + DPAR_SEG, cut = end;
		const uint8_t *p = NULL;
		struct dpar_seg *s;

		if (want < end)
			p = memmem(buf + want, end - want, dpar_psb, sizeof(dpar_psb));
		if (p)
			cut = (uint64_t)(p - buf);
		if (d->nsegs == cap) {
			s = realloc(d->segs, 2 * cap * sizeof(*s));
			if (!s)
				return -ENOMEM;
			d->segs = s;
			cap *= 2;
		}
		s = &d->segs[d->nsegs];
		memset(s, 0, sizeof(*s));
		s->idx = d->nsegs++;
		s->start = from;
		s->end = cut;
		s->last = cut == end;
		if (s->last)
			return 0;
		s->has_next_ip = dpar_psb_ip(buf, cut, end, &s->next_ip);
		from = cut;
	}
}

static void dpar_write(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		p += n;
		len -= (size_t)n;
	}
}

/*
 * Segment @i is done on @ob: write it if its turn came, then whatever
 * was kept behind it; else keep its buffer (@ob gets a spare one, or a
 * new one).
 */
static int dpar_done(struct dpar *d, struct outbuf *ob, unsigned long i)
{
	unsigned long t;

	pthread_mutex_lock(&d->lock);
	if (__atomic_load_n(&d->turn, __ATOMIC_ACQUIRE) != i) {
		char *fresh;
		size_t cap = ob->cap;

		if (d->nspare) {
			fresh = d->spare[--d->nspare];
			cap = d->spare_cap[d->nspare];
		} else {
			fresh = malloc(cap);
		}
		if (!fresh) {
			pthread_mutex_unlock(&d->lock);
			return -ENOMEM;
		}
		d->kept[i] = ob->buf;
		d->kept_len[i] = ob->len;
		d->kept_cap[i] = ob->cap;
		ob->buf = fresh;
		ob->cap = cap;
		ob->len = 0;
		pthread_mutex_unlock(&d->lock);
		return 0;
	}
	ob_flush(ob);		/* its turn: written */
	/* the turn stays @i (no one else writes) until the kept are out */
	for (t = i + 1; t < d->nsegs && d->kept[t]; t++) {
		dpar_write(ob->fd, d->kept[t], d->kept_len[t]);
		if (d->nspare < d->ahead) {
			d->spare[d->nspare] = d->kept[t];
			d->spare_cap[d->nspare++] = d->kept_cap[t];
		} else {
			free(d->kept[t]);
		}
		d->kept[t] = NULL;
	}
	__atomic_store_n(&d->turn, t, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&d->moved);
	pthread_mutex_unlock(&d->lock);
	return 0;
}

static void *dpar_worker(void *arg)
{
	struct dpar_worker *w = arg;
	struct dpar *d = w->d;
	struct outbuf *ob = d->obs[w->idx];

	for (;;) {
		unsigned long i;
		int ret;

		pthread_mutex_lock(&d->lock);
		while (d->next < d->nsegs &&
		       d->next >= __atomic_load_n(&d->turn, __ATOMIC_ACQUIRE) +
				  d->ahead)
			pthread_cond_wait(&d->moved, &d->lock);
		if (d->next >= d->nsegs || d->ret) {
			pthread_mutex_unlock(&d->lock);
			return NULL;
		}
		i = d->next++;
		pthread_mutex_unlock(&d->lock);

		ob->turn = &d->turn;
		ob->mine = i;
		ret = d->seg(d->arg, w->idx, &d->segs[i]);
		if (!ret)
			ret = dpar_done(d, ob, i);
		if (ret) {
			pthread_mutex_lock(&d->lock);
			if (!d->ret)
				d->ret = ret;
			pthread_cond_broadcast(&d->moved);
			pthread_mutex_unlock(&d->lock);
			return NULL;
		}
	}
}

int dpar_run(const uint8_t *buf, uint64_t start, uint64_t end,
	     unsigned int jobs, struct outbuf **obs,
	     int (*seg)(void *arg, unsigned int worker,
			const struct dpar_seg *s),
	     void *arg)
{
	struct dpar_worker w[DPAR_MAX_JOBS];
	pthread_t th[DPAR_MAX_JOBS];
	struct dpar d;
	unsigned int i, started = 0;
	unsigned long k;
	int ret;

	memset(&d, 0, sizeof(d));
	if (jobs > DPAR_MAX_JOBS)
		jobs = DPAR_MAX_JOBS;
	d.obs = obs;
	d.seg = seg;
	d.arg = arg;
	d.ahead = 2ul * jobs;
	pthread_mutex_init(&d.lock, NULL);
	pthread_cond_init(&d.moved, NULL);
	ret = dpar_split(&d, buf, start, end);
	if (!ret) {
		d.kept = calloc(d.nsegs, sizeof(*d.kept));
		d.kept_len = calloc(d.nsegs, sizeof(*d.kept_len));
		d.kept_cap = calloc(d.nsegs, sizeof(*d.kept_cap));
		d.spare = calloc(d.ahead, sizeof(*d.spare));
		d.spare_cap = calloc(d.ahead, sizeof(*d.spare_cap));
		if (!d.kept || !d.kept_len || !d.kept_cap || !d.spare ||
		    !d.spare_cap)
			ret = -ENOMEM;
	}
	for (i = 0; !ret && i < jobs; i++) {
		w[i].d = &d;
		w[i].idx = i;
		if (pthread_create(&th[i], NULL, dpar_worker, &w[i]))
			break;
		started++;
	}
	if (!ret && !started)
		ret = -EAGAIN;
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < jobs; i++)
		obs[i]->turn = NULL;
	for (k = 0; d.kept && k < d.nsegs; k++)
		free(d.kept[k]);
	while (d.nspare)
		free(d.spare[--d.nspare]);
	free(d.spare);
	free(d.spare_cap);
	free(d.kept);
	free(d.kept_len);
	free(d.kept_cap);
	free(d.segs);
	pthread_cond_destroy(&d.moved);
	pthread_mutex_destroy(&d.lock);
	return ret ? ret : d.ret;
}
