// SPDX-License-Identifier: GPL-2.0
/*
 * A trace in its error state must not claim a foreign PMI (issue 10,
 * silicon-review M2: "the same claim happens while a stream sits in a
 * gap or in error").  The trace is still armed for PMIs (START went
 * well), but its hardware is off for good: a bit-55 NMI then is perf's
 * or a KVM guest's, never ours, unless it is the one PMI owed after our
 * last halt (bit 55 set at that halt; none is here).  The model's
 * hw_error hook puts a running trace in error (RTIT_STATUS.Error, as a
 * ToPA error does), its foreign agent raises the other owner's PMI:
 *  1. streaming (4 MiB, INT far away): the watchdog finds the Error and
 *     ends the trace (GET_STATUS says HW_ERROR, read(2) EIO), then the
 *     foreign PMI: not claimed (foreign_stolen unchanged);
 *  2. the flight recorder with lap PMIs armed (1 MiB ToPA): a live
 *     status finds the Error (HW_ERROR, and not taken over: the trace
 *     was stopped by the driver's own pause, not by someone else), then
 *     the foreign PMI: not claimed; STOP still says HW_ERROR only;
 *  3. a stream taken over by a perf-like owner (its sched-out and
 *     sched-in on its own table), which then stops (TraceEn 0, its own
 *     RTIT_CTL) and raises its PMI: not claimed.
 * The gap case (a stalled stream) is coexist_pmi's.  icl only: the
 * paths do not depend on the profile.
 */
#include "coexist_common.h"

#define BIG	(4u << 20)	/* streaming: the INT is 2 MiB away */
#define LAP	(1024u << 10)	/* flight: the lap-PMI floor (1 MiB) */

static int cpu;

static void stream_error(void)
{
	struct pt_trace_caps caps;
	struct pt_trace_status st;
	int fd = st_setup(cpu, BIG, 0, O_NONBLOCK, &caps);
	char buf[4096];
	ssize_t n;
	double t0;

	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	usleep(20000);
	cx_agent("hw_error", cpu, "now");
	/* The watchdog sees it at its second tick: 100 to 150 ms. */
	t0 = st_now();
	do {
		usleep(20000);
		st_status(fd, &st);
	} while (!(st.flags & PT_STATUS_HW_ERROR) && st_now() - t0 < 1.5);
	printf("PTT-INFO stream: error seen after %.3f s, status %#x\n",
	       st_now() - t0, st.flags);
	REQUIRE(st.flags & PT_STATUS_HW_ERROR,
		"the stream's Error was not noticed (status %#x)", st.flags);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	CHECK(n < 0 && errno == EIO, "read in error: %zd %s", n,
	      strerror(errno));
	cx_foreign_pmi_not_claimed(cpu, "stream in error");
	CHECK(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	st_status(fd, &st);
	CHECK((st.flags & (PT_STATUS_HW_ERROR | PT_STATUS_TAKEN_OVER)) ==
	      PT_STATUS_HW_ERROR, "stopped stream in error: status %#x",
	      st.flags);
	close(fd);
}

static void flight_error(void)
{
	struct pt_trace_status st;
	int fd = cx_open_flight(cpu, LAP);

	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	usleep(20000);
	cx_agent("hw_error", cpu, "now");
	st_status(fd, &st);
	printf("PTT-INFO flight: status after the error %#x\n", st.flags);
	CHECK(st.flags & PT_STATUS_HW_ERROR, "live status: no HW_ERROR");
	/* A second look finds TraceEn clear by our own pause. */
	st_status(fd, &st);
	CHECK((st.flags & (PT_STATUS_HW_ERROR | PT_STATUS_TAKEN_OVER)) ==
	      PT_STATUS_HW_ERROR, "second live status in error: %#x",
	      st.flags);
	cx_foreign_pmi_not_claimed(cpu, "flight in error");
	CHECK(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	st_status(fd, &st);
	CHECK((st.flags & (PT_STATUS_HW_ERROR | PT_STATUS_TAKEN_OVER)) ==
	      PT_STATUS_HW_ERROR, "stopped flight in error: status %#x",
	      st.flags);
	close(fd);
}

static void taken_then_pmi(void)
{
	struct pt_trace_caps caps;
	struct pt_trace_status st;
	int fd = st_setup(cpu, BIG, 0, O_NONBLOCK, &caps);
	double t0;

	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	usleep(20000);
	cx_agent("foreign", cpu, "switch");
	/* The watchdog notices at its next tick (50 ms). */
	t0 = st_now();
	do {
		usleep(20000);
		st_status(fd, &st);
	} while (!(st.flags & PT_STATUS_TAKEN_OVER) && st_now() - t0 < 1.5);
	REQUIRE(st.flags & PT_STATUS_TAKEN_OVER,
		"the takeover was not noticed (status %#x)", st.flags);
	/* Its sched-out: TraceEn 0, nobody traces, we are still armed. */
	cx_agent("foreign", cpu, "stop");
	cx_foreign_pmi_not_claimed(cpu, "stream taken over, then the owner's PMI");
	CHECK(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	close(fd);
}

int main(void)
{
	const char *p = getenv("PTT_PROFILE");
	long long gp0;

	if (p && strcmp(p, "icl"))
		SKIP("the paths do not depend on the profile: icl only");
	cpu = cx_cpu();
	if (st_model("foreign_pmis") < 0)
		SKIP("the model has no foreign agent");
	gp0 = st_model("gp_faults");
	stream_error();
	flight_error();
	taken_then_pmi();
	CHECK(st_model("gp_faults") == gp0, "the driver faulted");
	return ptt_done();
}
