// SPDX-License-Identifier: GPL-2.0
/*
 * The model's burst generator (model_burst=1, a benchmark aid): each tick
 * encodes one PSB period of packets and repeats it up to model_tick_bytes.
 * CPU 0 is traced in flight-recorder mode for about half a second at the
 * model's highest rate (model_period_us=10, model_tick_bytes=65536), once
 * with the normal generator and once with burst, and for both:
 *  - the stream decodes with libipt with zero errors;
 *  - it holds several PSBs, exactly one per PSB period: the copies keep
 *    the cadence of PSBFreq (4 KiB without configurable PSB);
 *  - no modelled #GP fires, no STOP or error;
 *  - the model says which generator runs (debugfs detail), and counts
 *    copied bytes (burst_bytes) only in burst mode.
 * The model's bytes_written per second of both runs is printed; the only
 * thing asserted about it is that burst wrote more (the normal encoder,
 * not the period, bounds the rate at these settings).
 * model_burst and model_seq exclude each other (copies would repeat PTW
 * sequence numbers): setting either while the other is 1 fails.
 * Then (multi-entry ToPA) CPU 0 streams with burst on and a reader that
 * pauses once: the driver's lost_bytes equals the model's count exactly
 * (the ticks go on building their copies while Stopped and count them),
 * and every stretch between loss records decodes with zero errors.
 * The parameters are restored at exit.
 */
#include <stdlib.h>

#include "model_common.h"
#include "stream_common.h"

#define RUN_SECS	0.5
#define CAP		(64u << 20)

static struct mc_pace pace;

static void restore(void)
{
	mc_param("model_burst", "0");
	mc_param("model_seq", "0");
	mc_pace_restore(&pace);
}

/* Does debugfs detail name this generator? */
static int detail_says(const char *what)
{
	char buf[4096];
	FILE *f = fopen(MC_MODEL_DIR "detail", "r");
	size_t n;

	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return !!strstr(buf, what);
}

/* /dev/kmsg from its end: the records logged from now on. */
static int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/* Did the kernel log @what since kmsg_open()? */
static int kmsg_says(int fd, const char *what)
{
	char rec[1024];
	ssize_t n;
	int found = 0;

	/* One record per read; EAGAIN at the end. */
	while ((n = read(fd, rec, sizeof(rec) - 1)) > 0 ||
	       (n < 0 && errno == EPIPE)) {
		if (n <= 0)
			continue;	/* overwritten records: go on */
		rec[n] = '\0';
		found |= !!strstr(rec, what);
	}
	return found;
}

struct result {
	double rate;		/* model bytes_written per second */
	long long burst;	/* burst_bytes during the run */
};

static void run(int fd, const char *what, unsigned long period,
		struct result *res)
{
	struct ptt_packet_stats ps;
	unsigned long long lo, hi;
	long long b0, b1, gp0, gp1;
	struct mc_window w = { .secs = RUN_SECS };
	struct mc_trace t;

	gp0 = mc_model("gp_faults");
	b0 = mc_model("burst_bytes");
	mc_run(fd, mc_idle, &w, &t);
	b1 = mc_model("burst_bytes");
	gp1 = mc_model("gp_faults");
	REQUIRE(w.w0 >= 0 && w.w1 >= w.w0 && w.t1 > w.t0, "%s: bytes_written",
		what);
	res->rate = (w.w1 - w.w0) / (w.t1 - w.t0);
	res->burst = b1 - b0;

	REQUIRE(t.len > 0, "%s: no trace", what);
	CHECK(!(t.st.flags & (PT_STATUS_HW_ERROR | PT_STATUS_HW_STOPPED)),
	      "%s: hw flags %#x", what, t.st.flags);
	REQUIRE(ptt_decode_packets(t.buf, t.len, &ps) == 0,
		"%s: no PSB in %zu bytes", what, t.len);
	CHECK(ps.errors == 0, "%s: %llu decode errors, first at %llu", what,
	      (unsigned long long)ps.errors,
	      (unsigned long long)ps.first_error_offset);
	CHECK(ps.psb >= 4, "%s: %llu PSB in %zu bytes", what,
	      (unsigned long long)ps.psb, t.len);
	/*
	 * A PSB once PacketByteCnt reaches the period, at the next packet
	 * boundary: never closer than the period, and never further than
	 * the period plus one PSB+ and one step (< 512 bytes).
	 */
	lo = t.len / (period + 512);
	hi = t.len / period + 2;
	CHECK(ps.psb + 2 >= lo && ps.psb <= hi,
	      "%s: %llu PSB in %zu bytes, period %lu: expected %llu..%llu",
	      what, (unsigned long long)ps.psb, t.len, period, lo, hi);
	CHECK(gp0 >= 0 && gp1 == gp0, "%s: modelled #GP: gp_faults %lld -> %lld",
	      what, gp0, gp1);
	fprintf(stderr,
		"PTT-INFO %s: model wrote %.1f MB/s, %lld burst bytes; flight buffer %zu bytes, %llu packets, %llu psb, %llu tip, %llu fup\n",
		what, res->rate / 1e6, res->burst, t.len,
		(unsigned long long)ps.packets, (unsigned long long)ps.psb,
		(unsigned long long)ps.tip, (unsigned long long)ps.fup);
	free(t.buf);
}

