// SPDX-License-Identifier: GPL-2.0
/*
 * bts_pebs (issues 15, 10): perf's PEBS starting on a CPU after BTS
 * took IA32_DS_AREA there.  The model's pebs_agent plays perf
 * (model/pebs.c): "reserve" points IA32_DS_AREA at its own DS area (as
 * perf's first event does on every CPU), "on" sets IA32_PEBS_ENABLE (a
 * PEBS event's sched-in; the model then stores a record per tick through
 * whatever area the MSR names), "arm" sets it with no record yet (its
 * counter has not overflowed), "off" clears it.  Its records count only
 * when they reach its own area (perf drains cpuc->ds, never the MSR's).
 *  - flight, PEBS on after START: the first record lands in BTS's
 *    scratch PEBS buffer and its threshold PMI makes BTS yield: within
 *    0.5 s, with no status asked, IA32_DS_AREA is the agent's again and
 *    its records reach it; then GET_STATUS says PT_STATUS_TAKEN_OVER,
 *    STOP keeps the branch records taken before, the log says what
 *    happened, and START is refused (EBUSY) while PEBS samples, works
 *    once it is off.
 *  - flight, PEBS armed (no record): the sched_switch probe finds
 *    IA32_PEBS_ENABLE set and BTS yields, with no status asked and no
 *    PMI (flight BTS has none) while this process switches on CPU 0.
 *  - stream: PEBS on after START: read(2) returns the records, then
 *    EIO; poll says EPOLLERR; the last loss record is
 *    PT_LOSS_TAKEN_OVER; the agent's records resume.
 *  - stream, a threshold PMI whose NMI comes after the yield (the
 *    model's bts_late_pmi, with model_bts_tail: the disabling write of
 *    the switch probe's yield fills the buffer to the threshold, the
 *    NMI comes from irq_work after the probe): the yield drained the
 *    buffer and disarmed, so the NMI finds nothing; it must still be
 *    claimed (debugfs bts late_pmis) and LVTPC re-armed, or the VM
 *    reports an NMI for unknown reason and later PMIs stay masked.
 * Before the scratch buffer (an all-zero PEBS part) the model stores no
 * PEBS record while BTS owns the area and nothing notices: the agent
 * gets nothing until STOP.  Kernel branches only (runs under PTI); icl.
 * Exit 0 pass, 77 skip, 1 fail.
 */
#include <sched.h>

#include "bts_pebs_agent.h"

static void flight_on(int fd)
{
	struct pt_trace_status st;
	unsigned long long dbg = 0, ds = 0;
	int logs = ptt_dmesg_count("began sampling here while BTS traced");
	long long r, r2, p0, scratch;

	REQUIRE(!agent_bts_start(fd, PT_MODE_FLIGHT), "START: %s", strerror(errno));
	CHECK(!agent_state(&r), "after START DS_AREA is still the agent's");
	p0 = bts_model("pebs_records") - r;
	agent("on");
	CHECK(agent_back(0.5),
	      "flight: BTS kept IA32_DS_AREA 0.5 s after PEBS began (its records were lost)");
	/*
	 * The scratch buffer's PMI made BTS yield at PEBS's first record:
	 * every other record reached the agent (a later check point, the
	 * switch probe, would leave one per tick in the scratch buffer).
	 */
	do {
		agent_state(&r);
		scratch = bts_model("pebs_records") - p0;
		agent_state(&r2);
	} while (r != r2);
	CHECK(scratch - r == 1,
	      "flight: %lld PEBS records went to BTS's scratch buffer, want 1 (the PMI's)",
	      scratch - r);
	CHECK(!bts_model_regs(0, &dbg, &ds) && !(dbg & 0xc0),
	      "flight: DEBUGCTL %#llx still has TR/BTS", dbg);
	bts_status(fd, &st);
	CHECK(st.flags & PT_STATUS_TAKEN_OVER, "flight: status flags %#x lack TAKEN_OVER",
	      st.flags);
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	bts_status(fd, &st);
	CHECK(st.flags & PT_STATUS_TAKEN_OVER, "flight STOP: flags %#x lack TAKEN_OVER",
	      st.flags);
	CHECK(st.head >= BTS_REC, "flight STOP: %llu bytes of records",
	      (unsigned long long)st.head);
	CHECK(ptt_dmesg_count("began sampling here while BTS traced") > logs,
	      "no log line saying PEBS took the DS area");
	/* PEBS still samples: START refused, as before this session. */
	CHECK(agent_bts_start(fd, PT_MODE_FLIGHT) && errno == EBUSY,
	      "START while PEBS samples: %s (want EBUSY)", strerror(errno));
	agent("off");
	CHECK(!agent_bts_start(fd, PT_MODE_FLIGHT), "START after PEBS ended: %s",
	      strerror(errno));
	bts_busy(0.05);
	bts_status(fd, &st);
	CHECK(!(st.flags & PT_STATUS_TAKEN_OVER), "a clean session says TAKEN_OVER (%#x)",
	      st.flags);
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	CHECK(agent_state(&r), "STOP did not give the agent its DS_AREA back");
}

