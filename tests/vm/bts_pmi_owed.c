// SPDX-License-Identifier: GPL-2.0
/*
 * bts_pmi_owed (issue 15): a threshold PMI whose NMI comes late, after
 * the driver drained the index outside its NMI (a switch record's drain
 * here; a stop, a bracket's owed serve the same), finds nothing to do.
 * The APIC masked LVTPC on its delivery all the same, and nobody else
 * unmasks it (perf's handler only when perf has events): the driver must
 * claim it and re-arm (source_bts.c, bts_owe(); stream_pmi.c,
 * pt_stream_pmi_pay(), as PT's late PMI), or every later PMI on that
 * CPU is held back and the DS buffer fills unserved.
 *
 * The model's bts_late_pmi (Documentation/model.rst) stores branches up
 * to the threshold right before the driver's next DEBUGCTL write that
 * turns BTS off below it, and delivers the PMI from irq_work, after the
 * writer's IRQs-off code.  With model_bts_tail the model stores in the
 * tick with no NMI of its own, so only PMIs serve the buffer (the
 * default's store NMIs run the driver's handler too and would hide it).
 *
 * Streaming, kernel branches, switch records, on CPU 0: START, arm the
 * hook, sleep (a switch to idle: its record's drain empties the buffer
 * the hook filled), then run busy.  Required: the hook fired, no PMI
 * was raised with LVTPC still masked (pmis_masked), the model dropped
 * nothing, the driver counted PMIs after the late one and claimed the
 * late one (debugfs bts late_pmis); the VM runner fails on the "NMI
 * received for unknown reason" an unclaimed one gives.  Kernel branches
 * only; icl only, where PTI is off (the driver refuses BTS under PTI).
 */
#include <stdlib.h>

#include "bts_common.h"

#define CAP	(4u << 20)
#define RING	(8u << 10)

static unsigned char out[CAP];

int main(void)
{
	const char *prof = getenv("PTT_PROFILE") ? getenv("PTT_PROFILE") : "icl";
	long long late0, late1, mask0, mask1, drop0, drop1, lp0, lp1;
	struct pt_trace_status st;
	unsigned long long pmis;
	size_t len = 0;
	int fd, k;

	if (strcmp(prof, "icl"))
		SKIP("bts_pmi_owed runs on icl");
	bts_require();
	ptt_pin_cpu(0);
	REQUIRE(!ptt_write_str(BTS_TAIL_PARAM, "1"), "%s: no model_bts_tail",
		BTS_TAIL_PARAM);
	atexit(bts_tail_off);
	fd = bts_open(0, O_RDWR | O_NONBLOCK);
	REQUIRE(!bts_config(fd, PT_CTL_OS | PT_BTS_CTL_SWITCHES,
			    PT_MODE_STREAM, RING, 4096),
		"SET_CONFIG stream, kernel: %s", strerror(errno));
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	late0 = bts_model("bts_late");
	mask0 = bts_model("pmis_masked");
	drop0 = bts_model("bts_dropped");
	lp0 = bts_late_pmis();
	REQUIRE(lp0 >= 0, "debugfs pt_trace/bts has no late_pmis column");
	REQUIRE(!ptt_write_str(BTS_MODEL_DIR "bts_late_pmi", "0"),
		"no bts_late_pmi in the model");
	/* A switch to idle and back: the hook's moment. */
	for (k = 0; k < 5 && bts_model("bts_late") == late0; k++)
		usleep(2000);
	bts_status(fd, &st);
	pmis = st.pmis;
	for (k = 0; k < 10; k++) {
		bts_busy(0.02);
		bts_drain(fd, out, CAP, &len);
	}
	bts_status(fd, &st);
	late1 = bts_model("bts_late");
	mask1 = bts_model("pmis_masked");
	drop1 = bts_model("bts_dropped");
	lp1 = bts_late_pmis();
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	bts_tail_off();
	bts_drain(fd, out, CAP, &len);
	printf("PTT-INFO hook stored %lld, PMIs %llu after it (%llu in all), ",
	       late1 - late0, (unsigned long long)st.pmis - pmis,
	       (unsigned long long)st.pmis);
	printf("masked %lld, dropped %lld, late claimed %lld, read %zu records\n",
	       mask1 - mask0, drop1 - drop0, lp1 - lp0, len / BTS_REC);
	CHECK(late1 > late0, "bts_late_pmi never fired (no switch on CPU 0?)");
	CHECK(mask1 == mask0,
	      "%lld PMIs raised with LVTPC still masked: the late one was not claimed and re-armed",
	      mask1 - mask0);
	CHECK(drop1 == drop0, "the DS buffer overflowed: %lld records dropped",
	      drop1 - drop0);
	CHECK(st.pmis > pmis, "no PMI served after the late one");
	CHECK(lp1 > lp0, "the late PMI was not claimed (late_pmis %lld)",
	      lp1 - lp0);
	close(fd);
	return ptt_done();
}
