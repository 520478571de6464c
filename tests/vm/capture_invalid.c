// SPDX-License-Identifier: GPL-2.0
/*
 * Every invalid configuration is refused with its documented errno
 * before any MSR is written: afterwards a valid start/stop still works
 * and neither the driver nor the model counted a #GP.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/pt_trace.h>

#include "ptt_test.h"

static int fd;
static struct pt_trace_caps caps = { .size = sizeof(caps) };

#define EXPECT(call, err)						\
	do {								\
		errno = 0;						\
		int r_ = (call);					\
		CHECK(r_ == -1 && errno == (err), "%s: got %d/%s",	\
		      #call, r_, strerror(errno));			\
	} while (0)

static struct pt_trace_config base(void)
{
	struct pt_trace_config c = { .size = sizeof(c) };

	c.ctl = PT_CTL_BRANCHEN | PT_CTL_USER;
	return c;
}

static int set(struct pt_trace_config c)
{
	return ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &c);
}

/* An encoding in 0..15 missing from @bitmap, or -1. */
static int missing(unsigned int bitmap)
{
	for (int i = 15; i >= 0; i--)
		if (!(bitmap & (1U << i)))
			return i;
	return -1;
}

static void check_config(void)
{
	struct pt_trace_config c;
	unsigned char big[sizeof(c) + 8];

	c = base(); c.ctl |= PT_CTL_TRACEEN;	EXPECT(set(c), EINVAL);
	c = base(); c.ctl |= PT_CTL_TOPA;	EXPECT(set(c), EINVAL);
	c = base(); c.ctl |= PT_CTL_FABRICEN;	EXPECT(set(c), EINVAL);
	c = base(); c.ctl |= 1ULL << 18;	EXPECT(set(c), EINVAL);
	c = base(); c.ctl |= 1ULL << 60;	EXPECT(set(c), EINVAL);
	c = base(); c.reserved[2] = 1;		EXPECT(set(c), EINVAL);
	c = base(); c.output = 7;		EXPECT(set(c), EINVAL);
	c = base(); c.mode = 9;			EXPECT(set(c), EINVAL);
	c = base(); c.mode = PT_MODE_STREAM; c.output = PT_OUTPUT_SINGLE;
	if (caps.flags & PT_CAP_SINGLE_RANGE)
		EXPECT(set(c), EINVAL);	/* no INT/STOP without ToPA */
	c = base(); c.mode = PT_MODE_STREAM; c.buffer_size = 8192;
	c.watermark = 8193;			EXPECT(set(c), EINVAL);
	c = base(); c.watermark = 4096;		EXPECT(set(c), EINVAL);
	c = base(); c.size = 8;			EXPECT(set(c), EINVAL);
	c = base(); c.buffer_size = 100;	EXPECT(set(c), EINVAL);
	c = base(); c.buffer_size = 8192 + 1;	EXPECT(set(c), EINVAL);
	c = base(); c.buffer_size = 1ULL << 50;	EXPECT(set(c), EINVAL);
	c = base();
	memset(big, 0, sizeof(big));
	memcpy(big, &c, sizeof(c));
	*(__u32 *)big = sizeof(big);
	big[sizeof(big) - 1] = 1;
	EXPECT(ioctl(fd, PT_TRACE_IOC_SET_CONFIG, big), E2BIG);
	big[sizeof(big) - 1] = 0;
	CHECK(ioctl(fd, PT_TRACE_IOC_SET_CONFIG, big) == 0, "longer zeroed: %s",
	      strerror(errno));

	/* Every architectural feature bit the CPU lacks: -EOPNOTSUPP. */
	static const __u64 feats[] = {
		PT_CTL_CYCEN, PT_CTL_PWREVTEN, PT_CTL_FUPONPTW,
		PT_CTL_CR3FILTER, PT_CTL_MTCEN, PT_CTL_PTWEN, PT_CTL_EVENTEN,
		PT_CTL_NOTNT, 1ULL << 32, 1ULL << 36, 1ULL << 40, 1ULL << 44,
	};
	for (unsigned int i = 0; i < ARRAY_SIZE(feats); i++) {
		if (caps.ctl_valid & feats[i])
			continue;
		c = base(); c.ctl |= feats[i];
		EXPECT(set(c), EOPNOTSUPP);
	}
	if (caps.flags & PT_CAP_MTC && missing(caps.mtc_periods) >= 0) {
		c = base();
		c.ctl |= PT_CTL_MTCEN |
			 (__u64)missing(caps.mtc_periods) << PT_CTL_MTCFREQ_SHIFT;
		EXPECT(set(c), EINVAL);
	}
	if (caps.flags & PT_CAP_PSB_CYC && missing(caps.cyc_thresholds) > 0) {
		c = base();
		c.ctl |= PT_CTL_CYCEN | (__u64)missing(caps.cyc_thresholds)
			 << PT_CTL_CYCTHRESH_SHIFT;
		EXPECT(set(c), EINVAL);
	}
	if (caps.flags & PT_CAP_PSB_CYC && missing(caps.psb_periods) > 0) {
		c = base();
		c.ctl |= (__u64)missing(caps.psb_periods) << PT_CTL_PSBFREQ_SHIFT;
		EXPECT(set(c), EINVAL);
	}
	if (!(caps.flags & PT_CAP_SINGLE_RANGE)) {
		c = base(); c.output = PT_OUTPUT_SINGLE;
		EXPECT(set(c), EOPNOTSUPP);
	} else {
		c = base(); c.output = PT_OUTPUT_SINGLE; c.buffer_size = 12288;
		EXPECT(set(c), EINVAL);	/* not a power of two */
	}
	if (!(caps.flags & PT_CAP_TOPA)) {
		c = base(); c.output = PT_OUTPUT_TOPA;
		EXPECT(set(c), EOPNOTSUPP);
	}
	if (!(caps.flags & PT_CAP_TOPA_MULTI)) {
		c = base(); c.buffer_size = 12288;
		EXPECT(set(c), EINVAL);	/* one contiguous 2^n chunk only */
	}
}

