// SPDX-License-Identifier: GPL-2.0
/*
 * decode --jobs: split a stretch at PSBs and decode the pieces in
 * threads, output in order (decode_par.h).
 *
 * Segments of about DPAR_SEG bytes are handed out in order; each keeps
 * its output in memory until every segment before it is written: then
 * the thread that finished last checks that the segment started in the
 * state the one before left (dpar_ops), decodes it again if not, and
 * writes it.  A worker does not start a segment more than 2 * jobs ahead
 * of the oldest one not written, so memory holds at most that many
 * segments' output.
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
#include "tool.h"

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
	char *done;
	char **kept;
	size_t *kept_len, *kept_cap;
	struct ptt_msgs *kept_msgs;	/* and their messages (stderr) */
	/*
	 * Buffers written out, for the next segments to keep their output
	 * in: a segment's output is megabytes, and fresh memory each time
	 * (malloc maps it, free unmaps it) would be page faults on every
	 * page of it, a good part of a thread's time.  At most @ahead.
	 */
	char **spare;
	size_t *spare_cap;
	unsigned long nspare;
	const struct dpar_ops *ops;
	uint64_t end;		/* the stretch's */
	int stop;		/* the rest was decoded in one piece */
	unsigned long never;	/* no segment's number: outbufs keep all */
	int ret;
	pthread_mutex_t lock;
	pthread_cond_t moved;	/* @turn advanced */
};

struct dpar_worker {
	struct dpar *d;
	unsigned int idx;
	struct ptt_msgs msgs;	/* its ptt_err()/ptt_warn() (tool.h) */
};

/*
 * The scans over a whole stretch go in pieces of DPAR_SCAN bytes, each
 * dropped from memory once scanned when the stretch is large (@buf is a
 * ptt_map_file() mapping; the decoders read it again from the file):
 * the kernel maps up to 64 KiB around each page a scan touches, and the
 * stretch would be resident whole before its first segment decodes.
 */
#define DPAR_SCAN	(4u << 20)

static void dpar_scanned(const uint8_t *buf, uint64_t start, uint64_t end,
			 uint64_t from, uint64_t to)
{
	if (end - start > 2 * DPAR_SCAN)
		ptt_file_drop((uint8_t *)buf, from, to);
}

int dpar_has_vmx(const uint8_t *buf, uint64_t start, uint64_t end)
{
	static const uint8_t vmcs[2] = { 2, 0xc8 }, pip[2] = { 2, 0x43 };
	const uint8_t *e = buf + end;
	uint64_t c, n;

	for (c = start; c < end; c = n) {
		/* two bytes more: a packet across the pieces' border */
		const uint8_t *p = buf + c;
		const uint8_t *pe = buf + (end - c > DPAR_SCAN + 2 ?
					   c + DPAR_SCAN + 2 : end);

		n = end - c > DPAR_SCAN ? c + DPAR_SCAN : end;
		if (memmem(p, (size_t)(pe - p), vmcs, sizeof(vmcs)))
			return 1;
		while ((p = memmem(p, (size_t)(pe - p), pip, sizeof(pip)))) {
			p += sizeof(pip);
			if (p < e && *p & 1)
				return 1;	/* PIP.NR: in a guest */
		}
		dpar_scanned(buf, start, end, c, n);
	}
	return 0;
}

/* What the PSB+ at @buf[off] holds (dpar_psb), from a packet decoder. */
static void dpar_psb_read(const uint8_t *buf, uint64_t off, uint64_t end,
			  struct dpar_psb *h)
{
	struct pt_config cfg;
	struct pt_packet_decoder *pd;
	struct pt_packet pkt;

	memset(h, 0, sizeof(*h));
	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)buf + off;
	cfg.end = (uint8_t *)buf + end;
	pd = pt_pkt_alloc_decoder(&cfg);
	if (!pd)
		return;
	if (pt_pkt_sync_set(pd, 0) >= 0) {
		while (pt_pkt_next(pd, &pkt, sizeof(pkt)) >= 0 &&
		       pkt.type != ppt_psbend) {
			if (pkt.type == ppt_tsc) {
				h->has_tsc = 1;
				h->tsc = pkt.payload.tsc.tsc;
			}
			if (pkt.type == ppt_pip) {
				h->has_pip = 1;
				h->pip_nr = !!pkt.payload.pip.nr;
			}
			if (pkt.type == ppt_vmcs)
				h->has_vmcs = 1;
			if (pkt.type != ppt_fup)
				continue;
			/* last-IP is 0 after a PSB: every form is the IP */
			switch (pkt.payload.ip.ipc) {
			case pt_ipc_suppressed:
				break;
			case pt_ipc_sext_48:
				h->ip = (uint64_t)((int64_t)(pkt.payload.ip.ip << 16) >> 16);
				h->has_ip = 1;
				break;
			default:
				h->ip = pkt.payload.ip.ip;
				h->has_ip = 1;
				break;
			}
		}
	}
	pt_pkt_free_decoder(pd);
}

