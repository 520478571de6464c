// SPDX-License-Identifier: GPL-2.0
/*
 * A KVM guest's ToPA PMI merged with the one we owe (issue 10).  On a
 * CPU in VMX operation (the model's vmx hook), our final stop owes a PMI
 * (bit 55 set at TraceEn 1->0, its NMI after the stop IPI) and, before
 * that NMI is delivered, a guest's PT PMI sets the same bit (the model's
 * late_pmi "guest": the foreign agent plays KVM behind perf's handler,
 * which runs after ours and acknowledges the whole status).  One NMI
 * carries both:
 *  - ours is claimed (late_pmis + 1, no "NMI received for unknown
 *    reason");
 *  - the guest's is not lost: its handler still finds bit 55
 *    (foreign_handled + 1, foreign_stolen unchanged), as perf's must to
 *    hand it to KVM.
 * Then, outside VMX, the same late PMI alone is still claimed.
 * Streaming (its PMI owed at the halt) and the ToPA flight recorder
 * with lap PMIs (1 MiB).  icl only: VMX
 * with PT in VMX operation (VMX_MISC[14]), as KVM's pt_mode=1 needs.
 */
#include "coexist_common.h"

#define BIG	(4u << 20)	/* streaming: the INT is 2 MiB away */
#define LAP	(1024u << 10)	/* flight: the lap-PMI floor (1 MiB) */

static int cpu;

static int open_mode(unsigned int mode)
{
	struct pt_trace_caps caps;

	if (mode == PT_MODE_STREAM)
		return st_setup(cpu, BIG, 0, O_NONBLOCK, &caps);
	return cx_open_flight(cpu, LAP);
}

/*
 * A 20 ms trace in @mode whose STOP owes a PMI, with the late_pmi agent
 * armed as @late: "guest" (in VMX operation, a guest's PMI merged with
 * ours) or "after" (ours alone).  Ours must be claimed, no NMI left to
 * nobody, and a guest's handled by its handler, not acknowledged by us.
 */
static void owed_pmi(unsigned int mode, const char *late, const char *m)
{
	int guest = !strcmp(late, "guest");
	long long l0 = st_stream_counter(cpu, "late_pmis");
	long long h0 = st_model("foreign_handled");
	long long s0 = st_model("foreign_stolen");
	long mark = cx_log_mark();
	int fd = open_mode(mode);

	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	usleep(20000);
	cx_agent("late_pmi", cpu, late);
	CHECK(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	cx_settle();
	printf("PTT-INFO %s: ours claimed %lld, guest's handled %lld, stolen %lld\n",
	       m, st_stream_counter(cpu, "late_pmis") - l0,
	       st_model("foreign_handled") - h0, st_model("foreign_stolen") - s0);
	CHECK(st_stream_counter(cpu, "late_pmis") == l0 + 1,
	      "%s: our owed PMI was not claimed", m);
	CHECK(!cx_log_has(mark, "NMI received for unknown reason"),
	      "%s: an NMI was left to nobody", m);
	if (guest) {
		CHECK(st_model("foreign_stolen") == s0,
		      "%s: the guest's PMI merged with ours was acknowledged by us",
		      m);
		CHECK(st_model("foreign_handled") == h0 + 1,
		      "%s: the guest's handler did not get its PMI", m);
		cx_agent("foreign", cpu, "off");
	}
	close(fd);
	st_restore_model();
}

int main(void)
{
	const char *p = getenv("PTT_PROFILE");

	if (p && strcmp(p, "icl"))
		SKIP("needs VMX with PT in VMX operation: icl only");
	cpu = cx_cpu();
	if (st_model("foreign_pmis") < 0)
		SKIP("the model has no foreign agent");
	cx_agent("vmx", cpu, "on");
	owed_pmi(PT_MODE_STREAM, "guest", "stream");
	owed_pmi(PT_MODE_FLIGHT, "guest", "flight");
	cx_agent("vmx", cpu, "off");
	/* Outside VMX: ours alone, claimed (and acknowledged by us). */
	owed_pmi(PT_MODE_STREAM, "after", "outside VMX");
	return ptt_done();
}