static void check_small_ioctls(void)
{
	struct pt_trace_cyc cyc = { .size = sizeof(cyc) };
	struct pt_trace_addr a = { .size = sizeof(a) };
	struct pt_trace_cr3 cr3 = { .size = sizeof(cr3) };
	__u64 sz;

	cyc.enable = 2;			EXPECT(ioctl(fd, PT_TRACE_IOC_SET_CYC, &cyc), EINVAL);
	cyc.enable = 1; cyc.reserved = 1; EXPECT(ioctl(fd, PT_TRACE_IOC_SET_CYC, &cyc), EINVAL);
	cyc.reserved = 0; cyc.threshold = 16; EXPECT(ioctl(fd, PT_TRACE_IOC_SET_CYC, &cyc), EINVAL);
	if (!(caps.flags & PT_CAP_PSB_CYC)) {
		cyc.threshold = 0;
		EXPECT(ioctl(fd, PT_TRACE_IOC_SET_CYC, &cyc), EOPNOTSUPP);
	}

	a.index = 4; a.cfg = 1;		EXPECT(ioctl(fd, PT_TRACE_IOC_SET_ADDR, &a), EINVAL);
	if (caps.num_addr_ranges < 4) {
		a.index = caps.num_addr_ranges;
		EXPECT(ioctl(fd, PT_TRACE_IOC_SET_ADDR, &a), EOPNOTSUPP);
	}
	if (caps.num_addr_ranges) {
		a.index = 0;
		a.cfg = 3; a.start = 0x1000; a.end = 0x2000;
		EXPECT(ioctl(fd, PT_TRACE_IOC_SET_ADDR, &a), EINVAL);
		/* Not canonical for 48 bits nor, with LA57, for 57. */
		a.cfg = 1; a.start = 0x0100000000000000ULL;
		EXPECT(ioctl(fd, PT_TRACE_IOC_SET_ADDR, &a), EINVAL);
		a.start = 0x3000; a.end = 0x2000;
		EXPECT(ioctl(fd, PT_TRACE_IOC_SET_ADDR, &a), EINVAL);
		a.start = 0xffff800000000000ULL; a.end = 0xffffffffffffffffULL;
		CHECK(ioctl(fd, PT_TRACE_IOC_SET_ADDR, &a) == 0,
		      "kernel range: %s", strerror(errno));
		a.cfg = 0; a.start = a.end = 0;
		CHECK(ioctl(fd, PT_TRACE_IOC_SET_ADDR, &a) == 0, "clear");
	}

	if (caps.flags & PT_CAP_CR3_FILTER) {
		cr3.how = PT_CR3_BY_VALUE; cr3.cr3 = 0x1000 | 0x3;
		EXPECT(ioctl(fd, PT_TRACE_IOC_SET_CR3, &cr3), EINVAL);
		cr3.cr3 = 0x1000 | 0x10;	/* bit 4: reserved */
		EXPECT(ioctl(fd, PT_TRACE_IOC_SET_CR3, &cr3), EINVAL);
		/* Only bits 4:0 are reserved: a LAM bit is a CR3 bit. */
		cr3.cr3 = 0x1000 | 1ULL << 62;
		CHECK(ioctl(fd, PT_TRACE_IOC_SET_CR3, &cr3) == 0,
		      "CR3 with LAM bit 62: %s", strerror(errno));
		cr3.how = PT_CR3_BY_PID; cr3.pid = 0x3fffff00;
		EXPECT(ioctl(fd, PT_TRACE_IOC_SET_CR3, &cr3), ESRCH);
		cr3.how = 7;
		EXPECT(ioctl(fd, PT_TRACE_IOC_SET_CR3, &cr3), EINVAL);
		cr3.how = PT_CR3_OFF;
		CHECK(ioctl(fd, PT_TRACE_IOC_SET_CR3, &cr3) == 0, "cr3 off");
	} else {
		cr3.how = PT_CR3_BY_PID;
		EXPECT(ioctl(fd, PT_TRACE_IOC_SET_CR3, &cr3), EOPNOTSUPP);
	}

	sz = 5000;			EXPECT(ioctl(fd, PT_TRACE_IOC_SET_BUFSIZE, &sz), EINVAL);
	EXPECT(ioctl(fd, _IO(PT_TRACE_IOC_MAGIC, 0x7f)), ENOTTY);
}

