// SPDX-License-Identifier: GPL-2.0
/*
 * bts_flight (issue 15): /dev/btsN's circular mode (BTINT=0).  A large
 * buffer that does not fill: the records from START to STOP, every one
 * whole and within the branch filter (kernel-only under PTI), their
 * count the model's stored records, no WRAPPED.  A small one that
 * wraps: WRAPPED, exactly the buffer's capacity in whole records.  A
 * status while running pauses and shows records.  After STOP DEBUGCTL
 * has no BTS bit and IA32_DS_AREA is what it was before START; no MSR
 * access faulted.
 */
#include "bts_common.h"

static void run(int cpu, __u64 size, double secs, int expect_wrap)
{
	unsigned long long dbg0, ds0, dbg1, ds1;
	__u64 ctl = bts_ctl_here();
	struct pt_trace_status st;
	long long rec0, rec1;
	unsigned char *data;
	int fd = bts_open(cpu, O_RDWR);

	REQUIRE(!bts_config(fd, ctl, PT_MODE_FLIGHT, size, 0),
		"SET_CONFIG flight %llu: %s", (unsigned long long)size,
		strerror(errno));
	REQUIRE(!bts_model_regs(cpu, &dbg0, &ds0), "model detail");
	rec0 = bts_model("bts_records");
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	bts_busy(secs / 2);
	bts_status(fd, &st);
	CHECK(st.flags & PT_STATUS_RUNNING, "running: flags %#x", st.flags);
	CHECK(st.head > 0 && st.head % BTS_REC == 0,
	      "live status: head %llu", (unsigned long long)st.head);
	bts_busy(secs / 2);
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	rec1 = bts_model("bts_records");
	bts_status(fd, &st);
	REQUIRE(!bts_model_regs(cpu, &dbg1, &ds1), "model detail");
	CHECK(!(dbg1 & 0x7c0), "DEBUGCTL %#llx after STOP: BTS bits left set",
	      dbg1);
	CHECK(ds1 == ds0, "DS_AREA %#llx after STOP, %#llx before START",
	      ds1, ds0);
	printf("PTT-INFO size %llu: head %llu (%llu records), model stored %lld, flags %#x\n",
	       (unsigned long long)size, (unsigned long long)st.head,
	       (unsigned long long)st.head / BTS_REC, rec1 - rec0, st.flags);
	CHECK(st.head % BTS_REC == 0 && st.head <= size,
	      "head %llu", (unsigned long long)st.head);
	if (expect_wrap) {
		CHECK(st.flags & PT_STATUS_WRAPPED, "no WRAPPED: flags %#x",
		      st.flags);
		CHECK(st.head == size / BTS_REC * BTS_REC,
		      "wrapped: head %llu, capacity %llu",
		      (unsigned long long)st.head, size / BTS_REC * BTS_REC);
		CHECK(rec1 - rec0 > (long long)(st.head / BTS_REC),
		      "wrapped with %lld stored", rec1 - rec0);
	} else {
		CHECK(!(st.flags & PT_STATUS_WRAPPED), "WRAPPED: flags %#x",
		      st.flags);
		CHECK((long long)(st.head / BTS_REC) == rec1 - rec0,
		      "%llu records, the model stored %lld",
		      (unsigned long long)st.head / BTS_REC, rec1 - rec0);
	}
	data = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 4096);
	REQUIRE(data != MAP_FAILED, "mmap data: %s", strerror(errno));
	CHECK(!bts_check_recs(data, st.head, ctl),
	      "%llu bad records (ctl %#llx)",
	      bts_check_recs(data, st.head, ctl), (unsigned long long)ctl);
	munmap(data, size);
	close(fd);
}

int main(void)
{
	long long faults0, dserr0;

	bts_require();
	ptt_pin_cpu(0);
	faults0 = ptt_read_ll("/sys/kernel/debug/pt_trace/msr_faults");
	/* Cumulative: bts_config's foreign DEBUGCTL without a DS area adds some. */
	dserr0 = bts_model("bts_ds_errors");
	run(0, 4 << 20, 0.4, 0);
	run(0, 8192, 1.0, 1);
	CHECK(ptt_read_ll("/sys/kernel/debug/pt_trace/msr_faults") == faults0,
	      "MSR accesses faulted");
	CHECK(bts_model("bts_ds_errors") == dserr0, "model: %lld DS errors",
	      bts_model("bts_ds_errors") - dserr0);
	return ptt_done();
}
