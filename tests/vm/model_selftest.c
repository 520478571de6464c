// SPDX-License-Identifier: GPL-2.0
/*
 * The model on its own (no driver): through debugfs pt_trace/model/
 * selftest, program the model's MSRs with a kernel buffer in each output
 * scheme the profile has, let it generate, and check that
 *  - every stream decodes with libipt with zero errors, from a PSB;
 *  - ToPA END wraps, ToPA STOP sets STATUS.Stopped and counts lost bytes,
 *    ToPA INT raises PMIs that arrive as NMIs, single range wraps;
 *  - while stopped the model goes on building the packets it cannot
 *    write (PTW sequence numbers, model_seq=1, advance) and counts their
 *    bytes as lost: the numbers missing between a stopped run and the
 *    next one fit in the bytes counted;
 *  - the packets the enabled features call for are present;
 *  - no modelled #GP happened (gp_faults and gp_test stay 0);
 *  - an NMI sent by the model arrives in NMI context.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <intel-pt.h>
#include <linux/pt_trace.h>

#include "ptt_test.h"

#define MD "/sys/kernel/debug/pt_trace/model/"
#define CAPS "/sys/kernel/pt_trace/caps/"

static int cap(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), CAPS "%s", name);
	return ptt_read_ll(path) > 0;
}

static long long result(const char *res, const char *key)
{
	char k[40];
	const char *p;

	snprintf(k, sizeof(k), "%s=", key);
	p = strstr(res, k);
	return p ? strtoll(p + strlen(k), NULL, 0) : -1;
}

static __u8 trace[8 << 20];

static long long run_lost, stop_lost;

/* PTW payloads of the last run: how many, the first and the last. */
static unsigned long long ptws, ptw_first, ptw_last, ptw_breaks;

static void scan_ptw(const __u8 *buf, size_t len)
{
	struct ptt_seq q;

	ptt_ptw_seq(buf, len, &q);
	ptws = q.ptws;
	ptw_first = q.first;
	ptw_last = q.last;
	ptw_breaks = q.breaks;
}

/* run() flags */
#define RUN_PEEK	1	/* only the trace: no checks of the mode */

static void run(const char *mode, unsigned long long ctl, unsigned int size,
		unsigned int ms, int flags)
{
	struct ptt_packet_stats s;
	char cmd[96], res[512];
	long long written, lost, len, status;
	ssize_t n;
	int fd, ret;

	for (;;) {
		snprintf(cmd, sizeof(cmd), "%s %#llx %u %u 0", mode, ctl, size,
			 ms);
		ret = ptt_write_str(MD "selftest", cmd);
		REQUIRE(ret == 0, "selftest '%s': %s", cmd, strerror(-ret));
		REQUIRE(ptt_read_str(MD "selftest", res, sizeof(res)) == 0,
			"result");
		written = result(res, "written");
		/*
		 * Every mode checks what happens when the buffer is full:
		 * on a loaded host the model's ticks come late, so give it
		 * longer until it is.
		 */
		if ((flags & RUN_PEEK) || ms >= 2000 ||
		    written >= result(res, "regions") * size)
			break;
		fprintf(stderr, "PTT-INFO %s: %lld bytes in %u ms, again for longer\n",
			mode, written, ms);
		ms *= 2;
	}
	lost = result(res, "lost");
	run_lost = lost;
	len = result(res, "trace_len");
	status = result(res, "status");
	fprintf(stderr, "%s ctl %#llx: written %lld lost %lld len %lld ",
		mode, ctl, written, lost, len);
	fprintf(stderr, "status %#llx pmis %lld handled %lld wrapped %lld\n",
		status, result(res, "pmis"),
		result(res, "pmis_handled"), result(res, "wrapped"));
	CHECK(result(res, "gp_test") == 0, "%s: modelled #GP in a valid setup", mode);
	CHECK(written > 0, "%s: nothing written", mode);
	CHECK(!(status & 0x10), "%s: STATUS.Error set", mode);

	fd = open(MD "selftest_trace", O_RDONLY);
	REQUIRE(fd >= 0, "selftest_trace: %s", strerror(errno));
	n = read(fd, trace, sizeof(trace));
	close(fd);
	CHECK(n == len, "%s: read %zd of %lld", mode, n, len);
	if (n <= 0)
		return;
	CHECK(ptt_decode_packets(trace, n, &s) == 0, "%s: no PSB", mode);
	scan_ptw(trace, n);
	fprintf(stderr, "  packets %llu psb %llu tip %llu pge %llu ",
		(unsigned long long)s.packets, (unsigned long long)s.psb,
		(unsigned long long)s.tip, (unsigned long long)s.tip_pge);
	fprintf(stderr, "tnt %llu fup %llu tsc %llu mtc %llu ",
		(unsigned long long)s.tnt, (unsigned long long)s.fup,
		(unsigned long long)s.tsc, (unsigned long long)s.mtc);
	fprintf(stderr, "cyc %llu ptw %llu pwre %llu pip %llu errors %llu\n",
		(unsigned long long)s.cyc, (unsigned long long)s.ptw,
		(unsigned long long)s.pwre, (unsigned long long)s.pip,
		(unsigned long long)s.errors);
	CHECK(s.errors == 0, "%s: %llu decode errors, first at %llu", mode,
	      (unsigned long long)s.errors,
	      (unsigned long long)s.first_error_offset);
	CHECK(s.psb > 0 && s.psbend > 0, "%s: no PSB+", mode);
	CHECK(s.tip > 0 && s.tnt > 0, "%s: no branches", mode);
	if (ctl & PT_CTL_TSCEN)
		CHECK(s.tsc > 0, "%s: TSCEn but no TSC", mode);
	else
		CHECK(s.tsc == 0, "%s: TSC without TSCEn", mode);
	if (ctl & PT_CTL_CYCEN)
		CHECK(s.cyc > 0, "%s: CYCEn but no CYC", mode);
	else
		CHECK(s.cyc == 0, "%s: CYC without CYCEn", mode);
	if (ctl & PT_CTL_MTCEN)
		CHECK(s.mtc > 0 && s.tma > 0, "%s: MTCEn but no MTC/TMA", mode);
	if (ctl & PT_CTL_PTWEN)
		CHECK(s.ptw > 0, "%s: PTWEn but no PTW", mode);
	else
		CHECK(s.ptw == 0, "%s: PTW without PTWEn", mode);
	if (ctl & PT_CTL_PWREVTEN)
		CHECK(s.pwre > 0 && s.pwrx > 0, "%s: PwrEvtEn but no PWRE/PWRX", mode);

	if (flags & RUN_PEEK)
		return;
	if (!strcmp(mode, "topa_stop")) {
		CHECK(status & 0x20, "topa_stop: STATUS.Stopped not set");
		CHECK(lost > 0, "topa_stop: no lost bytes counted");
		CHECK(result(res, "wrapped") == 0, "topa_stop: wrapped");
	} else {
		CHECK(!(status & 0x20), "%s: STATUS.Stopped set", mode);
		CHECK(lost == 0, "%s: %lld bytes lost", mode, lost);
		CHECK(result(res, "wrapped") == 1, "%s: buffer did not wrap", mode);
	}
	if (!strcmp(mode, "topa_int")) {
		CHECK(result(res, "pmis") > 0, "topa_int: no PMI");
		CHECK(result(res, "pmis_handled") == result(res, "pmis"),
		      "topa_int: %lld PMIs raised, %lld arrived as NMIs",
		      result(res, "pmis"), result(res, "pmis_handled"));
	}
}