static void drain(int fd, unsigned char *out, size_t *len, double secs)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	double t0 = mc_now();

	while (mc_now() - t0 < secs) {
		poll(&pfd, 1, 100);
		while (st_read(fd, out, len, CAP) > 0)
			;
	}
}

/*
 * Streaming with burst on and a reader that pauses once: the STOP marker
 * holds the trace, the ticks go on building their blocks and copies and
 * count every byte as lost, and the driver's lost_bytes equals the
 * model's exactly.  Every stretch between gaps decodes.
 */
static void stream_run(void)
{
	const struct pt_trace_loss *rec;
	struct pt_trace_mmap_page *pg;
	struct ptt_packet_stats ps;
	struct pt_trace_status st;
	struct pt_trace_caps caps;
	unsigned long long i, nrec, prev = 0, psbs = 0;
	long long lost0, lost1, b0, b1;
	unsigned char *out = malloc(CAP);
	size_t len = 0;
	int fd;

	REQUIRE(out, "malloc");
	/* A rate the reader keeps up with, so that the pause is the gap. */
	REQUIRE(mc_param("model_period_us", "5000") == 0, "model_period_us");
	REQUIRE(mc_param("model_tick_bytes", "65536") == 0, "model_tick_bytes");
	fd = st_setup(0, 1 << 20, 256 << 10, O_NONBLOCK, &caps);
	lost0 = mc_model("lost_bytes");
	b0 = mc_model("burst_bytes");
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	drain(fd, out, &len, 0.2);
	usleep(300 * 1000);		/* the paused reader */
	drain(fd, out, &len, 0.3);
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	while (st_read(fd, out, &len, CAP) > 0)
		;
	lost1 = mc_model("lost_bytes");
	b1 = mc_model("burst_bytes");
	st_status(fd, &st);
	pg = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	REQUIRE(pg != MAP_FAILED, "mmap control page: %s", strerror(errno));
	nrec = __atomic_load_n(&pg->loss_records, __ATOMIC_ACQUIRE);
	fprintf(stderr,
		"PTT-INFO stream burst: read %zu, pmis %llu, stops %llu, records %llu, lost_bytes %llu, model lost %lld, burst bytes %lld\n",
		len, (unsigned long long)st.pmis, (unsigned long long)st.stops,
		nrec, (unsigned long long)st.lost_bytes, lost1 - lost0,
		b1 - b0);
	CHECK(b1 > b0, "stream: no burst bytes");
	CHECK(st.head == len, "head %llu, read %zu",
	      (unsigned long long)st.head, len);
	CHECK(nrec >= 1 && st.stops >= 1, "the pause: %llu records, %llu stops",
	      nrec, (unsigned long long)st.stops);
	CHECK(lost1 > lost0, "the pause lost nothing in the model");
	CHECK((long long)st.lost_bytes == lost1 - lost0,
	      "driver lost_bytes %llu, the model %lld",
	      (unsigned long long)st.lost_bytes, lost1 - lost0);
	if (nrec > pg->loss_slots) {
		/* A reader slower than expected: the oldest were overwritten. */
		fprintf(stderr,
			"PTT-INFO %llu records overran the %u slots: stretches not checked\n",
			nrec, pg->loss_slots);
		goto out;
	}
	for (i = 0; i <= nrec; i++) {
		unsigned long long end = len;

		if (i < nrec) {
			rec = (const void *)((const char *)pg + pg->loss_offset +
					     (i % pg->loss_slots) * sizeof(*rec));
			end = rec->pos;
			CHECK(rec->flags & PT_LOSS_BYTES_KNOWN,
			      "record %llu: flags %#x", i, rec->flags);
		}
		if (end <= prev)
			continue;
		REQUIRE(end <= len, "stretch %llu ends at %llu of %zu", i,
			end, len);
		if (ptt_decode_packets(out + prev, end - prev, &ps) == 0) {
			CHECK(ps.errors == 0,
			      "stretch %llu: %llu decode errors at +%llu", i,
			      (unsigned long long)ps.errors,
			      (unsigned long long)ps.first_error_offset);
			psbs += ps.psb;
		}
		prev = end;
	}
	CHECK(psbs >= 4, "stream: %llu PSBs", psbs);
out:
	munmap(pg, 4096);
	close(fd);
	free(out);
}

