// SPDX-License-Identifier: GPL-2.0
/*
 * The sampled generator's enables (Table 36-50 case 2d): a WRMSR that sets
 * TraceEn with PacketByteCnt > 0 sends TSC (TMA, CBR), and a PSB+ that is
 * due by then follows those packets; it never replaces them.  A decoder
 * knows an enable by its timing packets outside PSB+ (the tools'
 * decode_follow_enable() takes the CBR outside PSB+).
 *
 * CPU 0 is traced in flight mode with TSCEn and a PSB+ every 2 KiB, and
 * the test asks for a status after each tick: each GET_STATUS pauses the
 * trace (TraceEn 0, TIP.PGD) and resumes it with the PacketByteCnt it
 * read.  A tick sometimes ends with a PSB+ due (about one in a hundred
 * with PTWRITE's long steps), which the next enable then owes.  Between
 * a TIP.PGD and the next TIP.PGE, the first of TSC and PSB must be TSC,
 * and some of those enables must have had their PSB+ (else nothing was
 * tested: about 1 in 100, 6 to 9 in a run on 6.12 before the fix).
 * icl only (the enable with PacketByteCnt needs configurable PSB; bdw and
 * min send a full PSB+ at every enable).  Exit 0 pass, 77 skip, 1 fail.
 */
#include <stdlib.h>

#include "model_common.h"

#define CYCLES		3000
#define RUN_SECS	4.0
/*
 * A PSB+ is due at about 1 enable in 100: where a pause is slow (the
 * debug kernel: ~130 in 4 s), run on to MIN_CYCLES, for at most
 * MAX_SECS; fewer than MIN_CYCLES with no PSB+ due is a skip (nothing
 * tested by chance), not a failure.
 */
#define MIN_CYCLES	400
#define MAX_SECS	12.0

static char old_bytes[32], old_period[32];

struct cycles {
	int fd;
	unsigned long n;
};

/*
 * Pause and resume the trace, each time after a tick has run with the
 * trace on: the model's tick counter moves in the tick, which interrupts
 * this task on CPU 0 (CPU 1 is not traced: its tick is stopped).
 */
static void workload(void *arg)
{
	struct cycles *cy = arg;
	double t0 = mc_now(), t1;
	struct pt_trace_status st;
	long long ticks;

	while (cy->n < CYCLES &&
	       (mc_now() - t0 < RUN_SECS ||
		(cy->n < MIN_CYCLES && mc_now() - t0 < MAX_SECS))) {
		ticks = mc_model("ticks");
		t1 = mc_now();
		while (mc_model("ticks") == ticks && mc_now() - t1 < 0.01)
			;
		memset(&st, 0, sizeof(st));
		st.size = sizeof(st);
		REQUIRE(ioctl(cy->fd, PT_TRACE_IOC_GET_STATUS, &st) == 0,
			"GET_STATUS: %s", strerror(errno));
		cy->n++;
	}
}

struct check {
	int in_gap;		/* after a TIP.PGD, before the TIP.PGE */
	int seen_tsc;		/* this gap: a TSC outside PSB+ */
	int seen_psb;		/* this gap: a PSB */
	unsigned long gaps, psb_first, timed_psb, untimed;
	int in_psb;
	unsigned long pgd, pge, psb, tsc_out;
};

static void on_packet(const struct pt_packet *p, __u64 ip, int has_ip,
		      void *ctx)
{
	struct check *c = ctx;

	(void)ip;
	(void)has_ip;
	switch (p->type) {
	case ppt_psb:
		c->psb++;
		c->in_psb = 1;
		if (c->in_gap && !c->seen_psb) {
			if (c->seen_tsc)
				c->timed_psb++;
			else
				c->psb_first++;
		}
		c->seen_psb = 1;
		break;
	case ppt_psbend:
		c->in_psb = 0;
		break;
	case ppt_tsc:
		if (!c->in_psb) {
			c->seen_tsc = 1;
			c->tsc_out++;
		}
		break;
	case ppt_tip_pgd:
		c->pgd++;
		c->in_gap = 1;
		c->seen_tsc = 0;
		c->seen_psb = 0;
		break;
	case ppt_tip_pge:
		c->pge++;
		if (c->in_gap) {
			c->gaps++;
			if (!c->seen_tsc && !c->seen_psb)
				c->untimed++;
		}
		c->in_gap = 0;
		break;
	default:
		break;
	}
}

