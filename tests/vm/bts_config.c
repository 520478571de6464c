// SPDX-License-Identifier: GPL-2.0
/*
 * bts_config (issue 15): what /dev/btsN accepts and refuses.
 *  - Bad input gets an error, never a warning: ctl bits other than
 *    PT_CTL_OS/USER, no branch at all, an output, a CR3, an address
 *    range, a reserved field, an unknown mode, a watermark in flight
 *    mode or beyond the buffer (EINVAL); the PT-only ioctls (SET_CR3,
 *    SET_CYC, SET_ADDR, FOLLOW) say ENOTTY.
 *  - User/kernel filtering: kernel-only records only kernel branches;
 *    user-only (where PTI is off) only user branches, and the model
 *    counts the filtered ones.
 *  - PTI refusal: under PTI (the 6.12 boot) every configuration fails
 *    with EOPNOTSUPP (bad input still EINVAL) and a log line saying why
 *    and what to do, and so does START of a fresh open's default, with
 *    DEBUGCTL and DS_AREA untouched; /sys/kernel/pt_trace/bts/pti says
 *    it.  Where PTI is off, bts/pti is 0 and the rest runs.
 *  - Coexistence: with DEBUGCTL's TR|BTS already set on the CPU (another
 *    agent storing branches, as perf's intel_bts would), START fails with
 *    EBUSY and a log line naming perf, and DEBUGCTL/DS_AREA are left as
 *    that agent had them.  With IA32_PEBS_ENABLE set (perf's PEBS
 *    sampling on the CPU, whose records go through IA32_DS_AREA too)
 *    START fails with EBUSY and a log line naming PEBS, and DS_AREA is
 *    not replaced under it; once it is clear, START works.
 *  - LBR beside BTS (beside_lbr()): DEBUGCTL's LBR bits set before START
 *    or while tracing, and cleared by their owner while tracing, are
 *    the owner's after START, the PMIs and STOP, in flight and stream.
 */
#include "bts_common.h"

/* The driver's log line when it refuses BTS under PTI. */
static const char pti_line[] =
	"BTS refused: page table isolation (PTI) is on";

/* Configurations refused with EINVAL: a valid one with one thing wrong. */
static const struct {
	const char *what;
	struct pt_trace_config cfg;	/* bad() adds size and buffer_size */
} bad_cfgs[] = {
	{ "BranchEn",
	  { .ctl = PT_CTL_OS | PT_CTL_BRANCHEN, .mode = PT_MODE_FLIGHT } },
	{ "no branches", { .ctl = 0, .mode = PT_MODE_FLIGHT } },
	{ "an output",
	  { .ctl = PT_CTL_OS, .mode = PT_MODE_FLIGHT,
	    .output = PT_OUTPUT_TOPA } },
	{ "a CR3",
	  { .ctl = PT_CTL_OS, .mode = PT_MODE_FLIGHT, .cr3_match = 0x1000 } },
	{ "an address range",
	  { .ctl = PT_CTL_OS, .mode = PT_MODE_FLIGHT, .addr[0].end = 0x1000 } },
	{ "a reserved field",
	  { .ctl = PT_CTL_OS, .mode = PT_MODE_FLIGHT, .reserved[1] = 1 } },
	{ "mode 7", { .ctl = PT_CTL_OS, .mode = 7 } },
	{ "a flight watermark",
	  { .ctl = PT_CTL_OS, .mode = PT_MODE_FLIGHT, .watermark = 4096 } },
	{ "a watermark beyond the buffer",
	  { .ctl = PT_CTL_OS, .mode = PT_MODE_STREAM,
	    .watermark = 128 << 10 } },
};

static void bad(int fd, unsigned int i)
{
	struct pt_trace_config cfg = bad_cfgs[i].cfg;
	int ret;

	cfg.size = sizeof(cfg);
	cfg.buffer_size = 64 << 10;
	ret = ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &cfg);
	CHECK(ret < 0 && errno == EINVAL, "%s: %d (%s), want EINVAL",
	      bad_cfgs[i].what, ret, strerror(errno));
}

