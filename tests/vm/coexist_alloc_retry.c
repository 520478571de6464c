// SPDX-License-Identifier: GPL-2.0
/*
 * A contiguous buffer the allocator cannot give (issue 10, Broadwell):
 * single-entry ToPA (bdw) needs the whole buffer as one power-of-two
 * chunk.  On a machine that has been up a while no such chunk may be
 * free; the driver then allocates with reclaim and compaction, and when
 * that fails too, START fails with ENOMEM and the kernel log names the
 * largest chunk that is free, so the user knows what buffer_size works.
 *
 * The kernel's page-allocation fault injection (fail_page_alloc, in the
 * debug kernel only) plays the fragmented machine: for this task alone
 * every allocation of order >= MIN_ORDER fails, reclaim or not.
 *
 * - START with a 1 MiB buffer fails with ENOMEM, and the log says that
 *   1024 KiB is not free and that 256 KiB (order 6, just below the
 *   failing orders) is the largest available;
 * - a retry with the size the log named succeeds under the same faults;
 * - after compaction (/proc/sys/vm/compact_memory, the log's advice)
 *   and with the faults lifted, the retry with 1 MiB succeeds.
 *
 * Not shown: the allocator's own retry with compaction inside
 * __GFP_RETRY_MAYFAIL (fail_page_alloc fails an allocation before its
 * slow path runs; real fragmentation would need all free memory used).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/pt_trace.h>

#include "ptt_test.h"
#include "coexist_common.h"

#define FAIL_DIR	"/sys/kernel/debug/fail_page_alloc/"
#define MIN_ORDER	"7"		/* 512 KiB and up fail */
#define BIG		(1024u << 10)	/* order 8 */
#define FITS		(256u << 10)	/* order 6: the largest that works */

static void fail_knob(const char *name, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), FAIL_DIR "%s", name);
	REQUIRE(!ptt_write_str(path, val), "%s: %s", path, val);
}

/* Page-allocation faults for this task only (children inherit it). */
static void make_it_fail(int on)
{
	REQUIRE(!ptt_write_str("/proc/self/make-it-fail", on ? "1" : "0"),
		"/proc/self/make-it-fail");
}

/* SET_CONFIG a flight recorder of @size; 0 or the errno of START. */
static int start(int fd, unsigned int size)
{
	struct pt_trace_config cfg;
	int err = 0;

	memset(&cfg, 0, sizeof(cfg));
	cfg.size = sizeof(cfg);
	cfg.ctl = PT_CTL_BRANCHEN | PT_CTL_USER;
	cfg.mode = PT_MODE_FLIGHT;
	cfg.output = PT_OUTPUT_TOPA;
	cfg.buffer_size = size;
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &cfg), "SET_CONFIG %u: %s",
		size, strerror(errno));
	if (ioctl(fd, PT_TRACE_IOC_START))
		err = errno;
	else
		REQUIRE(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s",
			strerror(errno));
	return err;
}

int main(void)
{
	struct pt_trace_caps caps = { .size = sizeof(caps) };
	char want[160];
	long mark;
	int fd, err;

	fd = ptt_open_cpu(0, O_RDWR);
	REQUIRE(fd >= 0, "open: %s", strerror(errno));
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_GET_CAPS, &caps), "caps");
	if (!(caps.flags & PT_CAP_TOPA) || (caps.flags & PT_CAP_TOPA_MULTI))
		SKIP("not single-entry ToPA: no contiguous buffer above a page");
	if (access(FAIL_DIR "min-order", W_OK))
		SKIP("no fail_page_alloc (CONFIG_FAIL_PAGE_ALLOC: debug kernel)");
	/* Nothing else reaches a lap PMI: the recorder runs for an ioctl. */
	st_model_slow();

	fail_knob("verbose", "0");	/* no stack dumps in the log */
	fail_knob("task-filter", "Y");
	fail_knob("ignore-gfp-wait", "N");	/* fail reclaiming ones too */
	fail_knob("min-order", MIN_ORDER);
	fail_knob("space", "0");
	fail_knob("interval", "1");
	fail_knob("times", "-1");
	fail_knob("probability", "100");

	mark = cx_log_mark();
	make_it_fail(1);
	err = start(fd, BIG);
	make_it_fail(0);
	printf("PTT-INFO START %u KiB with order >= %s failing: %s\n",
	       BIG >> 10, MIN_ORDER, err ? strerror(err) : "ok");
	CHECK(err == ENOMEM, "START %u KiB: %s, not ENOMEM", BIG >> 10,
	      err ? strerror(err) : "succeeded");
	snprintf(want, sizeof(want), "no free contiguous %u KiB", BIG >> 10);
	CHECK(cx_log_has(mark, want), "the log does not say '%s'", want);
	snprintf(want, sizeof(want), "largest available now is %u KiB",
		 FITS >> 10);
	CHECK(cx_log_has(mark, want), "the log does not say '%s'", want);
	snprintf(want, sizeof(want),
		 "dmesg | tail -n +%ld | grep 'contiguous' | sed 's/^/  log| /'",
		 mark + 1);
	if (system(want))
		printf("PTT-INFO no log line about it\n");

	/* The size the log named works, under the same faults. */
	make_it_fail(1);
	err = start(fd, FITS);
	make_it_fail(0);
	CHECK(!err, "START %u KiB (the largest available): %s", FITS >> 10,
	      strerror(err));

	/* The log's advice, then the faults lifted: the big buffer again. */
	CHECK(!ptt_write_str("/proc/sys/vm/compact_memory", "1"),
	      "/proc/sys/vm/compact_memory (CONFIG_COMPACTION)");
	fail_knob("probability", "0");
	err = start(fd, BIG);
	CHECK(!err, "START %u KiB after compaction: %s", BIG >> 10,
	      strerror(err));

	/* fail_page_alloc's defaults. */
	fail_knob("min-order", "1");
	fail_knob("ignore-gfp-wait", "Y");
	fail_knob("task-filter", "N");
	fail_knob("times", "1");
	fail_knob("verbose", "2");
	st_restore_model();
	close(fd);
	return ptt_done();
}
