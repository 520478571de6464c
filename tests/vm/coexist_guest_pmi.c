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
 *     laps must still count;
 *  2. a stream whose INT region is 2 MiB away; its own PMIs must still
 *     come (data flows through a reader).
 * The model's foreign agent raises the guest's PMI; its handler, after
 * ours, counts foreign_handled when it finds the bit, foreign_stolen
 * when the driver acknowledged it first.  icl only (VMX operation that
 * allows tracing; bdw refuses START there, min has no VMX).
 */
#include "coexist_common.h"

#define RING	(1024u * 1024)

static int cpu;

static void flight_laps(void)
{
	struct pt_trace_status st;
	long long laps0;
	int fd, i;

	fd = cx_open_flight(cpu, RING);
	cx_agent("vmx", cpu, "on");
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START in VMX operation: %s",
		strerror(errno));
	/* The model writes ~2 MB/s: the middle of the first lap. */
	for (i = 0; i < 200; i++) {
		st_status(fd, &st);
		if (st.head >= RING / 2)
			break;
		usleep(5000);
	}
	REQUIRE(st.head >= RING / 2 && st.head < RING * 3 / 4 &&
		!(st.flags & PT_STATUS_WRAPPED),
		"the first lap's middle was missed (head %llu)",
		(unsigned long long)st.head);
	laps0 = st_stream_counter(cpu, "laps");
	cx_foreign_pmi_not_claimed(cpu, "flight, mid-lap");
	CHECK(st_stream_counter(cpu, "laps") == laps0,
	      "the guest's PMI counted as a lap (laps %lld -> %lld)", laps0,
	      st_stream_counter(cpu, "laps"));
	/* Its own laps still count, each PMI asked with the trace halted. */
	for (i = 0; i < 400; i++) {
		st_status(fd, &st);
		if (st.head >= 2 * RING + RING / 2)
			break;
		usleep(5000);
	}
	CHECK(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	st_status(fd, &st);
	printf("PTT-INFO flight in VMX operation: head %llu, laps %lld\n",
	       (unsigned long long)st.head, st_stream_counter(cpu, "laps"));
	CHECK(st.head >= 2 * RING && (st.flags & PT_STATUS_WRAPPED),
	      "the laps of our own PMIs were not counted (head %llu)",
	      (unsigned long long)st.head);
	CHECK(st_stream_counter(cpu, "laps") == (long long)(st.head / RING),
	      "laps %lld for head %llu", st_stream_counter(cpu, "laps"),
	      (unsigned long long)st.head);
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
	int i;

	cx_agent("vmx", cpu, "on");
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START in VMX operation: %s",
		strerror(errno));
	usleep(20000);
	p0 = st_stream_counter(cpu, "pmis");
	cx_foreign_pmi_not_claimed(cpu, "stream, INT far away");
	CHECK(st_stream_counter(cpu, "pmis") == p0,
	      "the guest's PMI was taken as the stream's");
	/* Its own PMIs (INT regions reached) are still its own. */
	for (i = 0; i < 300 && st_stream_counter(cpu, "pmis") < p0 + 2; i++) {
		usleep(10000);
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			total += n;
	}
	printf("PTT-INFO stream in VMX operation: %zd bytes, pmis %lld\n",
	       total, st_stream_counter(cpu, "pmis") - p0);
	CHECK(st_stream_counter(cpu, "pmis") >= p0 + 2,
	      "the stream's own PMIs were not taken");
	CHECK(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	cx_agent("vmx", cpu, "off");
	close(fd);
	st_restore_model();
}

int main(void)
{
	const char *p = getenv("PTT_PROFILE");

	if (p && strcmp(p, "icl"))
		SKIP("VMX operation that allows tracing: icl only");
	cpu = cx_cpu();
	if (st_model("foreign_pmis") < 0)
		SKIP("the model has no foreign agent");
	flight_laps();
	stream_service();
	return ptt_done();
}
