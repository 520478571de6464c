// SPDX-License-Identifier: GPL-2.0
/*
 * bts_perf (issue 15): /dev/btsN and perf's intel_bts PMU
 * (ownership_bts.c), run against the model's exclusive "intel_bts" PMU
 * (model/perf_pmu.c), which stands in for perf's with perf core's rules:
 *  - with no BTS device started, perf may open intel_bts events;
 *  - from a START on cpu0 to the device's last close, a CPU-wide
 *    intel_bts event on cpu0 and a per-task one get EBUSY, and one on
 *    cpu1 is allowed (cpu1's BTS is not in use);
 *  - after the close perf may open them again;
 *  - while perf holds a CPU-wide intel_bts event on cpu0, START there
 *    fails with EBUSY (the log names perf), and works once it is closed.
 * Kernel branches only, so it runs under PTI; icl only.
 * Exit 0 pass, 77 skip, 1 fail.
 */
#include <linux/perf_event.h>
#include <sys/syscall.h>

#include "bts_common.h"

#define PMU_TYPE "/sys/bus/event_source/devices/intel_bts/type"

static int perf_open(int type, pid_t pid, int cpu)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.type = type;
	attr.size = sizeof(attr);
	attr.disabled = 1;
	return syscall(SYS_perf_event_open, &attr, pid, cpu, -1, 0);
}

/* A perf intel_bts event on @cpu (per task when @cpu < 0): @busy or not. */
static void want(int type, int cpu, int busy, const char *when)
{
	int fd = perf_open(type, cpu < 0 ? 0 : -1, cpu);

	if (busy)
		CHECK(fd < 0 && errno == EBUSY,
		      "%s: intel_bts event on %s %d: %s (should be EBUSY)", when,
		      cpu < 0 ? "task, cpu" : "cpu", cpu,
		      fd < 0 ? strerror(errno) : "installed");
	else
		CHECK(fd >= 0, "%s: intel_bts event on %s %d: %s", when,
		      cpu < 0 ? "task, cpu" : "cpu", cpu, strerror(errno));
	if (fd >= 0)
		close(fd);
}

static int bts_start_cpu0(int *fd)
{
	*fd = bts_open(0, O_RDWR);
	REQUIRE(*fd >= 0, "open /dev/bts0: %s", strerror(errno));
	REQUIRE(!bts_config(*fd, PT_CTL_OS, PT_MODE_FLIGHT, 64 << 10, 0),
		"SET_CONFIG: %s", strerror(errno));
	return ioctl(*fd, PT_TRACE_IOC_START) ? -errno : 0;
}

int main(void)
{
	const char *prof = getenv("PTT_PROFILE") ? getenv("PTT_PROFILE") : "icl";
	long long type;
	int fd, perf, err;

	if (strcmp(prof, "icl"))
		SKIP("bts_perf runs on icl");
	bts_require();
	type = ptt_read_ll(PMU_TYPE);
	REQUIRE(type > 0, "no %s: the model registers an intel_bts PMU", PMU_TYPE);

	want(type, 0, 0, "before START");
	want(type, -1, 0, "before START");
	err = bts_start_cpu0(&fd);
	CHECK(!err, "START: %s", strerror(-err));
	want(type, 0, 1, "started");
	want(type, -1, 1, "started");
	if (sysconf(_SC_NPROCESSORS_ONLN) > 1)
		want(type, 1, 0, "cpu0 started");
	CHECK(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	want(type, 0, 1, "stopped, still open");
	close(fd);
	want(type, 0, 0, "closed");
	want(type, -1, 0, "closed");

	perf = perf_open(type, -1, 0);
	REQUIRE(perf >= 0, "intel_bts event on cpu0: %s", strerror(errno));
	err = bts_start_cpu0(&fd);
	CHECK(err == -EBUSY, "START with perf's intel_bts event on cpu0: %s (want EBUSY)",
	      err ? strerror(-err) : "started");
	close(fd);
	close(perf);
	err = bts_start_cpu0(&fd);
	CHECK(!err, "START after perf's event was closed: %s", strerror(-err));
	ioctl(fd, PT_TRACE_IOC_STOP);
	close(fd);
	return ptt_done();
}
