// SPDX-License-Identifier: GPL-2.0
/*
 * Bounded NMI rate (issue 10, M4).  On silicon a small ring fills
 * thousands of times a second; one NMI per fill would flood the CPU.
 *
 * 1. Flight mode, 4 KiB ToPA ring (below the 1 MiB lap-PMI floor), the
 *    model writing 4 KiB every 100 us (a lap per tick): no PMI at all,
 *    as in perf's snapshot mode, and the recorder still reports WRAPPED.
 * 2. Streaming, the smallest ring (8 KiB: two 4 KiB regions), the same
 *    rate, a reader on the other CPU, the PMI limit lowered to 100 per
 *    second (stream_pmi_max's floor: one PMI per 10 ms window; the
 *    default 10,000 is more than the model reaches under TCG), for a
 *    second and then until the driver throttled (up to 5 s): the PMIs
 *    per second stay within the limit (plus one window's, as the count
 *    starts at any time in one), the driver throttled, the stream went on
 *    (no livelock: the test ends, data was read) with loss records
 *    flagged PT_LOSS_THROTTLED, and every byte the model could not write
 *    is in a record.  Then (icl only: the limit does not depend on the
 *    profile) the same flood under the default limit (10,000 a second),
 *    far above what the model reaches under TCG (about 800 PMIs a
 *    second here): never throttled, no record flagged so.  A limit
 *    between the two cannot be tested here: the model under TCG never
 *    reaches it.
 * 3. The minimum streaming region (64 KiB where the ring holds four):
 *    a 256 KiB ring with a 4 KiB watermark (INT at every region end), at
 *    the same rate, a reader keeping up: one PMI per region, so at least
 *    32 KiB per PMI (1/16 of the ring, 16 KiB regions, gave one PMI per
 *    16 KiB).
 */
#include <sys/mman.h>

#include "stream_common.h"
#include "stream_wd.h"

#define RING	8192u
#define CAP	(64u << 20)
#define LIMIT	100

static void flight_small(void)
{
	struct pt_trace_config cfg = { .size = sizeof(cfg) };
	struct pt_trace_status st;
	int fd = ptt_open_cpu(0, O_RDWR);
	double t0;

	REQUIRE(fd >= 0, "open: %s", strerror(errno));
	cfg.output = PT_OUTPUT_TOPA;
	cfg.mode = PT_MODE_FLIGHT;
	cfg.ctl = PT_CTL_BRANCHEN | PT_CTL_USER | PT_CTL_OS;
	cfg.buffer_size = 4096;
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &cfg), "SET_CONFIG: %s",
		strerror(errno));
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	t0 = st_now();
	/*
	 * Until the live status says it wrapped: a lap PMI would have come
	 * then, NMIs being at once.  (Without lap PMIs head stays under two
	 * laps: one plus the offset.)  A few tenths of a second here; a slow
	 * guest gets up to 5 s.
	 */
	do {
		ptt_busy(10000);
		st_status(fd, &st);
	} while (st_now() - t0 < 5 && !(st.flags & PT_STATUS_WRAPPED));
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	st_status(fd, &st);
	printf("PTT-INFO flight 4 KiB: head %llu, pmis %llu, flags %#x\n",
	       (unsigned long long)st.head, (unsigned long long)st.pmis,
	       st.flags);
	CHECK(st.pmis == 0, "flight 4 KiB: %llu lap PMIs below the floor",
	      (unsigned long long)st.pmis);
	CHECK(st.flags & PT_STATUS_WRAPPED,
	      "flight 4 KiB did not wrap in %.1f s (head %llu)", st_now() - t0,
	      (unsigned long long)st.head);
	close(fd);
}

/*
 * Count the loss records with PT_LOSS_THROTTLED written since *seen
 * (those still in the control page's ring), and advance *seen.
 */
static unsigned int throttled_records(const struct pt_trace_mmap_page *c,
				      __u64 *seen)
{
	const struct pt_trace_loss *l;
	unsigned int n = 0;
	__u64 i, recs;

	recs = __atomic_load_n(&c->loss_records, __ATOMIC_ACQUIRE);
	l = (const void *)((const char *)c + c->loss_offset);
	i = recs > c->loss_slots && *seen < recs - c->loss_slots ?
	    recs - c->loss_slots : *seen;
	for (; i < recs; i++)
		n += !!(l[i % c->loss_slots].flags & PT_LOSS_THROTTLED);
	*seen = recs;
	return n;
}

/*
 * The flood for @secs under a limit of @limit PMIs a second; under LIMIT
 * then on until the driver throttled (records flagged and its counter),
 * up to 5 s, as a slow guest may reach the limit only in some windows.
 */
