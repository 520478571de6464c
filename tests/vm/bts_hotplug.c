// SPDX-License-Identifier: GPL-2.0
/*
 * bts_hotplug (issue 15): /dev/bts1 follows CPU 1 (the VM has 2 CPUs;
 * this test runs on CPU 0).  Taking CPU 1 offline while it streams
 * stops its trace as STOP would: the reader gets the rest, then EOF; the
 * status says PT_STATUS_CPU_OFFLINE and not RUNNING; /dev/bts1 goes away
 * (an open file stays usable) and comes back with the CPU, where START
 * and STOP work again.  DEBUGCTL has no BTS bit on CPU 1 after it came
 * back.  The START after the online reserves perf's intel_bts on CPU 1
 * again (the offline dropped the reservation from perf's context, and
 * a reservation kept across STOP and START must not be that stale one):
 * a CPU-wide intel_bts event there gets EBUSY.
 */
#include <linux/perf_event.h>
#include <sys/syscall.h>

#include "bts_common.h"

#define ONLINE	"/sys/devices/system/cpu/cpu1/online"
#define PMU_TYPE "/sys/bus/event_source/devices/intel_bts/type"

/* A CPU-wide perf intel_bts event on CPU 1 (the model's PMU): EBUSY? */
static void want_reserved(void)
{
	struct perf_event_attr attr;
	long long type = ptt_read_ll(PMU_TYPE);
	int p;

	if (type <= 0)
		return;
	memset(&attr, 0, sizeof(attr));
	attr.type = type;
	attr.size = sizeof(attr);
	attr.disabled = 1;
	p = syscall(SYS_perf_event_open, &attr, -1, 1, -1, 0);
	CHECK(p < 0 && errno == EBUSY,
	      "START after online: perf's intel_bts event on CPU 1: %s (should be EBUSY)",
	      p < 0 ? strerror(errno) : "installed");
	if (p >= 0)
		close(p);
}

static unsigned char out[4 << 20];

int main(void)
{
	struct pt_trace_status st;
	unsigned long long dbg, ds;
	size_t len = 0;
	ssize_t n;
	int fd, i;

	bts_require();
	if (access(ONLINE, W_OK))
		SKIP("CPU 1 cannot go offline here");
	ptt_pin_cpu(0);
	fd = bts_open(1, O_RDWR | O_NONBLOCK);
	REQUIRE(!bts_config(fd, PT_CTL_OS, PT_MODE_STREAM, 64 << 10, 0),
		"SET_CONFIG: %s", strerror(errno));
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	usleep(300 * 1000);
	REQUIRE(!ptt_write_str(ONLINE, "0"), "offline CPU 1");
	for (i = 0; i < 100; i++) {
		n = read(fd, out + len, sizeof(out) - len);
		if (n <= 0)
			break;
		len += n;
	}
	CHECK(n == 0, "read after offline: %zd (%s), want EOF", n,
	      n < 0 ? strerror(errno) : "data");
	bts_status(fd, &st);
	printf("PTT-INFO read %zu bytes before EOF, flags %#x\n", len, st.flags);
	CHECK(st.flags & PT_STATUS_CPU_OFFLINE, "flags %#x: not CPU_OFFLINE",
	      st.flags);
	CHECK(!(st.flags & PT_STATUS_RUNNING), "flags %#x: RUNNING", st.flags);
	CHECK(access("/dev/bts1", F_OK), "/dev/bts1 with CPU 1 offline");
	CHECK(ioctl(fd, PT_TRACE_IOC_START) < 0 && errno == ENODEV,
	      "START offline: %s", strerror(errno));
	REQUIRE(!ptt_write_str(ONLINE, "1"), "online CPU 1");
	for (i = 0; i < 50 && access("/dev/bts1", F_OK); i++)
		usleep(100 * 1000);
	CHECK(!access("/dev/bts1", F_OK), "/dev/bts1 not back");
	bts_status(fd, &st);
	CHECK(!(st.flags & PT_STATUS_CPU_OFFLINE), "flags %#x after online",
	      st.flags);
	CHECK(!ioctl(fd, PT_TRACE_IOC_START), "START after online: %s",
	      strerror(errno));
	want_reserved();
	usleep(100 * 1000);
	CHECK(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	REQUIRE(!bts_model_regs(1, &dbg, &ds), "model detail");
	CHECK(!(dbg & 0x7c0), "CPU 1 DEBUGCTL %#llx after STOP", dbg);
	close(fd);
	return ptt_done();
}
