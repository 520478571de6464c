// SPDX-License-Identifier: GPL-2.0
/*
 * bts_pmi_late (issue 15): a threshold PMI taken inside the driver's own
 * bracket that turned BTS on (START, a switch record) is served at the
 * bracket's end (source_bts.c, bts_src_owed()).  The model's
 * model_bts_tail (Documentation/model.rst) stores branches as silicon
 * does: with no NMI of its own, and a few kernel branches right after
 * the DEBUGCTL write that turns BTS on, before the writer's code ends.
 *
 * Streaming, kernel branches, switch records, a ring of RING bytes: the
 * DS buffer is RING / 4 = 85 records, the threshold 42 records in.
 * START stores its switch record (1), turns BTS on and the tail's TAIL =
 * 41 branches reach the threshold: the PMI lands while START's IPI
 * still holds the buffer, and the CPU raises no second one for an index
 * already past it.  Left unserved, the ticks fill the DS buffer and the
 * model drops records no loss record counts (bts_dropped; reverting
 * bts_src_owed() shows it).  Later switch records (to kworkers, idle)
 * can do the same.  Required: the model dropped nothing, every record
 * stored was read or counted as lost, PMIs were counted, the tail was
 * stored.  Kernel branches only, so it runs under PTI too; icl only
 * (the profiles do not change PMI delivery).
 */
#include <stdlib.h>

#include "bts_common.h"

#define CAP	(4u << 20)
#define RING	(8u << 10)
#define TAIL	"41"

static unsigned char out[CAP];

int main(void)
{
	const char *prof = getenv("PTT_PROFILE") ? getenv("PTT_PROFILE") : "icl";
	unsigned long long i, nsw = 0, bad = 0;
	long long rec0, rec1, drop0, drop1, tail0, tail1;
	struct pt_trace_status st;
	const struct bts_rec *r;
	size_t len = 0;
	int fd, k;

	if (strcmp(prof, "icl"))
		SKIP("bts_pmi_late runs on icl");
	bts_require();
	ptt_pin_cpu(0);
	REQUIRE(!ptt_write_str(BTS_TAIL_PARAM, TAIL), "%s: no model_bts_tail",
		BTS_TAIL_PARAM);
	atexit(bts_tail_off);
	fd = bts_open(0, O_RDWR | O_NONBLOCK);
	REQUIRE(!bts_config(fd, PT_CTL_OS | PT_BTS_CTL_SWITCHES,
			    PT_MODE_STREAM, RING, 4096),
		"SET_CONFIG stream, kernel: %s", strerror(errno));
	rec0 = bts_model("bts_records");
	drop0 = bts_model("bts_dropped");
	tail0 = bts_model("bts_tail");
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	for (k = 0; k < 20; k++) {
		bts_busy(0.01);
		bts_drain(fd, out, CAP, &len);
	}
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	rec1 = bts_model("bts_records");
	drop1 = bts_model("bts_dropped");
	tail1 = bts_model("bts_tail");
	bts_tail_off();
	bts_drain(fd, out, CAP, &len);
	bts_status(fd, &st);
	r = (const void *)out;
	for (i = 0; i < len / BTS_REC; i++) {
		if (r[i].flags & PT_BTS_SWITCH)
			nsw++;
		else if (!bts_kernel_addr(r[i].from) ||
			 !bts_kernel_addr(r[i].to))
			bad++;
	}
	printf("PTT-INFO read %zu records (%llu switch), lost %llu bytes, ",
	       len / BTS_REC, nsw, (unsigned long long)st.lost_bytes);
	printf("pmis %llu, model stored %lld (tail %lld), dropped %lld\n",
	       (unsigned long long)st.pmis, rec1 - rec0, tail1 - tail0,
	       drop1 - drop0);
	CHECK(tail1 - tail0 >= 41, "the tail after START was not stored (%lld)",
	      tail1 - tail0);
	CHECK(drop1 == drop0,
	      "the DS buffer overflowed: %lld records dropped, a PMI in a bracket not served",
	      drop1 - drop0);
	CHECK(len % BTS_REC == 0, "read %zu: not whole records", len);
	/* Lost switch records are in lost_bytes too: at least the stored. */
	CHECK(len + st.lost_bytes >= (unsigned long long)(rec1 - rec0 + nsw) *
	      BTS_REC, "read %zu + lost %llu < %lld stored + %llu switch records",
	      len, (unsigned long long)st.lost_bytes, rec1 - rec0, nsw);
	CHECK(st.pmis > 0, "no PMI counted");
	CHECK(!bad, "%llu records not kernel branches", bad);
	close(fd);
	return ptt_done();
}