static void stream_flood(unsigned char *out, unsigned int limit, double secs)
{
	struct pt_trace_caps caps;
	struct pt_trace_status st;
	long long lost0, lost1, throttles;
	struct pt_trace_mmap_page *c;
	unsigned int thr = 0;
	__u64 seen = 0;
	size_t len = 0;
	double t0, dt, rate;
	char val[16];
	int fd;

	fd = st_setup(0, RING, 4096, O_NONBLOCK, &caps);
	st_write_param("model_tick_bytes", "4096");
	st_write_param("model_period_us", "100");
	snprintf(val, sizeof(val), "%u", limit);
	ptt_write_str(DRV_PARAM_DIR "stream_pmi_max", val);
	c = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	REQUIRE(c != MAP_FAILED, "mmap: %s", strerror(errno));
	lost0 = st_model("lost_bytes");
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	t0 = st_now();
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		poll(&pfd, 1, 20);
		while (st_read(fd, out, &len, CAP) > 0)
			;
		thr += throttled_records(c, &seen);
		dt = st_now() - t0;
		if (len >= CAP - RING || dt >= 5)
			break;
		if (dt >= secs && len > 4 * RING &&
		    (limit != LIMIT ||
		     (thr && st_stream_counter(0, "throttles") > 0)))
			break;
	}
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	dt = st_now() - t0;
	while (st_read(fd, out, &len, CAP) > 0)
		;
	lost1 = st_model("lost_bytes");
	st_status(fd, &st);
	throttles = st_stream_counter(0, "throttles");
	thr += throttled_records(c, &seen);
	munmap(c, 4096);
	rate = st.pmis / dt;
	printf("PTT-INFO %u B ring: read %zu in %.2f s, %.0f PMIs/s (limit %u),",
	       RING, len, dt, rate, limit);
	printf(" throttles %lld, records %llu (%u throttled)\n", throttles,
	       (unsigned long long)st.loss_records, thr);
	printf("PTT-INFO lost %llu (model %lld)\n",
	       (unsigned long long)st.lost_bytes, lost1 - lost0);
	/*
	 * At most limit / 100 PMIs in a 10 ms window, windows back to back
	 * at most: in dt, one window's more than the limit.
	 */
	CHECK(st.pmis <= limit * dt + limit / 100.0 + 1,
	      "%llu PMIs in %.2f s (%.0f/s) over a limit of %u a second",
	      (unsigned long long)st.pmis, dt, rate, limit);
	CHECK(len > 4 * RING, "read only %zu in %.1f s", len, dt);
	if (limit == LIMIT)
		CHECK(throttles > 0 && thr > 0,
		      "never throttled in %.1f s (%lld, %u records)", dt,
		      throttles, thr);
	else
		CHECK(throttles == 0 && thr == 0,
		      "%.0f PMIs/s throttled under a limit of %u (%lld, %u records)",
		      rate, limit, throttles, thr);
	CHECK((long long)st.lost_bytes == lost1 - lost0,
	      "records hold %llu lost bytes, the model lost %lld",
	      (unsigned long long)st.lost_bytes, lost1 - lost0);
	ptt_write_str(DRV_PARAM_DIR "stream_pmi_max", "10000");
	close(fd);
}

static void region_floor(unsigned char *out)
{
	struct pt_trace_caps caps;
	struct pt_trace_status st;
	size_t len = 0;
	double t0;
	int fd;

	fd = st_setup(0, 256u << 10, 4096, O_NONBLOCK, &caps);
	st_write_param("model_tick_bytes", "4096");
	st_write_param("model_period_us", "100");
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	t0 = st_now();
	/* 4 MiB (1 s moved 18 MB with 286 PMIs), or 1 s. */
	while (st_now() - t0 < 1.0 && len < (4u << 20)) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		poll(&pfd, 1, 20);
		while (st_read(fd, out, &len, CAP) > 0)
			;
	}
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	st_status(fd, &st);
	printf("PTT-INFO 256 KiB ring, 4 KiB watermark: ");
	printf("%llu bytes, %llu PMIs, %.0f bytes per PMI\n",
	       (unsigned long long)st.stream_bytes,
	       (unsigned long long)st.pmis,
	       st.pmis ? (double)st.stream_bytes / st.pmis : 0.0);
	CHECK(st.pmis > 0 && st.stream_bytes > 512u << 10,
	      "too little traffic: %llu bytes, %llu PMIs",
	      (unsigned long long)st.stream_bytes,
	      (unsigned long long)st.pmis);
	CHECK(st.stream_bytes >= st.pmis * (32u << 10),
	      "%llu PMIs for %llu bytes: regions below the 64 KiB floor",
	      (unsigned long long)st.pmis,
	      (unsigned long long)st.stream_bytes);
	close(fd);
}

int main(void)
{
	unsigned char *out = malloc(CAP);
	/* Since load; an earlier test in this VM may have added some. */
	long long msr0 = ptt_read_ll("/sys/kernel/debug/pt_trace/msr_faults");
	long long gp0 = st_model("gp_faults");

	REQUIRE(out, "malloc");
	REQUIRE(ptt_pin_cpu(1) == 0, "pin");
	st_write_param("model_tick_bytes", "4096");
	st_write_param("model_period_us", "100");
	flight_small();
	stream_flood(out, LIMIT, 1.0);
	if (!getenv("PTT_PROFILE") || !strcmp(getenv("PTT_PROFILE"), "icl"))
		stream_flood(out, 10000, 0.5);
	region_floor(out);
	st_restore_model();
	CHECK(ptt_read_ll("/sys/kernel/debug/pt_trace/msr_faults") == msr0,
	      "faulting MSR accesses");
	CHECK(st_model("gp_faults") == gp0, "modelled #GP");
	return ptt_done();
}
