// SPDX-License-Identifier: GPL-2.0
/*
 * The reservation against perf's intel_pt (ownership.c), run for real
 * against the model's exclusive "intel_pt" PMU (model/perf_pmu.c), which
 * stands in for perf's with the same perf core rules:
 *  - the driver found the PMU's type in sysfs and reserved every CPU:
 *    a CPU-wide event on any CPU, or a per-task one, gets EBUSY;
 *  - a CPU taken offline and back is reserved again (perf drops events
 *    of an offline CPU: without a new reservation a CPU-wide event would
 *    install there);
 *  - a perf event present when the driver loads: the load says perf is
 *    in use, START there fails with EBUSY naming perf, and works once
 *    that event is closed (and ownership says reserved again); a read()
 *    of a fresh open there (which starts streaming) fails with EBUSY and
 *    leaves the staged configuration as it was;
 *    unloading the driver frees the PMU for perf.
 * Profile-independent: run on icl only.
 */
#include <linux/perf_event.h>
#include <sys/syscall.h>

#include "coexist_common.h"

#define PMU_TYPE "/sys/bus/event_source/devices/intel_pt/type"
#define OWNERSHIP "/sys/kernel/pt_trace/ownership"

static int perf_open(int type, pid_t pid, int cpu)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.type = type;
	attr.size = sizeof(attr);
	return syscall(SYS_perf_event_open, &attr, pid, cpu, -1, 0);
}

/* A perf event of @type on @cpu (or per task when @cpu < 0) is refused. */
static void want_busy(int type, int cpu, const char *when)
{
	int fd = perf_open(type, cpu < 0 ? 0 : -1, cpu);

	CHECK(fd < 0 && errno == EBUSY,
	      "%s: perf intel_pt event on %s %d: %s (want EBUSY)", when,
	      cpu < 0 ? "task, cpu" : "cpu", cpu,
	      fd < 0 ? strerror(errno) : "installed");
	if (fd >= 0)
		close(fd);
}

static int set_online(int cpu, int on)
{
	char path[96];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online",
		 cpu);
	return ptt_write_str(path, on ? "1" : "0");
}

/*
 * read() of a fresh open of /dev/ptCPU (it starts streaming) with a
 * flight configuration staged: -1 with *err, else what it returned; and
 * whether the staged mode was still flight after it.
 */
static ssize_t read_fresh(int cpu, int *err, int *flight_after)
{
	struct pt_trace_config cfg;
	char path[32], buf[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/dev/pt%d", cpu);
	fd = open(path, O_RDONLY | O_NONBLOCK);
	REQUIRE(fd >= 0, "open %s: %s", path, strerror(errno));
	memset(&cfg, 0, sizeof(cfg));
	cfg.size = sizeof(cfg);
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_GET_CONFIG, &cfg), "GET_CONFIG: %s",
		strerror(errno));
	cfg.mode = PT_MODE_FLIGHT;
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &cfg), "SET_CONFIG: %s",
		strerror(errno));
	n = read(fd, buf, sizeof(buf));
	*err = errno;
	memset(&cfg, 0, sizeof(cfg));
	cfg.size = sizeof(cfg);
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_GET_CONFIG, &cfg), "GET_CONFIG: %s",
		strerror(errno));
	*flight_after = cfg.mode == PT_MODE_FLIGHT;
	close(fd);
	return n;
}

static int start_stop(int cpu, int *err)
{
	struct pt_trace_caps caps;
	int fd = st_setup(cpu, 1u << 20, 8u * 1024, 0, &caps), ret;

	ret = ioctl(fd, PT_TRACE_IOC_START);
	*err = errno;
	if (!ret)
		CHECK(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s",
		      strerror(errno));
	close(fd);
	return ret;
}

int main(void)
{
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN), type, cpu, fd, err;
	char own[256] = "";
	long mark;

	if (strcmp(getenv("PTT_PROFILE") ? getenv("PTT_PROFILE") : "icl",
		   "icl"))
		SKIP("profile-independent: run on icl");
	type = ptt_read_ll(PMU_TYPE);
	REQUIRE(type > 0, "no %s: the model registers it (model_perf_pmu)",
		PMU_TYPE);
	ptt_read_str(OWNERSHIP, own, sizeof(own));
	printf("PTT-INFO intel_pt type %d, ownership: %s\n", type, own);
	CHECK(strstr(own, "reserved through perf"), "ownership: %s", own);

	for (cpu = 0; cpu < ncpu; cpu++)
		want_busy(type, cpu, "loaded");
	want_busy(type, -1, "loaded");

	if (ncpu > 1) {
		REQUIRE(!set_online(1, 0), "offline CPU 1");
		REQUIRE(!set_online(1, 1), "online CPU 1");
		want_busy(type, 1, "CPU 1 back online");
		CHECK(!start_stop(1, &err), "START on CPU 1 back online: %s",
		      strerror(err));
	}

	/* Without the driver, perf has the PMU. */
	REQUIRE(!system("rmmod pt_trace"), "rmmod pt_trace");
	fd = perf_open(type, -1, 0);
	CHECK(fd >= 0, "perf event on CPU 0 without the driver: %s",
	      strerror(errno));
	mark = cx_log_mark();
	REQUIRE(!system("ptt-insmod /ptt/pt_trace.ko backend=model"),
		"loading pt_trace again");
	if (fd >= 0) {
		ptt_read_str(OWNERSHIP, own, sizeof(own));
		CHECK(strstr(own, "perf's intel_pt is in use"),
		      "ownership with perf's event on CPU 0: %s", own);
		CHECK(start_stop(0, &err) && err == EBUSY,
		      "START on CPU 0 while perf holds it: %s (want EBUSY)",
		      strerror(err));
		CHECK(cx_log_has(mark, "end that perf session"),
		      "no log line naming perf");
		/*
		 * `cat /dev/pt0` there: the START of a read() on a fresh
		 * open fails the read (it ended at once, as an empty
		 * stream), and the mode staged stays (it stayed streaming).
		 */
		{
			int flight;
			ssize_t n = read_fresh(0, &err, &flight);

			CHECK(n < 0 && err == EBUSY,
			      "read() of a fresh /dev/pt0 while perf holds it: %zd, %s (want EBUSY)",
			      n, n < 0 ? strerror(err) : "no error");
			CHECK(flight, "the staged flight mode was changed by that read()");
		}
		if (ncpu > 1)
			CHECK(!start_stop(1, &err), "START on CPU 1: %s",
			      strerror(err));
		close(fd);
	}
	CHECK(!start_stop(0, &err), "START on CPU 0 after perf closed: %s",
	      strerror(err));
	want_busy(type, 0, "after START");
	ptt_read_str(OWNERSHIP, own, sizeof(own));
	CHECK(strstr(own, "reserved through perf"),
	      "ownership once CPU 0 is reserved again: %s", own);
	return ptt_done();
}
