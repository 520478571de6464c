// SPDX-License-Identifier: GPL-2.0
/*
 * The model's optional packets, each switched on by a module parameter or
 * a debugfs hook, traced through the driver with OS=1 and USER=1:
 *  - MODE.TSX (model_tsx=1): MODE.TSX packets appear;
 *  - VMCS (model_vmcs=1): a VMCS packet in every PSB+;
 *  - PIP.NR (model_vmx_guest=1): PIPs appear and every one has NR set,
 *    and without it none has;
 *  - OVF (debugfs ovf): an OVF packet, followed at once by a FUP (PacketEn
 *    is 1 throughout: no filter), and the model counts it.
 * Every stream decodes with libipt with zero errors and no modelled #GP
 * fires.  The parameters are restored at exit.
 */
#include <stdlib.h>

#include "model_common.h"

static unsigned long sink;

struct work {
	int ovf;		/* ask the model for an overflow midway */
};

static void workload(void *arg)
{
	struct work *w = arg;
	double t0 = mc_now();
	unsigned long i, n = 0;
	int asked = 0;

	while (mc_now() - t0 < 0.3 || n < 200) {
		for (i = 0; i < 20000; i++) {
			sink += i;
			__asm__ __volatile__("" : : "r"(sink) : "memory");
		}
		getppid();
		n++;
		if (w->ovf && !asked && mc_now() - t0 > 0.1) {
			CHECK(mc_write(MC_MODEL_DIR "ovf", "0") == 0,
			      "debugfs ovf: %s", strerror(errno));
			asked = 1;
		}
	}
}

struct check {
	unsigned long pips, pips_nr, ovf, ovf_fup;
	int after_ovf;
};

static void on_packet(const struct pt_packet *p, __u64 ip, int has_ip,
		      void *ctx)
{
	struct check *c = ctx;

	(void)ip;
	(void)has_ip;
	if (c->after_ovf) {
		c->after_ovf = 0;
		if (p->type == ppt_fup)
			c->ovf_fup++;
	}
	if (p->type == ppt_ovf) {
		c->ovf++;
		c->after_ovf = 1;
	}
	if (p->type == ppt_pip) {
		c->pips++;
		c->pips_nr += !!p->payload.pip.nr;
	}
}

static void restore(void)
{
	mc_param("model_tsx", "0");
	mc_param("model_vmcs", "0");
	mc_param("model_vmx_guest", "0");
}

/* One traced run; decodes and walks it. */
static void run(int fd, const char *what, int ovf,
		struct ptt_packet_stats *ps, struct check *c)
{
	struct work w = { .ovf = ovf };
	struct mc_trace t;
	long errors;

	mc_run(fd, workload, &w, &t);
	REQUIRE(t.len > 0, "%s: no trace", what);
	CHECK(!(t.st.flags & (PT_STATUS_HW_ERROR | PT_STATUS_HW_STOPPED)),
	      "%s: hw flags %#x", what, t.st.flags);
	REQUIRE(ptt_decode_packets(t.buf, t.len, ps) == 0,
		"%s: no PSB in %zu bytes", what, t.len);
	CHECK(ps->errors == 0, "%s: %llu decode errors, first at %llu", what,
	      (unsigned long long)ps->errors,
	      (unsigned long long)ps->first_error_offset);
	memset(c, 0, sizeof(*c));
	errors = mc_walk(t.buf, t.len, on_packet, c);
	CHECK(errors == 0, "%s: walk: %ld errors", what, errors);
	fprintf(stderr,
		"PTT-INFO %s: %zu bytes, %llu packets, %llu psb, %llu mode.tsx, %llu vmcs, %lu pip (%lu nr), %lu ovf (%lu then fup)\n",
		what, t.len, (unsigned long long)ps->packets,
		(unsigned long long)ps->psb,
		(unsigned long long)ps->mode_tsx,
		(unsigned long long)ps->vmcs, c->pips, c->pips_nr, c->ovf,
		c->ovf_fup);
	free(t.buf);
}

int main(void)
{
	struct pt_trace_caps caps;
	struct ptt_packet_stats ps;
	struct check c;
	long long gp0, gp1, ovfs0, ovfs1;
	int fd;

	fd = mc_open(&caps);
	atexit(restore);
	restore();
	mc_set_ctl(fd, PT_CTL_BRANCHEN | PT_CTL_USER | PT_CTL_OS);
	gp0 = mc_model("gp_faults");

	/* Baseline: none of the optional packets. */
	run(fd, "plain", 0, &ps, &c);
	CHECK(ps.mode_tsx == 0 && ps.vmcs == 0 && ps.ovf == 0,
	      "plain: tsx %llu vmcs %llu ovf %llu",
	      (unsigned long long)ps.mode_tsx, (unsigned long long)ps.vmcs,
	      (unsigned long long)ps.ovf);
	CHECK(c.pips > 0 && c.pips_nr == 0, "plain: %lu PIPs, %lu with NR",
	      c.pips, c.pips_nr);

	REQUIRE(mc_param("model_tsx", "1") == 0, "model_tsx: %s",
		strerror(errno));
	run(fd, "tsx", 0, &ps, &c);
	CHECK(ps.mode_tsx > 0, "no MODE.TSX with model_tsx=1");
	mc_param("model_tsx", "0");

	REQUIRE(mc_param("model_vmcs", "1") == 0, "model_vmcs: %s",
		strerror(errno));
	run(fd, "vmcs", 0, &ps, &c);
	CHECK(ps.psb > 0 && ps.vmcs == ps.psb,
	      "%llu VMCS packets in %llu PSB+", (unsigned long long)ps.vmcs,
	      (unsigned long long)ps.psb);
	mc_param("model_vmcs", "0");

	REQUIRE(mc_param("model_vmx_guest", "1") == 0, "model_vmx_guest: %s",
		strerror(errno));
	run(fd, "pip.nr", 0, &ps, &c);
	CHECK(c.pips > 0, "no PIP with OS=1");
	CHECK(c.pips_nr == c.pips, "%lu of %lu PIPs without NR",
	      c.pips - c.pips_nr, c.pips);
	mc_param("model_vmx_guest", "0");

	ovfs0 = mc_model("ovfs");
	run(fd, "ovf", 1, &ps, &c);
	ovfs1 = mc_model("ovfs");
	CHECK(ovfs1 > ovfs0, "the model counted no overflow: %lld -> %lld",
	      ovfs0, ovfs1);
	CHECK(c.ovf >= 1, "no OVF packet");
	CHECK(c.ovf_fup == c.ovf, "%lu OVF, %lu followed by FUP", c.ovf,
	      c.ovf_fup);

	gp1 = mc_model("gp_faults");
	CHECK(gp0 >= 0 && gp1 == gp0, "modelled #GP: gp_faults %lld -> %lld",
	      gp0, gp1);
	close(fd);
	return ptt_done();
}
