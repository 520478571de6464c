// SPDX-License-Identifier: GPL-2.0
/*
 * bts_kvm (issue 10; review finding F3): perf's PEBS begins on a CPU
 * where BTS traces, and its first PMI arrives while a KVM guest runs
 * there.  KVM handles that NMI inside its IRQs-off window: VM exit has
 * cleared IA32_DEBUGCTL, and after the NMI KVM writes back the host
 * DEBUGCTL it read before VM entry, BTS's bits with it (the model's
 * kvm_agent, model/kvm.c).  A yield done wholly in the NMI gives
 * IA32_DS_AREA back to perf, then KVM turns BTS on again: the CPU
 * stores branch records through perf's area (whose BTS part is empty:
 * the model counts bts_ds_errors, silicon would store to address 0),
 * and nothing of ours turns it off again, not even STOP.  Required, in
 * flight and in stream mode:
 *  - within 0.5 s the agent's records resume (IA32_DS_AREA its own);
 *  - for 0.2 s after that, DEBUGCTL has neither TR nor BTS and no BTS
 *    store went through an area that is not BTS's;
 *  - the window did write our bits back (kvm_agent's bts_restored
 *    grew: else the test proves nothing);
 *  - the trace says it was taken over; flight: START works again once
 *    PEBS is off (DEBUGCTL free); stream: read(2) gives the records,
 *    then EIO, the last loss record PT_LOSS_TAKEN_OVER at their end;
 *  - stream with PEBS enabled but no record, BTS's threshold PMIs in
 *    the window (model_bts_tail): the same, whichever sees PEBS first.
 * Kernel branches only; skipped under PTI (BTS is refused there).
 * Exit 0 pass, 77 skip, 1 fail.
 */
#include "bts_pebs_agent.h"

#define KVM BTS_MODEL_DIR "kvm_agent"

static void kvm(const char *what)
{
	char cmd[32];

	snprintf(cmd, sizeof(cmd), "0 %s", what);
	REQUIRE(!ptt_write_str(KVM, cmd), "kvm_agent '%s': %s", cmd,
		strerror(errno));
}

static void kvm_off(void)
{
	ptt_write_str(KVM, "0 off");
}

/* cpu0's write-backs of DEBUGCTL with TR/BTS in KVM's window. */
static long long kvm_restored(void)
{
	char buf[256] = "", *p;

	REQUIRE(!ptt_read_str(KVM, buf, sizeof(buf)), "read kvm_agent");
	p = strstr(buf, "cpu0 window ");
	p = p ? strstr(p, "bts_restored ") : NULL;
	REQUIRE(p, "kvm_agent: no cpu0 line in '%s'", buf);
	return atoll(p + strlen("bts_restored "));
}

/* DEBUGCTL free of TR/BTS for 0.2 s, and no store outside BTS's area. */
static void check_free(const char *what, long long err0)
{
	unsigned long long dbg = 0, ds = 0;
	double t0 = now_s();
	int ok = 1;

	while (ok && now_s() - t0 < 0.2) {
		bts_busy(0.01);
		ok = !bts_model_regs(0, &dbg, &ds) && !(dbg & 0xc0);
	}
	CHECK(ok, "%s: DEBUGCTL %#llx has TR/BTS after the yield (KVM's write-back)",
	      what, dbg);
	CHECK(bts_model("bts_ds_errors") == err0,
	      "%s: %lld branch records stored through a DS area that is not BTS's",
	      what, bts_model("bts_ds_errors") - err0);
}

static void kvm_flight(int fd)
{
	long long err0 = bts_model("bts_ds_errors"), rest0 = kvm_restored();
	struct pt_trace_status st;
	long long r;

	REQUIRE(!agent_bts_start(fd, PT_MODE_FLIGHT), "START: %s",
		strerror(errno));
	CHECK(!agent_state(&r), "after START DS_AREA is still the agent's");
	kvm("on");
	agent("on");
	CHECK(agent_back(0.5),
	      "flight: BTS kept IA32_DS_AREA 0.5 s after PEBS began");
	check_free("flight", err0);
	CHECK(kvm_restored() > rest0,
	      "flight: no PMI came inside KVM's window with BTS on");
	kvm("off");
	bts_status(fd, &st);
	CHECK(st.flags & PT_STATUS_TAKEN_OVER,
	      "flight: status flags %#x lack TAKEN_OVER", st.flags);
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	check_free("flight STOP", err0);
	agent("off");
	CHECK(!agent_bts_start(fd, PT_MODE_FLIGHT),
	      "START after PEBS ended: %s", strerror(errno));
	bts_busy(0.05);
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	CHECK(agent_state(&r), "STOP did not give the agent its DS_AREA back");
}

static void kvm_stream(int fd)
{
	long long err0 = bts_model("bts_ds_errors"), rest0 = kvm_restored();

	REQUIRE(!agent_bts_start(fd, PT_MODE_STREAM), "stream START: %s",
		strerror(errno));
	bts_busy(0.05);
	kvm("on");
	agent("on");
	CHECK(agent_back(0.5), "stream: the agent's records did not resume");
	check_free("stream", err0);
	CHECK(kvm_restored() > rest0,
	      "stream: no PMI came inside KVM's window with BTS on");
	kvm("off");
	agent_stream_taken(fd, "stream");
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_STOP), "stream STOP: %s",
		strerror(errno));
	check_free("stream STOP", err0);
	agent("off");
}

/*
 * Stream, PEBS enabled with no record yet, BTS's threshold PMIs raised
 * by the tick (model_bts_tail) and so inside the window: the streaming
 * PMI's bracket finds IA32_PEBS_ENABLE set, or the switch probe does
 * first; either way BTS must end off.
 */
static void kvm_stream_armed(int fd)
{
	long long err0 = bts_model("bts_ds_errors");
	struct pt_trace_status st = { 0 };
	double t0;

	REQUIRE(!ptt_write_str(BTS_TAIL_PARAM, "1"), "no model_bts_tail");
	atexit(bts_tail_off);
	REQUIRE(!agent_bts_start(fd, PT_MODE_STREAM), "armed START: %s",
		strerror(errno));
	kvm("on");
	agent("arm");
	for (t0 = now_s(); now_s() - t0 < 1; ) {
		bts_busy(0.01);
		bts_status(fd, &st);
		if (st.flags & PT_STATUS_TAKEN_OVER)
			break;
	}
	CHECK(st.flags & PT_STATUS_TAKEN_OVER,
	      "armed: no yield in 1 s (flags %#x)", st.flags);
	check_free("stream armed", err0);
	kvm("off");
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_STOP), "armed STOP: %s",
		strerror(errno));
	check_free("stream armed STOP", err0);
	agent("off");
	bts_tail_off();
}

int main(void)
{
	int fd;

	bts_require();
	if (access(AGENT, W_OK) || access(KVM, W_OK))
		SKIP("no pebs_agent or kvm_agent in the model");
	REQUIRE(!ptt_pin_cpu(0), "pin cpu0");
	atexit(kvm_off);
	agent("reserve");
	fd = bts_open(0, O_RDWR);
	kvm_flight(fd);
	close(fd);
	fd = bts_open(0, O_RDWR);
	kvm_stream(fd);
	close(fd);
	fd = bts_open(0, O_RDWR);
	kvm_stream_armed(fd);
	close(fd);
	agent("release");
	return ptt_done();
}