static void filtered(int fd, __u64 ctl)
{
	struct pt_trace_status st;
	long long f0 = bts_model("bts_filtered");
	unsigned char *data;

	REQUIRE(!bts_config(fd, ctl, PT_MODE_FLIGHT, 1 << 20, 0),
		"SET_CONFIG %#llx: %s", (unsigned long long)ctl, strerror(errno));
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	bts_busy(0.3);
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	bts_status(fd, &st);
	data = mmap(NULL, 1 << 20, PROT_READ, MAP_SHARED, fd, 4096);
	REQUIRE(data != MAP_FAILED, "mmap: %s", strerror(errno));
	printf("PTT-INFO ctl %#llx: %llu records, model filter dropped %lld\n",
	       (unsigned long long)ctl, (unsigned long long)st.head / BTS_REC,
	       bts_model("bts_filtered") - f0);
	CHECK(st.head >= 10 * BTS_REC, "ctl %#llx: %llu bytes",
	      (unsigned long long)ctl, (unsigned long long)st.head);
	CHECK(!bts_check_recs(data, st.head, ctl), "ctl %#llx: %llu outside the filter",
	      (unsigned long long)ctl, bts_check_recs(data, st.head, ctl));
	CHECK(bts_model("bts_filtered") > f0, "nothing filtered");
	munmap(data, 1 << 20);
}

static int msr(const char *req)
{
	return ptt_write_str(BTS_MODEL_DIR "msr", req);
}

/*
 * Another agent holds what BTS needs on CPU 0: the model's MSR hook
 * request @set (CPU MSR VALUE) makes it so.  START on @fd must fail with
 * EBUSY and a log line containing @line, and leave DEBUGCTL and DS_AREA
 * as the agent had them; once @clear undoes it, START works.
 */
static void refused_while(int fd, const char *what, const char *set,
			  const char *clear, const char *line)
{
	unsigned long long dbg, ds, dbg2, ds2;
	int n0, ret;

	REQUIRE(!msr(set), "msr hook: %s", set);
	REQUIRE(!bts_model_regs(0, &dbg, &ds), "model detail");
	n0 = ptt_dmesg_count(line);
	ret = ioctl(fd, PT_TRACE_IOC_START);
	CHECK(ret < 0 && errno == EBUSY, "START beside %s: %d (%s)", what, ret,
	      strerror(errno));
	CHECK(ptt_dmesg_count(line) > n0, "no log line naming %s", what);
	REQUIRE(!bts_model_regs(0, &dbg2, &ds2), "model detail");
	CHECK(dbg2 == dbg && ds2 == ds,
	      "DEBUGCTL %#llx DS_AREA %#llx changed beside %s (were %#llx %#llx)",
	      dbg2, ds2, what, dbg, ds);
	REQUIRE(!msr(clear), "msr hook: %s", clear);
	ret = ioctl(fd, PT_TRACE_IOC_START);
	CHECK(!ret, "START once %s is gone: %s", what, strerror(errno));
	ioctl(fd, PT_TRACE_IOC_STOP);
}

/*
 * perf's LBR users own DEBUGCTL's LBR bits beside BTS (@lbr: LBR and
 * FREEZE_LBRS_ON_PMI, as perf's LBR call stacks set them): set before
 * START (@before) and cleared by their owner while BTS traces, or set
 * only while it traces, they stay the owner's.  START adds its bits to
 * theirs, the threshold PMIs of @mode stream clear and set only BTS's,
 * and STOP clears exactly its own: DEBUGCTL is then what the owner left,
 * never a value saved at START (which would turn a cleared LBR back on
 * or drop a new one).
 */