static void flight_armed(int fd)
{
	struct pt_trace_status st;
	long long r;
	double t0;
	int mine = 0;

	REQUIRE(!agent_bts_start(fd, PT_MODE_FLIGHT), "START: %s", strerror(errno));
	agent("arm");
	/* No status, no PMI: only the switch probe can see it. */
	for (t0 = now_s(); now_s() - t0 < 0.5 && !mine; ) {
		usleep(500);
		mine = agent_state(&r);
	}
	CHECK(mine, "flight, PEBS armed: BTS kept IA32_DS_AREA 0.5 s over context switches");
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	bts_status(fd, &st);
	CHECK(st.flags & PT_STATUS_TAKEN_OVER, "flight armed STOP: flags %#x",
	      st.flags);
	agent("off");
}

static void stream_on(int fd)
{
	REQUIRE(!agent_bts_start(fd, PT_MODE_STREAM), "stream START: %s", strerror(errno));
	bts_busy(0.05);
	agent("on");
	CHECK(agent_back(0.5), "stream: the agent's records did not resume");
	agent_stream_taken(fd, "stream");
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_STOP), "stream STOP: %s", strerror(errno));
	agent("off");
}

static void stream_late(int fd)
{
	long long late0, lp0, mask0;
	struct pt_trace_status st;
	double t0;

	REQUIRE(!ptt_write_str(BTS_TAIL_PARAM, "1"), "no model_bts_tail");
	atexit(bts_tail_off);
	REQUIRE(!agent_bts_start(fd, PT_MODE_STREAM), "late START: %s", strerror(errno));
	late0 = bts_model("bts_late");
	mask0 = bts_model("pmis_masked");
	lp0 = bts_late_pmis();
	REQUIRE(!ptt_write_str(BTS_MODEL_DIR "bts_late_pmi", "0"),
		"no bts_late_pmi in the model");
	agent("arm");
	/* Switches on cpu0 until the probe yielded. */
	for (t0 = now_s(); now_s() - t0 < 1; ) {
		usleep(1000);
		bts_status(fd, &st);
		if (st.flags & PT_STATUS_TAKEN_OVER)
			break;
	}
	usleep(20000);
	CHECK(st.flags & PT_STATUS_TAKEN_OVER, "late: no yield in 1 s (flags %#x)",
	      st.flags);
	CHECK(bts_model("bts_late") > late0,
	      "late: bts_late_pmi never fired at the yield's disabling write");
	CHECK(bts_late_pmis() > lp0, "late: the threshold PMI after the yield was not claimed");
	CHECK(bts_model("pmis_masked") == mask0, "late: %lld PMIs found LVTPC masked",
	      bts_model("pmis_masked") - mask0);
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_STOP), "late STOP: %s", strerror(errno));
	agent("off");
	bts_tail_off();
}

int main(void)
{
	int fd;

	bts_require();
	if (access(AGENT, W_OK))
		SKIP("no pebs_agent in the model");
	REQUIRE(!ptt_pin_cpu(0), "pin cpu0");
	fd = bts_open(0, O_RDWR);
	agent("reserve");
	flight_on(fd);
	flight_armed(fd);
	close(fd);
	fd = bts_open(0, O_RDWR);
	stream_on(fd);
	close(fd);
	fd = bts_open(0, O_RDWR);
	stream_late(fd);
	close(fd);
	agent("release");
	return ptt_done();
}
