// SPDX-License-Identifier: GPL-2.0
/*
 * Output modes: AUTO resolves to ToPA when the CPU has it (else single
 * range) and says which; forcing ToPA or single range gives exactly that (or EOPNOTSUPP when the
 * CPU lacks it); single range refuses sizes it cannot take (not 2^n, or
 * over 4 KiB with the TGL052/ADL037/RPL017 quirk).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/pt_trace.h>

#include "ptt_test.h"

static int fd;

static int run(__u32 output, __u64 size, __u32 *used)
{
	struct pt_trace_config c = { .size = sizeof(c) };
	struct pt_trace_status st = { .size = sizeof(st) };

	c.ctl = PT_CTL_BRANCHEN | PT_CTL_USER;
	c.output = output;
	c.buffer_size = size;
	if (ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &c))
		return -errno;
	if (ioctl(fd, PT_TRACE_IOC_START))
		return -errno;
	for (int i = 0; i < 200000; i++)
		__asm__ __volatile__("" : : : "memory");
	CHECK(ioctl(fd, PT_TRACE_IOC_STOP) == 0, "stop: %s", strerror(errno));
	CHECK(ioctl(fd, PT_TRACE_IOC_GET_STATUS, &st) == 0, "status");
	CHECK(!(st.flags & PT_STATUS_HW_ERROR), "hw error, status %#llx",
	      (unsigned long long)st.rtit_status);
	*used = st.output;
	return 0;
}

int main(void)
{
	struct pt_trace_caps caps = { .size = sizeof(caps) };
	int single, topa, r;
	__u32 used = 99;

	REQUIRE(ptt_pin_cpu(0) == 0, "pin");
	fd = ptt_open_cpu(0, O_RDONLY);
	REQUIRE(fd >= 0, "open: %s", strerror(errno));
	REQUIRE(ioctl(fd, PT_TRACE_IOC_GET_CAPS, &caps) == 0, "caps");
	single = !!(caps.flags & PT_CAP_SINGLE_RANGE);
	topa = !!(caps.flags & PT_CAP_TOPA);

	/* AUTO is ToPA wherever the CPU has ToPA (errata TGL052 and kin). */
	r = run(PT_OUTPUT_AUTO, 65536, &used);
	CHECK(r == 0, "auto: %d", r);
	CHECK(used == (topa ? PT_OUTPUT_TOPA : PT_OUTPUT_SINGLE), "auto -> %u",
	      used);
	r = run(PT_OUTPUT_AUTO, 4096, &used);
	CHECK(r == 0 && used == (topa ? PT_OUTPUT_TOPA : PT_OUTPUT_SINGLE),
	      "auto 4K: %d -> %u", r, used);

	r = run(PT_OUTPUT_TOPA, 65536, &used);
	if (topa)
		CHECK(r == 0 && used == PT_OUTPUT_TOPA, "topa: %d, %u", r, used);
	else
		CHECK(r == -EOPNOTSUPP, "topa without cap: %d", r);

	r = run(PT_OUTPUT_SINGLE, 4096, &used);
	if (single)
		CHECK(r == 0 && used == PT_OUTPUT_SINGLE, "single 4K: %d, %u",
		      r, used);
	else
		CHECK(r == -EOPNOTSUPP, "single without cap: %d", r);

	if (single) {
		r = run(PT_OUTPUT_SINGLE, 65536, &used);
		if (caps.quirks & PT_QUIRK_SINGLE_RANGE_4K)
			CHECK(r == -EINVAL, "single 64K with the 4K quirk: %d", r);
		else
			CHECK(r == 0 && used == PT_OUTPUT_SINGLE,
			      "single 64K: %d, %u", r, used);
		r = run(PT_OUTPUT_SINGLE, 12288, &used);
		CHECK(r == -EINVAL, "single 12K: %d", r);
	}
	fprintf(stderr, "PTT-INFO topa=%d single=%d multi=%d\n", topa, single,
		!!(caps.flags & PT_CAP_TOPA_MULTI));
	close(fd);
	return ptt_done();
}