static void beside_lbr(int fd, __u32 mode, int before)
{
	const unsigned long long lbr = 0x801;
	unsigned long long dbg, ds, want;
	struct pt_trace_status st;
	char req[64];

	REQUIRE(!bts_config(fd, PT_CTL_OS, mode, 64 << 10, 0),
		"SET_CONFIG: %s", strerror(errno));
	snprintf(req, sizeof(req), "0 1d9 %llx", before ? lbr : 0);
	REQUIRE(!msr(req), "msr hook: %s", req);
	CHECK(!ioctl(fd, PT_TRACE_IOC_START), "START beside LBR: %s", strerror(errno));
	REQUIRE(!bts_model_regs(0, &dbg, &ds), "model detail");
	CHECK((dbg & 0xc0) == 0xc0 && (dbg & lbr) == (before ? lbr : 0),
	      "DEBUGCTL %#llx after START (LBR %s before)", dbg, before ? "on" : "off");
	bts_busy(0.1);
	/* The LBR owner's switch while BTS traces. */
	snprintf(req, sizeof(req), "0 1d9 %llx", before ? dbg & ~lbr : dbg | lbr);
	REQUIRE(!msr(req), "msr hook: %s", req);
	bts_busy(0.2);
	bts_status(fd, &st);
	REQUIRE(!bts_model_regs(0, &dbg, &ds), "model detail");
	want = before ? 0 : lbr;
	CHECK((dbg & lbr) == want, "DEBUGCTL %#llx while tracing: the LBR owner's bits changed",
	      dbg);
	CHECK(mode != PT_MODE_STREAM || st.pmis > 0, "stream: no threshold PMI (%llu bytes)",
	      (unsigned long long)st.head);
	ioctl(fd, PT_TRACE_IOC_STOP);
	REQUIRE(!bts_model_regs(0, &dbg, &ds), "model detail");
	CHECK(dbg == want, "DEBUGCTL %#llx after STOP, the LBR owner left %#llx",
	      dbg, want);
	printf("PTT-INFO LBR %s before START, %s while tracing ",
	       before ? "on" : "off", before ? "cleared" : "set");
	printf("(%s, %llu PMIs): DEBUGCTL %#llx after STOP\n",
	       mode == PT_MODE_STREAM ? "stream" : "flight",
	       (unsigned long long)st.pmis, dbg);
	REQUIRE(!msr("0 1d9 0"), "msr hook: DEBUGCTL 0");
}

/*
 * Under PTI: every valid configuration, and START of a fresh open's
 * default, refused with EOPNOTSUPP and a log line, the CPU's DEBUGCTL
 * and DS_AREA left alone.  Before the driver refused them all, kernel-
 * only BTS ran here, and silicon records the entries from user mode and
 * the returns to it under the user page tables (design.rst, "PTI").
 */
static void pti_refused(void)
{
	static const __u64 ctls[] = { PT_CTL_OS, PT_CTL_USER,
				      PT_CTL_OS | PT_CTL_USER,
				      PT_CTL_OS | PT_BTS_CTL_SWITCHES };
	unsigned long long dbg, ds, dbg0, ds0;
	unsigned int i, m;
	int fd, n0, ret;

	CHECK(ptt_read_ll("/sys/kernel/pt_trace/bts/pti") == 1,
	      "bts/pti is not 1 under PTI");
	REQUIRE(!bts_model_regs(0, &dbg0, &ds0), "model detail");
	n0 = ptt_dmesg_count(pti_line);
	/* A fresh open's START (`cat /dev/bts0` too). */
	fd = bts_open(0, O_RDWR);
	ret = ioctl(fd, PT_TRACE_IOC_START);
	CHECK(ret < 0 && errno == EOPNOTSUPP,
	      "START of the default under PTI: %d (%s), want EOPNOTSUPP", ret,
	      strerror(errno));
	close(fd);
	fd = bts_open(0, O_RDWR);
	for (i = 0; i < ARRAY_SIZE(bad_cfgs); i++)
		bad(fd, i);
	for (i = 0; i < ARRAY_SIZE(ctls); i++)
		for (m = PT_MODE_FLIGHT; m <= PT_MODE_STREAM; m++) {
			ret = bts_config(fd, ctls[i], m, 1 << 20, 0);
			CHECK(ret < 0 && errno == EOPNOTSUPP,
			      "ctl %#llx mode %u under PTI: %d (%s), want EOPNOTSUPP",
			      (unsigned long long)ctls[i], m, ret,
			      strerror(errno));
		}
	ret = ioctl(fd, PT_TRACE_IOC_START);
	CHECK(ret < 0 && errno == EOPNOTSUPP,
	      "START after refused configurations: %d (%s)", ret,
	      strerror(errno));
	close(fd);
	REQUIRE(!bts_model_regs(0, &dbg, &ds), "model detail");
	CHECK(dbg == dbg0 && ds == ds0,
	      "DEBUGCTL %#llx DS_AREA %#llx after the refusals (before: %#llx %#llx)",
	      dbg, ds, dbg0, ds0);
	CHECK(ptt_dmesg_count(pti_line) > n0, "no log line saying why");
	printf("PTT-INFO PTI: every BTS configuration and START refused\n");
}

