// SPDX-License-Identifier: GPL-2.0
/*
 * Single-entry ToPA's early PMI at any distance (issue 10, model D4).
 * The SDM says only that it comes "before the region fills"; perf pads
 * the last 512 bytes, an observation.  The model raises it
 * model_early_pmi bytes early; this test walks 0, 1, 256, 511, 513 and
 * 600 (past perf's margin) on a CPU with single-entry ToPA (bdw):
 *
 * - flight, 16 KiB (lap PMIs armed by lowering flight_pmi_min), 64-byte
 *   ticks every 100 us, three laps: head is exactly the bytes the model
 *   wrote plus the driver's PAD, i.e. every lap counted once (a driver
 *   that takes a PMI outside its margin for one after the wrap counts
 *   that lap twice), and with the PMI two ticks early or more the driver
 *   padded;
 * - streaming, 256 KiB ring, 64-byte ticks, a reader that keeps up, for
 *   0.7 s and past the first PMI: every byte the model could not write is
 *   in a loss record, and with the PMI at least one tick early nothing is
 *   lost (a driver that does not pad an early PMI outside its margin
 *   restarts into a region that then fills and stops the hardware).
 */
#include "stream_common.h"
#include "stream_wd.h"

#define FLIGHT_SIZE	(16u << 10)
#define STREAM_SIZE	(256u << 10)
#define CAP		(8u << 20)

static const unsigned int dists[] = { 0, 1, 256, 511, 513, 600 };

static void flight_mode(unsigned int d)
{
	struct pt_trace_config cfg = { .size = sizeof(cfg) };
	struct pt_trace_status st;
	long long w0, w1, pad, laps;
	int fd = ptt_open_cpu(0, O_RDWR);
	double t0;

	REQUIRE(fd >= 0, "open: %s", strerror(errno));
	cfg.output = PT_OUTPUT_TOPA;
	cfg.mode = PT_MODE_FLIGHT;
	cfg.ctl = PT_CTL_BRANCHEN | PT_CTL_USER;
	cfg.buffer_size = FLIGHT_SIZE;
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &cfg), "SET_CONFIG: %s",
		strerror(errno));
	st_write_param("model_tick_bytes", "64");
	st_write_param("model_period_us", "100");
	w0 = st_model("bytes_written");
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	t0 = st_now();
	/* Three laps in 8 s; a slow guest gets up to 15 s for two. */
	do {
		ptt_busy(100000);
		st_status(fd, &st);
	} while ((st.head < 3 * FLIGHT_SIZE && st_now() - t0 < 8) ||
		 (st.head <= 2 * FLIGHT_SIZE && st_now() - t0 < 15));
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	w1 = st_model("bytes_written");
	st_status(fd, &st);
	pad = st_stream_counter(0, "pad_bytes");
	laps = st_stream_counter(0, "laps");
	printf("PTT-INFO early %u, flight mode: head %llu = %lld laps + %llu,",
	       d, (unsigned long long)st.head, laps,
	       (unsigned long long)st.offset);
	printf(" model %lld, pad %lld, pmis %llu\n", w1 - w0, pad,
	       (unsigned long long)st.pmis);
	CHECK(st.head > 2 * FLIGHT_SIZE, "early %u: head %llu after %.1f s",
	      d, (unsigned long long)st.head, st_now() - t0);
	CHECK(d < 128 || pad > 0, "early %u: never padded", d);
	CHECK((long long)st.head == w1 - w0 + pad,
	      "early %u, flight mode: head %llu, model wrote %lld + pad %lld", d,
	      (unsigned long long)st.head, w1 - w0, pad);
	CHECK(!(st.flags & PT_STATUS_HW_ERROR), "early %u: error", d);
	close(fd);
}

