// SPDX-License-Identifier: GPL-2.0
/*
 * Address-range filtering (SDM 36.2.4.2) through the driver: ADDR0 in
 * FILTER mode (ADDR0_CFG=1) over one function of this program, placed in
 * a section of its own so the range is exact.  The workload spins in
 * that function and, in turn, in code outside it.  Checks:
 *  - the trace decodes with libipt with zero errors;
 *  - every IP the trace reports while FilterEn=1 (TIP, TIP.PGE, FUP) lies
 *    inside the range (only TIP.PGD may name an IP outside it);
 *  - tracing switched on and off: TIP.PGE and TIP.PGD both occur, and IPs
 *    inside the range were reported;
 *  - no modelled #GP (gp_faults stays 0).
 * Skips on profiles without IP filtering.
 */
#include "model_common.h"

MC_SECTION_BOUNDS(ptt_filter);

static unsigned long sink;

static noinline __used __section("ptt_filter") void inside(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		sink += i;
		__asm__ __volatile__("" : : "r"(sink) : "memory");
	}
}

static noinline void outside(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		sink ^= i;
		__asm__ __volatile__("" : : "r"(sink) : "memory");
	}
}

struct work {
	unsigned long n;	/* iterations of about 10 ms */
	unsigned int rounds;
};

static void workload(void *arg)
{
	struct work *w = arg;
	double t0 = mc_now();

	/* About 20 switches in and out, longer on a slow machine. */
	for (w->rounds = 0; w->rounds < 20 || mc_now() - t0 < 0.4;
	     w->rounds++) {
		inside(w->n);
		outside(w->n);
		if (mc_now() - t0 > 3.0)
			break;
	}
}

/* Iterations of inside() that take about 10 ms here. */
static unsigned long calibrate(void)
{
	unsigned long n = 1000;
	double t;

	for (;;) {
		t = mc_now();
		inside(n);
		t = mc_now() - t;
		if (t > 0.002 || n > (1UL << 34))
			break;
		n *= 4;
	}
	return (unsigned long)(n * (0.010 / (t > 0 ? t : 0.000001))) + 1;
}

struct check {
	__u64 lo, hi;
	unsigned long ips, in, out, pge, pgd, pgd_ip;
	__u64 first_out;
};

static void on_packet(const struct pt_packet *p, __u64 ip, int has_ip,
		      void *ctx)
{
	struct check *c = ctx;

	if (p->type == ppt_tip_pge)
		c->pge++;
	if (p->type == ppt_tip_pgd) {
		c->pgd++;
		c->pgd_ip += has_ip;
		return;		/* may name the IP that left the range */
	}
	if (!has_ip)
		return;
	c->ips++;
	if (ip >= c->lo && ip <= c->hi) {
		c->in++;
	} else {
		if (!c->out)
			c->first_out = ip;
		c->out++;
	}
}

int main(void)
{
	struct pt_trace_addr addr = { .size = sizeof(addr) };
	struct pt_trace_caps caps;
	struct ptt_packet_stats ps;
	struct check c = { 0 };
	struct work w = { 0 };
	struct mc_trace t;
	long long gp0, gp1;
	long errors;
	int fd;

	fd = mc_open(&caps);
	if (!(caps.flags & PT_CAP_IP_FILTER) || caps.num_addr_ranges < 1)
		SKIP("no IP filtering on this CPU");
	c.lo = (__u64)(unsigned long)__start_ptt_filter;
	c.hi = (__u64)(unsigned long)__stop_ptt_filter - 1;
	REQUIRE(c.hi > c.lo, "empty filter section");
	fprintf(stderr, "PTT-INFO filter range %#llx-%#llx (inside() at %p)\n",
		(unsigned long long)c.lo, (unsigned long long)c.hi,
		(void *)inside);

	mc_set_ctl(fd, PT_CTL_BRANCHEN | PT_CTL_USER);
	addr.index = 0;
	addr.cfg = PT_ADDR_CFG_FILTER;
	addr.start = c.lo;
	addr.end = c.hi;
	REQUIRE(ioctl(fd, PT_TRACE_IOC_SET_ADDR, &addr) == 0, "SET_ADDR: %s",
		strerror(errno));

	w.n = calibrate();
	gp0 = mc_model("gp_faults");
	mc_run(fd, workload, &w, &t);
	gp1 = mc_model("gp_faults");
	fprintf(stderr,
		"PTT-INFO %u rounds of %lu iterations, %zu bytes, status %#llx\n",
		w.rounds, w.n, t.len, (unsigned long long)t.st.rtit_status);

	CHECK(gp0 >= 0 && gp1 == gp0, "modelled #GP: gp_faults %lld -> %lld",
	      gp0, gp1);
	CHECK(!(t.st.flags & (PT_STATUS_HW_ERROR | PT_STATUS_HW_STOPPED)),
	      "hw flags %#x", t.st.flags);
	REQUIRE(t.len > 0, "no trace");
	REQUIRE(ptt_decode_packets(t.buf, t.len, &ps) == 0, "no PSB in %zu bytes",
		t.len);
	CHECK(ps.errors == 0, "%llu decode errors, first at %llu",
	      (unsigned long long)ps.errors,
	      (unsigned long long)ps.first_error_offset);
	errors = mc_walk(t.buf, t.len, on_packet, &c);
	CHECK(errors == 0, "walk: %ld errors", errors);
	fprintf(stderr,
		"PTT-INFO %lu IPs: %lu inside, %lu outside; %lu TIP.PGE, %lu TIP.PGD (%lu with IP)\n",
		c.ips, c.in, c.out, c.pge, c.pgd, c.pgd_ip);
	CHECK(c.in > 0, "no IP inside the filter range");
	CHECK(c.out == 0, "%lu IPs outside the range while FilterEn, first %#llx",
	      c.out, (unsigned long long)c.first_out);
	CHECK(c.pge > 0, "no TIP.PGE: the range was never entered");
	CHECK(c.pgd > 0, "no TIP.PGD: the range was never left");
	free(t.buf);
	close(fd);
	return ptt_done();
}