int main(void)
{
	unsigned long long ctl = PT_CTL_OS | PT_CTL_USER | PT_CTL_BRANCHEN |
				 PT_CTL_TSCEN;
	char buf[32];

	if (access(MD "selftest", W_OK))
		SKIP("no model debugfs (backend is not the model?)");
	ptt_read_str("/sys/kernel/pt_trace/backend", buf, sizeof(buf));
	if (strcmp(buf, "model"))
		SKIP("backend is %s", buf);

	REQUIRE(ptt_write_str(MD "nmi_selftest", "0") == 0, "nmi_selftest cpu");
	CHECK(ptt_read_ll(MD "nmi_selftest") == 1,
	      "the model's NMI did not arrive in NMI context");

	if (cap("topa_output")) {
		run("topa", ctl, 16384, 60, 0);
		run("topa_stop", ctl, 16384, 80, 0);
		run("topa_int", ctl, 16384, 60, 0);
	}
	if (cap("single_range_output"))
		run("single", ctl, 16384, 60, 0);

	/*
	 * Loss accounting while stopped: with sequence numbers in PTW,
	 * a ToPA STOP run, then another on the same CPU.  The numbers
	 * the model built while stopped are missing between the two; each
	 * went out in a 10-byte PTW packet, all counted as lost.
	 */
	if (cap("topa_output") && cap("ptwrite")) {
		unsigned long long ptwctl = ctl | PT_CTL_PTWEN;
		unsigned long long last, missing;

		REQUIRE(ptt_write_str("/sys/module/pt_trace_model/parameters/model_seq",
				      "1") == 0, "model_seq");
		run("topa_stop", ptwctl, 16384, 80, 0);
		last = ptw_last;
		CHECK(ptws > 0 && ptw_breaks == 0,
		      "topa_stop: %llu PTWs, %llu breaks", ptws, ptw_breaks);
		stop_lost = run_lost;
		/*
		 * Again STOP, so the buffer cannot wrap over its first PTW;
		 * run once whether or not it fills: a retry would build
		 * numbers that no lost byte accounts for.
		 */
		run("topa_stop", ptwctl, 16384, 40, RUN_PEEK);
		REQUIRE(ptws > 0, "no PTW in the second run");
		missing = ptw_first - last - 1;
		fprintf(stderr,
			"PTT-INFO stopped run: PTW up to %llu, next run from %llu: %llu numbers built while stopped, %lld bytes lost\n",
			last, ptw_first, missing, stop_lost);
		CHECK(ptw_first > last + 1,
		      "no PTW numbers built while stopped (%llu then %llu)",
		      last, ptw_first);
		CHECK((long long)missing * 10 <= stop_lost,
		      "%llu PTWs missing but only %lld bytes counted lost",
		      missing, stop_lost);
		ptt_write_str("/sys/module/pt_trace_model/parameters/model_seq", "0");
	}

	/* Every optional packet the profile offers, at once. */
	if (cap("mtc"))
		ctl |= PT_CTL_MTCEN | (3ULL << PT_CTL_MTCFREQ_SHIFT);
	if (cap("psb_cyc"))
		ctl |= PT_CTL_CYCEN | (1ULL << PT_CTL_PSBFREQ_SHIFT);
	if (cap("ptwrite"))
		ctl |= PT_CTL_PTWEN | PT_CTL_FUPONPTW;
	if (cap("power_event_trace"))
		ctl |= PT_CTL_PWREVTEN;
	run(cap("topa_output") ? "topa" : "single", ctl, 16384, 60, 0);

	CHECK(ptt_read_ll(MD "gp_faults") == 0, "gp_faults = %lld",
	      ptt_read_ll(MD "gp_faults"));
	return ptt_done();
}