/* Cut [start, end) at the first PSB past every DPAR_SEG bytes. */
static int dpar_split(struct dpar *d, const uint8_t *buf, uint64_t start,
		      uint64_t end)
{
	uint64_t from = start, dropped = start;
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
		if (s->idx)
			s->psb = s[-1].next;
		s->start = from;
		s->end = cut;
		s->last = cut == end;
		if (s->last)
			return 0;
		dpar_psb_read(buf, cut, end, &s->next);
		from = cut;
		if (cut - dropped >= DPAR_SCAN) {
			dpar_scanned(buf, start, end, dropped, cut);
			dropped = cut;
		}
	}
}

/* 0, or -errno (-EIO: nothing written) when @p could not be written. */
static int dpar_write(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* A buffer for @ob: a spare one, or a new one of @ob's size. */
static int dpar_fresh(struct dpar *d, struct outbuf *ob)
{
	char *fresh;
	size_t cap = ob->cap;

	if (d->nspare) {
		fresh = d->spare[--d->nspare];
		cap = d->spare_cap[d->nspare];
	} else {
		fresh = malloc(cap);
	}
	if (!fresh)
		return -ENOMEM;
	ob->buf = fresh;
	ob->cap = cap;
	ob->len = 0;
	return 0;
}

/* Segment @t's kept buffer goes back to the spares. */
static void dpar_recycle(struct dpar *d, unsigned long t)
{
	if (d->nspare < d->ahead) {
		d->spare[d->nspare] = d->kept[t];
		d->spare_cap[d->nspare++] = d->kept_cap[t];
	} else {
		free(d->kept[t]);
	}
	d->kept[t] = NULL;
}

/* Segment @t's messages are @m's so far, and @m starts empty. */
static void dpar_keep_msgs(struct dpar *d, unsigned long t,
			   struct ptt_msgs *m)
{
	free(d->kept_msgs[t].buf);
	d->kept_msgs[t] = *m;
	memset(m, 0, sizeof(*m));
}

/*
 * Segment @i is done on @ob (@worker's, with its messages @m), lock held:
 * keep its buffers (@ob and @m get others); when it is the oldest not
 * written, write it and every finished one behind it, each checked first
 * (dpar_ops.stands) and decoded again here when it does not stand (its
 * output and messages of the first time dropped: a warning is written
 * once, as one decoder writes it).
 */
static int dpar_done(struct dpar *d, unsigned int worker, struct outbuf *ob,
		     struct ptt_msgs *m, unsigned long i)
{
	unsigned long t;
	int ret;

	dpar_keep_msgs(d, i, m);
	d->kept[i] = ob->buf;
	d->kept_len[i] = ob->len;
	d->kept_cap[i] = ob->cap;
	d->done[i] = 1;
	ret = dpar_fresh(d, ob);
	if (ret) {
		/* @ob keeps its buffer (freed once, by ob_free()) */
		d->kept[i] = NULL;
		return ret;
	}
	if (__atomic_load_n(&d->turn, __ATOMIC_ACQUIRE) != i)
		return 0;
	/*
	 * The turn stays @i (no one else writes) until the finished ones
	 * are out: a thread that finishes one meanwhile only keeps it.
	 */
	for (t = i; t < d->nsegs && d->done[t] && !d->ret; t++) {
		int st = d->ops->stands(d->ops->arg, &d->segs[t]);

		if (st == DPAR_REST) {
			dpar_recycle(d, t);
			d->stop = 1;
			pthread_mutex_unlock(&d->lock);
			/* its turn: written as it goes, messages too */
			ob->turn = NULL;
			ptt_msgs_to(NULL);
			ret = d->ops->rest(d->ops->arg, worker, d->segs[t].start,
					   d->end);
			ob_flush(ob);
			ptt_msgs_to(m);
			ob->turn = &d->never;
			pthread_mutex_lock(&d->lock);
			if (ret)
				return ret;
			t = d->nsegs;
			break;
		}
		if (!st) {
			dpar_recycle(d, t);
			pthread_mutex_unlock(&d->lock);
			ob->mine = t;
			ret = d->ops->seg(d->ops->arg, worker, &d->segs[t], 1);
			pthread_mutex_lock(&d->lock);
			if (ret)
				return ret;
			dpar_keep_msgs(d, t, m);
			d->kept[t] = ob->buf;
			d->kept_len[t] = ob->len;
			d->kept_cap[t] = ob->cap;
			ret = dpar_fresh(d, ob);
			if (ret) {
				d->kept[t] = NULL;
				return ret;
			}
		}
		/*
		 * A listing that cannot be written (a full disk): its
		 * error on @ob, which decode reports at the end.
		 */
		if (!ob->error)
			ob->error = d->ops->emit ?
				    d->ops->emit(d->ops->arg, &d->segs[t],
						 ob->fd, d->kept[t],
						 d->kept_len[t]) :
				    dpar_write(ob->fd, d->kept[t],
					       d->kept_len[t]);
		dpar_write(STDERR_FILENO, d->kept_msgs[t].buf,
			   d->kept_msgs[t].len);
		dpar_recycle(d, t);
		d->ops->accept(d->ops->arg, &d->segs[t]);
	}
	__atomic_store_n(&d->turn, t, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&d->moved);
	return 0;
}

static void *dpar_worker(void *arg)
{
	struct dpar_worker *w = arg;
	struct dpar *d = w->d;
	struct outbuf *ob = d->obs[w->idx];

	/* written by dpar_done() only, in order */
	ob->turn = &d->never;
	ptt_msgs_to(&w->msgs);
	for (;;) {
		unsigned long i;
		int ret;

		pthread_mutex_lock(&d->lock);
		while (d->next < d->nsegs && !d->ret && !d->stop &&
		       d->next >= __atomic_load_n(&d->turn, __ATOMIC_ACQUIRE) +
				  d->ahead)
			pthread_cond_wait(&d->moved, &d->lock);
		if (d->next >= d->nsegs || d->ret || d->stop) {
			pthread_mutex_unlock(&d->lock);
			return NULL;
		}
		i = d->next++;
		pthread_mutex_unlock(&d->lock);

		ob->mine = i;
		ob->len = 0;
		ret = d->ops->seg(d->ops->arg, w->idx, &d->segs[i], 0);
		pthread_mutex_lock(&d->lock);
		if (!ret)
			ret = dpar_done(d, w->idx, ob, &w->msgs, i);
		if (ret) {
			if (!d->ret)
				d->ret = ret;
			/* what went wrong, said now: nothing more is written */
			dpar_write(STDERR_FILENO, w->msgs.buf, w->msgs.len);
			w->msgs.len = 0;
			/*
			 * The failed segment's partial listing (with --calls
			 * its marks, which are not text) is not its turn:
			 * dropped, not left for ob_free() to write.
			 */
			ob->len = 0;
			pthread_cond_broadcast(&d->moved);
			pthread_mutex_unlock(&d->lock);
			return NULL;
		}
		pthread_mutex_unlock(&d->lock);
	}
}

int dpar_run(const uint8_t *buf, uint64_t start, uint64_t end,
	     unsigned int jobs, struct outbuf **obs,
	     const struct dpar_ops *ops)
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
	d.ops = ops;
	d.never = ~0ul;
	d.end = end;
	d.ahead = 2ul * jobs;
	pthread_mutex_init(&d.lock, NULL);
	pthread_cond_init(&d.moved, NULL);
	ret = dpar_split(&d, buf, start, end);
	if (!ret) {
		d.done = calloc(d.nsegs, sizeof(*d.done));
		d.kept = calloc(d.nsegs, sizeof(*d.kept));
		d.kept_len = calloc(d.nsegs, sizeof(*d.kept_len));
		d.kept_cap = calloc(d.nsegs, sizeof(*d.kept_cap));
		d.kept_msgs = calloc(d.nsegs, sizeof(*d.kept_msgs));
		d.spare = calloc(d.ahead, sizeof(*d.spare));
		d.spare_cap = calloc(d.ahead, sizeof(*d.spare_cap));
		if (!d.done || !d.kept || !d.kept_len || !d.kept_cap ||
		    !d.kept_msgs || !d.spare || !d.spare_cap)
			ret = -ENOMEM;
	}
	if (!ret) {
		ret = ops->prepare(ops->arg, d.segs, d.nsegs);
		if (ret == 1)
			ret = DPAR_SERIAL;
	}
	for (i = 0; !ret && i < jobs; i++) {
		w[i].d = &d;
		w[i].idx = i;
		memset(&w[i].msgs, 0, sizeof(w[i].msgs));
		if (pthread_create(&th[i], NULL, dpar_worker, &w[i]))
			break;
		started++;
	}
	if (!ret && !started)
		ret = -EAGAIN;
	for (i = 0; i < started; i++) {
		pthread_join(th[i], NULL);
		free(w[i].msgs.buf);
	}
	for (i = 0; i < jobs; i++)
		obs[i]->turn = NULL;
	for (k = 0; d.kept && k < d.nsegs; k++)
		free(d.kept[k]);
	for (k = 0; d.kept_msgs && k < d.nsegs; k++)
		free(d.kept_msgs[k].buf);
	free(d.kept_msgs);
	while (d.nspare)
		free(d.spare[--d.nspare]);
	free(d.spare);
	free(d.spare_cap);
	free(d.done);
	free(d.kept);
	free(d.kept_len);
	free(d.kept_cap);
	free(d.segs);
	pthread_cond_destroy(&d.moved);
	pthread_mutex_destroy(&d.lock);
	return ret ? ret : d.ret;
}
