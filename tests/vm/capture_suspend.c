// SPDX-License-Identifier: GPL-2.0
/*
 * A suspend ends every trace like STOP and START is refused until the
 * resume: suspend to RAM resets the boot CPU's PT MSRs, so a trace left
 * "running" would be accounted from meaningless pointers afterwards.
 * Driven with the kernel's suspend test mode (pm_test=freezer: the PM
 * notifiers and the freezer run, nothing powers down): a flight trace
 * must come back stopped with a trace that decodes, a streaming reader
 * must drain and reach end of file, and START must work again after.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <linux/pt_trace.h>

#include "ptt_test.h"

#define PM_TEST		"/sys/power/pm_test"
#define PM_STATE	"/sys/power/state"
#define PM_DELAY	"/sys/module/suspend/parameters/pm_test_delay"
#define SIZE		65536

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	err = n < 0 ? -errno : 0;
	close(fd);
	return err;
}

/* One suspend-to-idle test cycle; 0 or -errno. */
static int suspend_cycle(void)
{
	char delay[16] = "";
	int r;

	if (ptt_read_str(PM_DELAY, delay, sizeof(delay)) == 0)
		write_str(PM_DELAY, "0");
	r = write_str(PM_TEST, "freezer");
	if (!r)
		r = write_str(PM_STATE, "freeze");
	write_str(PM_TEST, "none");
	if (delay[0])
		write_str(PM_DELAY, delay);
	return r;
}

/*
 * Run user code until the live status shows trace, at most @rounds
 * times (streaming publishes its head only at PMIs); the head seen.
 */
static __u64 spin(int fd, int rounds)
{
	struct pt_trace_status st = { .size = sizeof(st) };

	for (int round = 0; round < rounds; round++) {
		for (int i = 0; i < 200000; i++) {
			__asm__ __volatile__("" : : : "memory");
			if (!(i % 512))
				getppid();
		}
		if (ioctl(fd, PT_TRACE_IOC_GET_STATUS, &st) == 0 && st.head)
			break;
	}
	return st.head;
}

static int configure(int fd, __u32 mode)
{
	struct pt_trace_config c = { .size = sizeof(c) };

	c.ctl = PT_CTL_BRANCHEN | PT_CTL_USER;
	c.mode = mode;
	c.buffer_size = SIZE;
	return ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &c);
}

int main(void)
{
	struct pt_trace_status st = { .size = sizeof(st) };
	struct pt_trace_caps caps = { .size = sizeof(caps) };
	struct ptt_packet_stats ps = { 0 };
	char states[128];
	static char rbuf[SIZE];
	struct timespec ts;
	__u64 got = 0;
	__u8 *map;
	ssize_t n;
	int fd, r;
	/* Since load; an earlier test in this VM may have added some. */
	long long msr0 = ptt_read_ll("/sys/kernel/debug/pt_trace/msr_faults");

	if (access(PM_TEST, W_OK) || ptt_read_str(PM_STATE, states,
						  sizeof(states)) ||
	    !strstr(states, "freeze"))
		SKIP("no suspend test mode (CONFIG_PM_DEBUG, suspend to idle)");
	REQUIRE(ptt_pin_cpu(0) == 0, "pin");
	fd = ptt_open_cpu(0, O_RDONLY | O_NONBLOCK);
	REQUIRE(fd >= 0, "open: %s", strerror(errno));
	REQUIRE(ioctl(fd, PT_TRACE_IOC_GET_CAPS, &caps) == 0, "caps");

	/* Flight recorder: stopped by the suspend, the trace still decodes. */
	REQUIRE(configure(fd, PT_MODE_FLIGHT) == 0, "config: %s",
		strerror(errno));
	REQUIRE(ioctl(fd, PT_TRACE_IOC_START) == 0, "start: %s",
		strerror(errno));
	if (!spin(fd, 50)) {
		ioctl(fd, PT_TRACE_IOC_STOP);
		SKIP("the model wrote no trace");
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	r = suspend_cycle();
	if (r) {
		ioctl(fd, PT_TRACE_IOC_STOP);
		SKIP("suspend test cycle failed: %s", strerror(-r));
	}
	REQUIRE(ioctl(fd, PT_TRACE_IOC_GET_STATUS, &st) == 0, "status");
	CHECK(!(st.flags & PT_STATUS_RUNNING), "still running after a suspend");
	/* When the driver stopped it, for a recorder's gap record. */
	CHECK(st.driver_stop_ns >= ts.tv_sec * 1000000000ULL + ts.tv_nsec &&
	      st.driver_stop_tsc, "driver_stop %llu/%llu after a suspend",
	      (unsigned long long)st.driver_stop_ns,
	      (unsigned long long)st.driver_stop_tsc);
	CHECK(!(st.flags & PT_STATUS_HW_ERROR), "hw error");
	CHECK(st.head > 0 && st.offset < SIZE, "head %llu offset %llu",
	      (unsigned long long)st.head, (unsigned long long)st.offset);
	printf("PTT-INFO flight: head %llu flags %#x\n",
	       (unsigned long long)st.head, st.flags);
	CHECK(ioctl(fd, PT_TRACE_IOC_STOP) == 0, "stop after suspend: %s",
	      strerror(errno));
	map = mmap(NULL, SIZE, PROT_READ, MAP_SHARED, fd, 4096);
	REQUIRE(map != MAP_FAILED, "mmap: %s", strerror(errno));
	CHECK(ptt_decode_packets(map, st.flags & PT_STATUS_WRAPPED ? SIZE :
				 st.offset, &ps) == 0 && ps.errors == 0,
	      "decode: psb %llu errors %llu", (unsigned long long)ps.psb,
	      (unsigned long long)ps.errors);
	munmap(map, SIZE);

	/* After the resume START works again. */
	CHECK(ioctl(fd, PT_TRACE_IOC_START) == 0, "start after resume: %s",
	      strerror(errno));
	CHECK(ioctl(fd, PT_TRACE_IOC_STOP) == 0, "stop");

	/* Streaming: the reader drains what was written, then end of file. */
	if (caps.flags & PT_CAP_TOPA) {
		REQUIRE(configure(fd, PT_MODE_STREAM) == 0, "stream config: %s",
			strerror(errno));
		REQUIRE(ioctl(fd, PT_TRACE_IOC_START) == 0, "stream start: %s",
			strerror(errno));
		spin(fd, 2);
		r = suspend_cycle();
		CHECK(r == 0, "second suspend test cycle: %s", strerror(-r));
		while ((n = read(fd, rbuf, sizeof(rbuf))) > 0)
			got += n;
		CHECK(n == 0, "stream after suspend: read %zd (%s), want EOF",
		      n, n < 0 ? strerror(errno) : "");
		printf("PTT-INFO stream: %llu bytes drained\n",
		       (unsigned long long)got);
	}
	close(fd);
	CHECK(ptt_read_ll("/sys/kernel/debug/pt_trace/msr_faults") == msr0,
	      "driver MSR faults");
	return ptt_done();
}
