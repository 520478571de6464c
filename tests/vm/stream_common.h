/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the tests/vm/stream_*.c tests: set up a streaming session,
 * drain it with read(2), read the model's counters and the loss records,
 * and check PTW sequence numbers (model_seq=1) with libipt.
 */
#ifndef STREAM_COMMON_H
#define STREAM_COMMON_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <intel-pt.h>
#include <linux/pt_trace.h>

#include "ptt_test.h"

#define MODEL_DIR "/sys/kernel/debug/pt_trace/model/"
#define PARAM_DIR "/sys/module/pt_trace_model/parameters/"

static inline double st_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A parameter of the driver module (not the model's). */
#define DRV_PARAM_DIR "/sys/module/pt_trace/parameters/"

static inline int st_write_param(const char *name, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), PARAM_DIR "%s", name);
	return ptt_write_str(path, val);
}

static inline long long st_model(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), MODEL_DIR "%s", name);
	return ptt_read_ll(path);
}

static inline int st_single_entry(const struct pt_trace_caps *caps)
{
	return !(caps->flags & PT_CAP_TOPA_MULTI);
}

/*
 * Open CPU @cpu for streaming with @size bytes and @wm watermark; skips
 * without ToPA.  PTWEn when the CPU has PTWRITE (for sequence numbers).
 */
static inline int st_setup(int cpu, unsigned long long size, __u32 wm, int flags,
			   struct pt_trace_caps *caps)
{
	struct pt_trace_config cfg;
	int fd = ptt_open_cpu(cpu, O_RDWR | flags);

	REQUIRE(fd >= 0, "open /dev/pt%d: %s", cpu, strerror(errno));
	memset(caps, 0, sizeof(*caps));
	caps->size = sizeof(*caps);
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_GET_CAPS, caps), "caps");
	if (!(caps->flags & PT_CAP_TOPA))
		SKIP("no ToPA: no streaming");
	memset(&cfg, 0, sizeof(cfg));
	cfg.size = sizeof(cfg);
	cfg.ctl = PT_CTL_BRANCHEN | PT_CTL_USER | PT_CTL_OS;
	if (caps->flags & PT_CAP_PTWRITE)
		cfg.ctl |= PT_CTL_PTWEN;
	cfg.mode = PT_MODE_STREAM;
	cfg.buffer_size = size;
	cfg.watermark = wm;
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &cfg),
		"SET_CONFIG stream: %s", strerror(errno));
	/* The model's ticks are written whole: keep them inside the margin. */
	if (st_single_entry(caps)) {
		st_write_param("model_tick_bytes", "64");
		st_write_param("model_period_us", "100");
	}
	return fd;
}

/* 64 bytes every 250 ms: nothing reaches a watermark by accident. */
static inline void st_model_slow(void)
{
	st_write_param("model_period_us", "250000");
	st_write_param("model_tick_bytes", "64");
}

/* The usual pace (single-entry ToPA: whole ticks in the PMI margin). */
static inline void st_model_fast(const struct pt_trace_caps *caps)
{
	st_write_param("model_period_us", st_single_entry(caps) ? "100" : "1000");
	st_write_param("model_tick_bytes", st_single_entry(caps) ? "64" : "2048");
}

static inline void st_restore_model(void)
{
	st_write_param("model_tick_bytes", "2048");
	st_write_param("model_period_us", "1000");
	st_write_param("model_seq", "0");
}

static inline void st_status(int fd, struct pt_trace_status *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_GET_STATUS, st), "GET_STATUS: %s",
		strerror(errno));
}

/* Read everything available now into out[*len..cap); 0 at EOF. */
static inline ssize_t st_read(int fd, unsigned char *out, size_t *len, size_t cap)
{
	ssize_t n = read(fd, out + *len, cap - *len);

	if (n > 0)
		*len += n;
	return n;
}

/*
 * PTW payloads in [from, to) of the stream: count discontinuities
 * (payload != previous + 1).  first, last: the first and last payload.
 */
struct st_seq {
	unsigned long long ptws, breaks, first, last;
};

static inline void st_seq_scan(const unsigned char *buf, size_t len,
			       struct st_seq *s)
{
	struct ptt_seq q;

	ptt_ptw_seq(buf, len, &q);
	s->ptws = q.ptws;
	s->breaks = q.breaks;
	s->first = q.first;
	s->last = q.last;
}

/*
 * The stream read, cut at its @nrec loss records (in stream order): every
 * record lies in order inside it; each stretch between them decodes with
 * libipt and, with PTW numbers (@ptw), has no sequence break inside; and
 * when the records count bytes (@known) the sequence breaks across the
 * records at one position iff they lost bytes.  Returns the number of
 * breaks across records.
 */
static inline unsigned long long
st_check_stretches(const unsigned char *out, size_t len,
		   const struct pt_trace_loss *recs, unsigned long long nrec,
		   int ptw, int known)
{
	unsigned long long i, prev = 0, last = 0, pending = 0, breaks_at = 0;
	struct ptt_packet_stats ps;
	int have_last = 0;

	for (i = 0; i <= nrec; i++) {
		unsigned long long end = i < nrec ? recs[i].pos : len;
		struct st_seq seq = { 0 };

		CHECK(end >= prev && end <= len, "position %llu in [%llu, %zu]",
		      end, prev, len);
		if (end > prev && end <= len) {
			if (ptt_decode_packets(out + prev, end - prev, &ps) == 0)
				CHECK(ps.errors == 0,
				      "stretch %llu: %llu decode errors at +%llu",
				      i, (unsigned long long)ps.errors,
				      (unsigned long long)ps.first_error_offset);
			if (ptw) {
				st_seq_scan(out + prev, end - prev, &seq);
				CHECK(seq.breaks == 0,
				      "stretch %llu: %llu seq breaks", i,
				      seq.breaks);
			}
			if (seq.ptws && have_last) {
				int brk = seq.first != last + 1;

				breaks_at += brk;
				if (known)
					CHECK(brk == (pending > 0),
					      "before %llu: PTW %llu then %llu across %llu lost bytes",
					      prev, last, seq.first, pending);
			}
			if (seq.ptws) {
				last = seq.last;
				have_last = 1;
				pending = 0;
			}
			prev = end;
		}
		if (i < nrec)
			pending += recs[i].bytes;
	}
	return breaks_at;
}

#endif /* STREAM_COMMON_H */