static void restore(void)
{
	if (old_bytes[0])
		mc_param("model_tick_bytes", old_bytes);
	if (old_period[0])
		mc_param("model_period_us", old_period);
}

int main(void)
{
	const char *prof = getenv("PTT_PROFILE") ? getenv("PTT_PROFILE") : "icl";
	struct pt_trace_config cfg = { .size = sizeof(cfg) };
	struct pt_trace_caps caps;
	struct cycles cy = { 0 };
	struct check c = { 0 };
	struct mc_trace t;
	double t0 = mc_now();
	long errors;
	long long ticks;
	int fd;

	if (strcmp(prof, "icl"))
		SKIP("model_enable_timing runs on icl");
	fd = mc_open(&caps);
	if (!(caps.flags & PT_CAP_PSB_CYC) || !(caps.psb_periods & 1))
		SKIP("no configurable PSB period of 2 KiB");
	REQUIRE(ptt_read_str(MC_PARAM_DIR "model_tick_bytes", old_bytes,
			     sizeof(old_bytes)) == 0 &&
		ptt_read_str(MC_PARAM_DIR "model_period_us", old_period,
			     sizeof(old_period)) == 0,
		"model parameters: %s", strerror(errno));
	atexit(restore);
	REQUIRE(mc_param("model_tick_bytes", "64") == 0 &&
		mc_param("model_period_us", "100") == 0,
		"set model parameters: %s", strerror(errno));

	REQUIRE(ioctl(fd, PT_TRACE_IOC_GET_CONFIG, &cfg) == 0,
		"GET_CONFIG: %s", strerror(errno));
	cfg.ctl &= ~(PT_CTL_PSBFREQ_MASK | PT_CTL_MTCEN | PT_CTL_CYCEN);
	cfg.ctl |= PT_CTL_BRANCHEN | PT_CTL_USER | PT_CTL_OS | PT_CTL_TSCEN;
	/* Long steps: a tick's last step crosses the period more often. */
	cfg.ctl |= caps.ctl_valid & (PT_CTL_PTWEN | PT_CTL_FUPONPTW);
	cfg.buffer_size = 16u << 20;
	REQUIRE(ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &cfg) == 0,
		"SET_CONFIG: %s", strerror(errno));

	cy.fd = fd;
	ticks = mc_model("ticks");
	mc_run(fd, workload, &cy, &t);
	ticks = mc_model("ticks") - ticks;
	REQUIRE(t.len > 0, "no trace");
	errors = mc_walk(t.buf, t.len, on_packet, &c);
	CHECK(errors == 0, "walk: %ld errors", errors);
	fprintf(stderr,
		"PTT-INFO %lu pauses, %lld ticks, %zu bytes, %lu PSB, %lu TIP.PGD, %lu TIP.PGE, %lu TSC outside PSB+; %lu enables after a TIP.PGD: %lu PSB+ after the enable's TSC, %lu PSB+ without it, %lu without timing packets; %.1f s\n",
		cy.n, ticks, t.len, c.psb, c.pgd, c.pge, c.tsc_out, c.gaps,
		c.timed_psb, c.psb_first, c.untimed, mc_now() - t0);
	CHECK(c.gaps * 2 >= cy.n, "%lu pauses, only %lu enables that traced",
	      cy.n, c.gaps);
	CHECK(c.psb_first == 0,
	      "%lu enables sent a due PSB+ instead of their TSC (Table 36-50 case 2d)",
	      c.psb_first);
	CHECK(c.untimed == 0, "%lu enables sent no TSC", c.untimed);
	if (!ptt_failures && c.timed_psb + c.psb_first == 0 &&
	    cy.n < MIN_CYCLES)
		SKIP("no enable found a PSB+ due in %lu pauses (about 1 in 100): nothing tested",
		     cy.n);
	CHECK(c.timed_psb + c.psb_first > 0,
	      "no enable found a PSB+ due: nothing tested");
	free(t.buf);
	close(fd);
	return ptt_done();
}