static void stream(unsigned int d, unsigned char *out)
{
	struct pt_trace_caps caps;
	struct pt_trace_status st;
	long long lost0, lost1;
	size_t len = 0;
	double t0, tp = 0;
	int fd;

	fd = st_setup(0, STREAM_SIZE, 16 << 10, O_NONBLOCK, &caps);
	lost0 = st_model("lost_bytes");
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	t0 = st_now();
	/*
	 * 0.7 s, and at least one (early) PMI with 0.1 s after it for the
	 * rest of its region to fill: up to 5 s on a slow guest.
	 */
	do {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		poll(&pfd, 1, 50);
		while (st_read(fd, out, &len, CAP) > 0)
			;
		st_status(fd, &st);
		if (st.pmis && !tp)
			tp = st_now();
	} while ((st_now() - t0 < 0.7 || !tp || st_now() - tp < 0.1) &&
		 st_now() - t0 < 5 && len < CAP - STREAM_SIZE);
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	while (st_read(fd, out, &len, CAP) > 0)
		;
	lost1 = st_model("lost_bytes");
	st_status(fd, &st);
	printf("PTT-INFO early %u, streaming: read %zu, pmis %llu,", d, len,
	       (unsigned long long)st.pmis);
	printf(" stops %llu, records %llu, lost %llu (model %lld)\n",
	       (unsigned long long)st.stops,
	       (unsigned long long)st.loss_records,
	       (unsigned long long)st.lost_bytes, lost1 - lost0);
	CHECK(st.pmis > 0, "early %u: no PMI in %.1f s", d, st_now() - t0);
	CHECK((long long)st.lost_bytes == lost1 - lost0,
	      "early %u: records hold %llu lost bytes, the model lost %lld", d,
	      (unsigned long long)st.lost_bytes, lost1 - lost0);
	/* A PMI a tick (64 bytes) or more early leaves room to stop. */
	if (d >= 64)
		CHECK(st.loss_records == 0 && st.stops == 0,
		      "early %u: %llu loss records, %llu stops", d,
		      (unsigned long long)st.loss_records,
		      (unsigned long long)st.stops);
	ST_CHECK_NO_WATCHDOG(0);
	close(fd);
}

int main(void)
{
	struct pt_trace_caps caps = { .size = sizeof(caps) };
	unsigned char *out = malloc(CAP);
	char val[16];
	unsigned int i;
	int fd;
	/* Since load; an earlier test in this VM may have added some. */
	long long msr0 = ptt_read_ll("/sys/kernel/debug/pt_trace/msr_faults");
	long long gp0 = st_model("gp_faults");

	/* Line by line: a run killed at its timeout shows how far it got. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	REQUIRE(out, "malloc");
	REQUIRE(ptt_pin_cpu(0) == 0, "pin");
	fd = ptt_open_cpu(0, O_RDWR);
	REQUIRE(fd >= 0, "open: %s", strerror(errno));
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_GET_CAPS, &caps), "caps");
	close(fd);
	if (!(caps.flags & PT_CAP_TOPA) || (caps.flags & PT_CAP_TOPA_MULTI))
		SKIP("not single-entry ToPA");
	REQUIRE(!st_write_param("model_early_pmi", "0"),
		"model_early_pmi: the model cannot move the early PMI");
	ptt_write_str(DRV_PARAM_DIR "flight_pmi_min", "16384");
	for (i = 0; i < ARRAY_SIZE(dists); i++) {
		snprintf(val, sizeof(val), "%u", dists[i]);
		st_write_param("model_early_pmi", val);
		flight_mode(dists[i]);
		stream(dists[i], out);
	}
	st_write_param("model_early_pmi", "256");
	ptt_write_str(DRV_PARAM_DIR "flight_pmi_min", "1048576");
	st_restore_model();
	CHECK(ptt_read_ll("/sys/kernel/debug/pt_trace/msr_faults") == msr0,
	      "faulting MSR accesses");
	CHECK(st_model("gp_faults") == gp0, "modelled #GP");
	return ptt_done();
}