int main(void)
{
	/* Since load; an earlier test in this VM may have added some. */
	long long msr0 = ptt_read_ll("/sys/kernel/debug/pt_trace/msr_faults");
	long long gp0 = ptt_read_ll("/sys/kernel/debug/pt_trace/model/gp_faults");
	long long gp;

	fd = ptt_open_cpu(0, O_RDONLY);
	REQUIRE(fd >= 0, "open: %s", strerror(errno));
	REQUIRE(ioctl(fd, PT_TRACE_IOC_GET_CAPS, &caps) == 0, "caps");
	check_config();
	check_small_ioctls();

	/* Running: no reconfiguration, no second start. */
	__u64 sz = 8192;

	CHECK(ioctl(fd, PT_TRACE_IOC_SET_BUFSIZE, &sz) == 0, "bufsize: %s",
	      strerror(errno));
	CHECK(ioctl(fd, PT_TRACE_IOC_START) == 0, "start: %s", strerror(errno));
	EXPECT(ioctl(fd, PT_TRACE_IOC_START), EBUSY);
	struct pt_trace_config c = base();

	EXPECT(set(c), EBUSY);
	CHECK(ioctl(fd, PT_TRACE_IOC_STOP) == 0, "stop: %s", strerror(errno));
	CHECK(ioctl(fd, PT_TRACE_IOC_STOP) == 0, "second stop");
	close(fd);

	gp = ptt_read_ll("/sys/kernel/debug/pt_trace/msr_faults") - msr0;
	CHECK(gp == 0, "driver counted %lld faulting MSR accesses", gp);
	gp = ptt_read_ll("/sys/kernel/debug/pt_trace/model/gp_faults");
	if (gp >= 0)
		CHECK(gp == gp0, "model counted %lld #GP", gp - gp0);
	else
		fprintf(stderr, "PTT-INFO model/gp_faults absent\n");
	return ptt_done();
}
