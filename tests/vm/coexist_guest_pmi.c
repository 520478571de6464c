// SPDX-License-Identifier: GPL-2.0
/*
 * A KVM guest's ToPA PMI while our trace runs on a CPU in VMX operation.
 * KVM before 6.3 puts the host's PT state (ours) back before it handles
 * the VM-exit NMI, so the NMI finds bit 55 set and our MSRs loaded: both
 * checks the driver makes for "ours" pass.  The guest's PMI must still
 * reach perf's handler (which hands it to KVM) with the bit set, and
 * must not count as a flight lap or as a stream's PMI:
 *  1. the flight recorder (1 MiB ToPA, lap PMIs) with its output in the
 *     middle of the ring, far from where a lap's PMI leaves it; its own
 *     laps must still count, and at STOP head (laps * size + offset)
 *     must be the bytes the model really wrote: a guest PMI taken as a
 *     lap would add a whole ring;
 *  2. a stream whose INT region is 2 MiB away; its own PMIs must still
 *     come (data flows through a reader).
 * While the guest's PMI is raised the model writes 6.4 KB/s, not its
 * usual 2 MB/s: a lap then needs tens of seconds, so a test process
 * stalled by a loaded host (128 ms was enough before) cannot see one of
 * the trace's own laps and blame the guest.
 * The model's foreign agent raises the guest's PMI; its handler, after
 * ours, counts foreign_handled when it finds the bit, foreign_stolen
 * when the driver acknowledged it first.  icl only (VMX operation that
 * allows tracing; bdw refuses START there, min has no VMX).
 */
#include "coexist_common.h"

#define RING	(1024u * 1024)

static int cpu;

/* 64 bytes every 10 ms: no lap, no INT region reached for seconds. */
static void model_crawl(void)
{
	st_write_param("model_tick_bytes", "64");
	st_write_param("model_period_us", "10000");
}

/* The usual 2 KiB every 1 ms (2 MB/s). */
static void model_walk(void)
{
	st_write_param("model_period_us", "1000");
	st_write_param("model_tick_bytes", "2048");
}

/*
 * Run until the output sits in the middle of a lap, then slow the model
 * down there; a host stall past the middle (the output then too near a
 * lap's end or start) tries the next lap.  Returns the head.
 */
static unsigned long long flight_mid_lap(int fd)
{
	struct pt_trace_status st;
	unsigned long long off = 0;
	double t0;

	/* Half a lap (512 KiB): well under a second here; up to 10 s. */
	for (t0 = st_now(); st_now() - t0 < 10; usleep(5000)) {
		st_status(fd, &st);
		off = st.head % RING;
		if (off >= RING / 2 && off < RING * 3 / 4) {
			model_crawl();
			st_status(fd, &st);
			off = st.head % RING;
			if (off >= RING / 4 && off < RING * 7 / 8)
				return st.head;
			model_walk();
		}
	}
	REQUIRE(0, "the middle of a lap was missed in %.0f s (head %llu)",
		st_now() - t0, (unsigned long long)st.head);
	return 0;
}

static void flight_laps(void)
{
	struct pt_trace_status st;
	unsigned long long head0, target;
	long long laps0, w0;
	double t0;
	int fd;

	fd = cx_open_flight(cpu, RING);
	cx_agent("vmx", cpu, "on");
	w0 = st_model("bytes_written");
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START in VMX operation: %s",
		strerror(errno));
	head0 = flight_mid_lap(fd);
	laps0 = st_stream_counter(cpu, "laps");
	CHECK(laps0 == (long long)(head0 / RING), "laps %lld at head %llu",
	      laps0, head0);
	cx_foreign_pmi_not_claimed(cpu, "flight, mid-lap");
	CHECK(st_stream_counter(cpu, "laps") == laps0,
	      "the guest's PMI counted as a lap (laps %lld -> %lld)", laps0,
	      st_stream_counter(cpu, "laps"));
	st_status(fd, &st);
	CHECK(st.head / RING == head0 / RING,
	      "the guest's PMI moved head by a lap (%llu -> %llu)", head0,
	      (unsigned long long)st.head);
	/* Its own laps still count, each PMI asked with the trace halted. */
	model_walk();
	target = (head0 / RING + 2) * RING + RING / 4;
	/* Under 2.5 MiB at 2 MB/s: about a second; up to 10 s. */
	for (t0 = st_now(); st_now() - t0 < 10; usleep(5000)) {
		st_status(fd, &st);
		if (st.head >= target)
			break;
	}
	CHECK(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	st_status(fd, &st);
	printf("PTT-INFO flight in VMX operation: head %llu, laps %lld, model wrote %lld\n",
	       (unsigned long long)st.head, st_stream_counter(cpu, "laps"),
	       st_model("bytes_written") - w0);
	CHECK(st.head >= target && (st.flags & PT_STATUS_WRAPPED),
	      "the laps of our own PMIs were not counted (head %llu, waited %.0f s for %llu)",
	      (unsigned long long)st.head, st_now() - t0, target);
	CHECK(st_stream_counter(cpu, "laps") == (long long)(st.head / RING),
	      "laps %lld for head %llu", st_stream_counter(cpu, "laps"),
	      (unsigned long long)st.head);
	CHECK((long long)st.head == st_model("bytes_written") - w0,
	      "head %llu, but the model wrote %lld bytes",
	      (unsigned long long)st.head, st_model("bytes_written") - w0);
	cx_agent("vmx", cpu, "off");
	close(fd);
}

static void stream_service(void)
{
	struct pt_trace_caps caps;
	int fd = st_setup(cpu, 4u * 1024 * 1024, 0, O_NONBLOCK, &caps);
	long long p0;
	ssize_t n, total = 0;
	char buf[65536];
	double t0;

	cx_agent("vmx", cpu, "on");
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START in VMX operation: %s",
		strerror(errno));
	usleep(20000);
	model_crawl();
	p0 = st_stream_counter(cpu, "pmis");
	cx_foreign_pmi_not_claimed(cpu, "stream, INT far away");
	CHECK(st_stream_counter(cpu, "pmis") == p0,
	      "the guest's PMI was taken as the stream's");
	model_walk();
	/* Its own PMIs (INT regions reached) are still its own: up to 10 s. */
	t0 = st_now();
	while (st_now() - t0 < 10 && st_stream_counter(cpu, "pmis") < p0 + 2) {
		usleep(10000);
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			total += n;
	}
	printf("PTT-INFO stream in VMX operation: %zd bytes, pmis %lld\n",
	       total, st_stream_counter(cpu, "pmis") - p0);
	CHECK(st_stream_counter(cpu, "pmis") >= p0 + 2,
	      "the stream's own PMIs were not taken (waited %.0f s for two)",
	      st_now() - t0);
	CHECK(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	cx_agent("vmx", cpu, "off");
	close(fd);
}

int main(void)
{
	const char *p = getenv("PTT_PROFILE");

	if (p && strcmp(p, "icl"))
		SKIP("VMX operation that allows tracing: icl only");
	cpu = cx_cpu();
	if (st_model("foreign_pmis") < 0)
		SKIP("the model has no foreign agent");
	/* The model's pace back to the usual, also when a REQUIRE ends it. */
	atexit(st_restore_model);
	flight_laps();
	stream_service();
	return ptt_done();
}