int main(void)
{
	struct pt_trace_cr3 cr3;
	unsigned int i;
	int fd, ret;

	bts_require_model();
	ptt_pin_cpu(0);
	if (bts_pti()) {
		pti_refused();
		return ptt_done();
	}
	CHECK(ptt_read_ll("/sys/kernel/pt_trace/bts/pti") == 0,
	      "bts/pti is not 0 without PTI");
	fd = bts_open(0, O_RDWR);

	for (i = 0; i < ARRAY_SIZE(bad_cfgs); i++)
		bad(fd, i);
	memset(&cr3, 0, sizeof(cr3));
	cr3.size = sizeof(cr3);
	cr3.how = PT_CR3_BY_PID;
	ret = ioctl(fd, PT_TRACE_IOC_SET_CR3, &cr3);
	CHECK(ret < 0 && errno == ENOTTY, "SET_CR3 on bts0: %d (%s)", ret,
	      strerror(errno));

	/* Filtering. */
	filtered(fd, PT_CTL_OS);
	filtered(fd, PT_CTL_USER);

	/* Another agent stores branches on CPU 0. */
	REQUIRE(!bts_config(fd, PT_CTL_OS, PT_MODE_FLIGHT, 64 << 10, 0),
		"SET_CONFIG: %s", strerror(errno));
	refused_while(fd, "another BTS user (DEBUGCTL TR|BTS)", "0 1d9 c0", "0 1d9 0",
		      "BTS is already in use");
	/* perf's PEBS samples on CPU 0 (one counter), through its DS area. */
	refused_while(fd, "PEBS", "0 3f1 1", "0 3f1 0", "PEBS is sampling here");
	/*
	 * The model's IA32_PEBS_ENABLE is Ice Lake's (adaptive PEBS), as
	 * Linux writes it: fixed counters at 32 + n, PEBS via PT at 60-62;
	 * nothing at 48 (SDM; arch/x86/events/intel/ds.c).
	 */
	CHECK(!msr("0 3f1 f000000ff"), "PEBS_ENABLE: GP and fixed counters refused");
	CHECK(!msr("0 3f1 7000000000000001"), "PEBS_ENABLE: PEBS output to PT refused");
	CHECK(msr("0 3f1 1000000000000"), "PEBS_ENABLE bit 48 accepted (not Ice Lake's)");
	REQUIRE(!msr("0 3f1 0"), "msr hook: PEBS_ENABLE 0");
	/* perf's LBR shares DEBUGCTL with BTS. */
	beside_lbr(fd, PT_MODE_FLIGHT, 1);
	beside_lbr(fd, PT_MODE_FLIGHT, 0);
	beside_lbr(fd, PT_MODE_STREAM, 1);
	beside_lbr(fd, PT_MODE_STREAM, 0);
	close(fd);
	return ptt_done();
}
