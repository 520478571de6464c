// SPDX-License-Identifier: GPL-2.0
/*
 * TraceStop (SDM 36.2.4.3, Table 36-28) through the driver: ADDR0 with
 * ADDR0_CFG=2 over a function, in a section of its own, that the program
 * calls after some traced work.  Checks:
 *  - the hardware stopped: GET_STATUS reports PT_STATUS_HW_STOPPED and
 *    RTIT_STATUS.Stopped;
 *  - the trace decodes with zero errors and ends with the stop: the last
 *    TIP.PGD (with an IP, that IP inside the stop range) is followed only
 *    by the TraceStop packet: nothing was traced after it, although the
 *    program went on running traced code;
 *  - a TraceStop is not a loss: the model's lost_bytes does not grow;
 *  - no modelled #GP (gp_faults stays 0).
 * Skips on profiles without IP filtering.
 */
#include "model_common.h"

MC_SECTION_BOUNDS(ptt_stop);

static unsigned long sink;

static noinline void traced(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		sink += i;
		__asm__ __volatile__("" : : "r"(sink) : "memory");
	}
}

static noinline __used __section("ptt_stop") void stopper(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		sink ^= i;
		__asm__ __volatile__("" : : "r"(sink) : "memory");
	}
}

/* Spin in traced() for @secs: the loop itself stays outside the range. */
static void spin(double secs)
{
	double t0 = mc_now();

	while (mc_now() - t0 < secs)
		traced(20000);
}

static void workload(void *arg)
{
	double t0;

	(void)arg;
	spin(0.2);
	/* Long enough for several model ticks to land inside it. */
	t0 = mc_now();
	while (mc_now() - t0 < 0.2)
		stopper(20000);
	spin(0.2);
}

struct check {
	__u64 lo, hi;
	unsigned long packets, stops, pgd;
	unsigned long last_pgd;		/* index of the last TIP.PGD + 1 */
	unsigned long first_stop;	/* index of the first TraceStop + 1 */
	int last_pgd_has_ip;
	__u64 last_pgd_ip;
	enum pt_packet_type last_type;
};

static void on_packet(const struct pt_packet *p, __u64 ip, int has_ip,
		      void *ctx)
{
	struct check *c = ctx;

	c->packets++;
	if (p->type == ppt_pad)
		return;
	c->last_type = p->type;
	if (p->type == ppt_tip_pgd) {
		c->pgd++;
		c->last_pgd = c->packets;
		c->last_pgd_has_ip = has_ip;
		c->last_pgd_ip = ip;
	}
	if (p->type == ppt_stop) {
		c->stops++;
		if (!c->first_stop)
			c->first_stop = c->packets;
	}
}

int main(void)
{
	struct pt_trace_addr addr = { .size = sizeof(addr) };
	struct pt_trace_caps caps;
	struct ptt_packet_stats ps;
	struct check c = { 0 };
	struct mc_trace t;
	long long gp0, gp1, lost0, lost1;
	long errors;
	int fd;

	fd = mc_open(&caps);
	if (!(caps.flags & PT_CAP_IP_FILTER) || caps.num_addr_ranges < 1)
		SKIP("no IP filtering on this CPU");
	c.lo = (__u64)(unsigned long)__start_ptt_stop;
	c.hi = (__u64)(unsigned long)__stop_ptt_stop - 1;
	REQUIRE(c.hi > c.lo, "empty stop section");
	fprintf(stderr, "PTT-INFO stop range %#llx-%#llx\n",
		(unsigned long long)c.lo, (unsigned long long)c.hi);

	mc_set_ctl(fd, PT_CTL_BRANCHEN | PT_CTL_USER);
	addr.index = 0;
	addr.cfg = PT_ADDR_CFG_STOP;
	addr.start = c.lo;
	addr.end = c.hi;
	REQUIRE(ioctl(fd, PT_TRACE_IOC_SET_ADDR, &addr) == 0, "SET_ADDR: %s",
		strerror(errno));

	gp0 = mc_model("gp_faults");
	lost0 = mc_model("lost_bytes");
	mc_run(fd, workload, NULL, &t);
	gp1 = mc_model("gp_faults");
	lost1 = mc_model("lost_bytes");
	fprintf(stderr, "PTT-INFO %zu bytes, flags %#x, rtit_status %#llx, lost %lld\n",
		t.len, t.st.flags, (unsigned long long)t.st.rtit_status,
		lost1 - lost0);

	CHECK(gp0 >= 0 && gp1 == gp0, "modelled #GP: gp_faults %lld -> %lld",
	      gp0, gp1);
	CHECK(t.st.flags & PT_STATUS_HW_STOPPED, "not stopped: flags %#x",
	      t.st.flags);
	CHECK(t.st.rtit_status & MC_RTIT_STATUS_STOPPED,
	      "RTIT_STATUS.Stopped clear: %#llx",
	      (unsigned long long)t.st.rtit_status);
	CHECK(!(t.st.flags & PT_STATUS_HW_ERROR), "hw error: flags %#x",
	      t.st.flags);
	CHECK(lost1 == lost0, "a TraceStop counted %lld lost bytes",
	      lost1 - lost0);
	REQUIRE(t.len > 0, "no trace");
	REQUIRE(ptt_decode_packets(t.buf, t.len, &ps) == 0,
		"no PSB in %zu bytes", t.len);
	CHECK(ps.errors == 0, "%llu decode errors, first at %llu",
	      (unsigned long long)ps.errors,
	      (unsigned long long)ps.first_error_offset);
	errors = mc_walk(t.buf, t.len, on_packet, &c);
	CHECK(errors == 0, "walk: %ld errors", errors);
	fprintf(stderr,
		"PTT-INFO %lu packets, %lu TIP.PGD, %lu TraceStop; last TIP.PGD #%lu ip %#llx (%s), TraceStop #%lu\n",
		c.packets, c.pgd, c.stops, c.last_pgd,
		(unsigned long long)c.last_pgd_ip,
		c.last_pgd_has_ip ? "with IP" : "suppressed", c.first_stop);
	CHECK(c.stops == 1, "%lu TraceStop packets", c.stops);
	CHECK(c.last_type == ppt_stop, "the trace does not end with TraceStop");
	CHECK(c.pgd > 0, "no TIP.PGD");
	/* TIP.PGD, then TraceStop, then nothing (PADs aside). */
	CHECK(c.first_stop > c.last_pgd, "TIP.PGD after the TraceStop");
	/*
	 * The TIP.PGD of the stop names the IP that entered the region
	 * and comes right before the TraceStop.  (Had PacketEn been 0
	 * then, say after a tick in the kernel, which OS=0 does not trace,
	 * the last TIP.PGD is that earlier, suppressed one.)
	 */
	if (c.last_pgd_has_ip) {
		CHECK(c.last_pgd_ip >= c.lo && c.last_pgd_ip <= c.hi,
		      "last TIP.PGD at %#llx, outside the stop range",
		      (unsigned long long)c.last_pgd_ip);
		CHECK(c.first_stop == c.last_pgd + 1,
		      "packets between TIP.PGD #%lu and TraceStop #%lu",
		      c.last_pgd, c.first_stop);
	}
	free(t.buf);
	close(fd);
	return ptt_done();
}