int main(void)
{
	struct pt_trace_config cfg = { .size = sizeof(cfg) };
	struct pt_trace_caps caps;
	struct result normal, burst;
	unsigned long period;
	int fd, kmsg;

	fd = mc_open(&caps);
	mc_pace_save(&pace);
	REQUIRE(access(MC_PARAM_DIR "model_burst", W_OK) == 0,
		"model_burst: %s", strerror(errno));
	atexit(restore);
	mc_param("model_burst", "0");
	mc_param("model_seq", "0");
	mc_set_ctl(fd, PT_CTL_BRANCHEN | PT_CTL_USER | PT_CTL_OS);
	REQUIRE(ioctl(fd, PT_TRACE_IOC_GET_CONFIG, &cfg) == 0,
		"GET_CONFIG: %s", strerror(errno));
	/* PSBFreq n: 2^(n+11) bytes; 4 KiB without configurable PSB. */
	period = caps.psb_periods ?
		 2048UL << ((cfg.ctl & PT_CTL_PSBFREQ_MASK) >> PT_CTL_PSBFREQ_SHIFT) :
		 4096UL;

	/* The bench's settings: the encoder, not the period, is the limit. */
	REQUIRE(mc_param("model_period_us", "10") == 0, "model_period_us");
	REQUIRE(mc_param("model_tick_bytes", "65536") == 0, "model_tick_bytes");
	/* Let CPU 0 run only the ticks and what they interrupt. */
	if (sysconf(_SC_NPROCESSORS_ONLN) > 1)
		REQUIRE(ptt_pin_cpu(1) == 0, "pin: %s", strerror(errno));

	CHECK(detail_says("generator normal"), "detail: no 'generator normal'");
	run(fd, "normal", period, &normal);
	CHECK(normal.burst == 0, "normal: %lld burst bytes", normal.burst);

	kmsg = kmsg_open();
	REQUIRE(mc_param("model_burst", "1") == 0, "model_burst=1: %s",
		strerror(errno));
	/* Never selected silently. */
	CHECK(detail_says("generator burst"), "detail: no 'generator burst'");
	CHECK(kmsg >= 0, "/dev/kmsg: %s", strerror(errno));
	if (kmsg >= 0) {
		CHECK(kmsg_says(kmsg, "burst generator on"),
		      "no 'burst generator on' in the kernel log");
		close(kmsg);
	}
	CHECK(mc_param("model_seq", "1") == -EINVAL,
	      "model_seq=1 accepted with model_burst=1");
	run(fd, "burst", period, &burst);
	CHECK(burst.burst > 0, "burst: no burst bytes");
	CHECK(burst.rate > normal.rate,
	      "burst wrote %.1f MB/s, not more than normal %.1f MB/s",
	      burst.rate / 1e6, normal.rate / 1e6);
	fprintf(stderr, "PTT-INFO burst/normal bytes_written rate: %.2f\n",
		normal.rate > 0 ? burst.rate / normal.rate : 0.0);

	REQUIRE(mc_param("model_burst", "0") == 0, "model_burst=0");
	REQUIRE(mc_param("model_seq", "1") == 0, "model_seq=1: %s",
		strerror(errno));
	CHECK(mc_param("model_burst", "1") == -EINVAL,
	      "model_burst=1 accepted with model_seq=1");
	CHECK(detail_says("generator normal"), "detail: burst after refusal");
	REQUIRE(mc_param("model_seq", "0") == 0, "model_seq=0");
	close(fd);

	/*
	 * Single-entry ToPA streams with ticks of 64 bytes (they must fit
	 * the early-PMI margin): no block fits, nothing to burst.
	 */
	if (!(caps.flags & PT_CAP_TOPA_MULTI)) {
		fprintf(stderr, "PTT-INFO single-entry ToPA: no streaming burst run\n");
		return ptt_done();
	}
	REQUIRE(mc_param("model_burst", "1") == 0, "model_burst=1");
	stream_run();
	return ptt_done();
}
