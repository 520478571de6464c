// SPDX-License-Identifier: GPL-2.0
/*
 * PMI hygiene beside other owners of the ToPA PMI (silicon-review M1-M3),
 * with the model's perf-like agent (debugfs foreign: its own bit-55 PMIs
 * and a handler after ours that acknowledges GLOBAL_STATUS as perf's
 * does) and its late PMIs (debugfs late_pmi):
 *  1. a START refused because the agent traces (EBUSY, one log line
 *     naming perf), then the agent's PMI: ours must not claim it;
 *  2. a stream stalled in a gap (no reader), then the agent's PMI, well
 *     after our last halt: not claimed;
 *  3. a PMI raised inside the stop IPI, and one raised right after the
 *     final stop (streaming and the ToPA flight recorder): claimed, so
 *     the kernel never reports "NMI received for unknown reason", and
 *     LVTPC unmasked (the model's detail), so later PMIs still arrive;
 *  4. a final stop that owed no PMI (the hardware was short of any INT
 *     region, bit 55 clear at the halt), then at once (well within the
 *     20 ms an owed PMI is waited for) the agent's PMI, as a KVM
 *     guest's could come: not claimed.
 * "Claimed" for a foreign PMI shows as foreign_stolen (its handler found
 * bit 55 acknowledged by someone else) and a missing foreign_handled.
 */
#include "coexist_common.h"

#define BIG	(4u << 20)	/* streaming: the INT is 2 MiB away */
#define SMALL	(16u << 10)	/* fills in a few ms: a gap */

static int cpu;

static int open_mode(unsigned int mode, unsigned long long size)
{
	struct pt_trace_caps caps;

	if (mode == PT_MODE_STREAM)
		return st_setup(cpu, size, 0, O_NONBLOCK, &caps);
	return cx_open_flight(cpu, size);
}

/* 1. START fails (the agent traces), then its PMI. */
static void failed_start(unsigned int mode)
{
	int fd = open_mode(mode, mode == PT_MODE_STREAM ? BIG : 1u << 20);
	long mark = cx_log_mark();
	long long f0 = st_model("foreign_faults");

	cx_agent("foreign", cpu, "start");
	CHECK(st_model("foreign_faults") == f0,
	      "the agent's writes faulted on an idle CPU");
	errno = 0;
	CHECK(ioctl(fd, PT_TRACE_IOC_START) < 0 && errno == EBUSY,
	      "START while another owner traces: %s (want EBUSY)",
	      strerror(errno));
	CHECK(cx_log_has(mark, "perf"), "no log line naming perf");
	cx_foreign_pmi_not_claimed(cpu, mode == PT_MODE_STREAM ?
				"failed stream START" : "failed flight START");
	cx_agent("foreign", cpu, "stop");
	close(fd);
}

/* 2. A gap (no reader), then a foreign PMI long after our last halt. */
static void gap(void)
{
	int fd = open_mode(PT_MODE_STREAM, SMALL);
	struct pt_trace_status st;
	double t0;

	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	/* A few ms normally; up to 5 s on a slow or stolen vCPU. */
	for (t0 = st_now(); st_now() - t0 < 5; usleep(10000)) {
		st_status(fd, &st);
		if (st.flags & PT_STATUS_HW_STOPPED)
			break;
	}
	REQUIRE(st.flags & PT_STATUS_HW_STOPPED,
		"the stream never stalled in %.1f s", st_now() - t0);
	usleep(100000);		/* past the PMI owed after the halt */
	cx_foreign_pmi_not_claimed(cpu, "gap");
	CHECK(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	close(fd);
	st_restore_model();
}

/* 3. A PMI of ours inside the stop IPI or right after the final stop. */
static void late(unsigned int mode, const char *when)
{
	int fd = open_mode(mode, mode == PT_MODE_STREAM ? BIG : 1u << 20);
	long long l0 = st_stream_counter(cpu, "late_pmis");
	long long r0 = st_model("late_pmis_raised");
	long mark = cx_log_mark();
	int after = !strcmp(when, "after");
	double t0;

	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	usleep(20000);
	cx_agent("late_pmi", cpu, when);
	CHECK(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	/*
	 * Until the PMI was raised (from irq_work when "after") and, after
	 * the final stop, claimed: up to 2 s on a slow or stolen vCPU.
	 */
	for (t0 = st_now(); st_now() - t0 < 2; usleep(1000))
		if (st_model("late_pmis_raised") != r0 &&
		    (!after || st_stream_counter(cpu, "late_pmis") != l0))
			break;
	cx_settle();
	printf("PTT-INFO %s %s: raised %lld, claimed as owed %lld\n",
	       mode == PT_MODE_STREAM ? "stream" : "flight", when,
	       st_model("late_pmis_raised") - r0,
	       st_stream_counter(cpu, "late_pmis") - l0);
	CHECK(st_model("late_pmis_raised") == r0 + 1,
	      "the agent raised no PMI (waited %.1f s)", st_now() - t0);
	if (after)
		CHECK(st_stream_counter(cpu, "late_pmis") == l0 + 1,
		      "the PMI after the final stop went unclaimed (waited %.1f s)",
		      st_now() - t0);
	/* Claimed means acked and LVTPC unmasked, not only counted. */
	CHECK(cx_lvtpc_masked(cpu) == 0,
	      "LVTPC of CPU %d after a PMI owed (%s): %s", cpu, when,
	      cx_lvtpc_masked(cpu) < 0 ? "not in the model's detail" :
	      "left masked, no later PMI would reach it");
	CHECK(!cx_log_has(mark, "NMI received for unknown reason"),
	      "a PMI of ours was left to nobody");
	close(fd);
	st_restore_model();
}

/* 4. A final stop that owed nothing, then at once a foreign PMI. */
static void stop_then_foreign(unsigned int mode)
{
	int fd = open_mode(mode, mode == PT_MODE_STREAM ? BIG : 1u << 20);
	long long l0 = st_stream_counter(cpu, "late_pmis");

	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	usleep(20000);
	CHECK(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	cx_foreign_pmi_not_claimed(cpu, mode == PT_MODE_STREAM ?
				"foreign PMI right after the stream's stop" :
				"foreign PMI right after the flight stop");
	CHECK(st_stream_counter(cpu, "late_pmis") == l0,
	      "a foreign PMI counted as our late one");
	close(fd);
	st_restore_model();
}

int main(void)
{
	/* Line by line: a run killed at its timeout shows how far it got. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	cpu = cx_cpu();
	if (st_model("foreign_pmis") < 0)
		SKIP("the model has no foreign agent");
	failed_start(PT_MODE_STREAM);
	failed_start(PT_MODE_FLIGHT);
	gap();
	late(PT_MODE_STREAM, "stop");
	late(PT_MODE_STREAM, "after");
	late(PT_MODE_FLIGHT, "after");
	stop_then_foreign(PT_MODE_STREAM);
	stop_then_foreign(PT_MODE_FLIGHT);
	return ptt_done();
}
