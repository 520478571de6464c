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
 *    fails with EBUSY (the log names perf), and works once it is closed;
 *  - a START repeated on a running device (EBUSY) never opens a window
 *    in which perf gets cpu0's intel_bts: 2 s of repeated STARTs beside
 *    perf_event_open() in a loop (before the fix each START gave the
 *    reservation up and took a new one);
 *  - STOP and START again on the still-open device never open one
 *    either: 2 s of STOP/START beside perf_event_open() (CPU-wide on
 *    cpu0 and per task) in a loop; every START works and perf gets
 *    nothing (issue 10: before the fix each START released the
 *    reservation and created it again).
 * Kernel branches only, so it runs under PTI; icl only.
 * Exit 0 pass, 77 skip, 1 fail.
 */
#include <linux/perf_event.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>

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

static int restart_fd, restart_stop;
static long restarts, restart_other;

/* START on the running device, over and over: EBUSY each time. */
static void *restarter(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&restart_stop, __ATOMIC_RELAXED)) {
		if (ioctl(restart_fd, PT_TRACE_IOC_START) && errno != EBUSY)
			restart_other++;
		restarts++;
	}
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Perf's intel_bts on cpu0 while STARTs are refused on the running device. */
static void restart_race(int type, int fd)
{
	long opens = 0, got = 0;
	pthread_t t;
	double t0;

	restart_fd = fd;
	REQUIRE(!pthread_create(&t, NULL, restarter, NULL), "thread");
	for (t0 = now_s(); now_s() - t0 < 2; opens++) {
		int p = perf_open(type, -1, 0);

		if (p >= 0) {
			got++;
			close(p);
		}
	}
	__atomic_store_n(&restart_stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	CHECK(!got, "running: perf got cpu0's intel_bts %ld of %ld times beside %ld refused STARTs",
	      got, opens, restarts);
	CHECK(!restart_other, "START on the running device: %ld errors other than EBUSY",
	      restart_other);
	printf("restart race: %ld STARTs, %ld perf opens, %ld installed\n",
	       restarts, opens, got);
}

static int perf_stop;
static int perf_type;
static long perf_opens, perf_got;

/* perf_event_open() of intel_bts, CPU-wide on cpu0 and per task in turn. */
static void *perf_opener(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&perf_stop, __ATOMIC_RELAXED)) {
		int p = perf_open(perf_type, perf_opens & 1 ? 0 : -1,
				  perf_opens & 1 ? -1 : 0);

		if (p >= 0) {
			__atomic_add_fetch(&perf_got, 1, __ATOMIC_RELAXED);
			close(p);
		}
		perf_opens++;
	}
	return NULL;
}

/* STOP and START on the open device while perf tries to get intel_bts. */
static void stop_start_race(int type, int fd)
{
	long cycles = 0, failed = 0;
	int first_err = 0;
	pthread_t t;
	double t0;

	perf_type = type;
	REQUIRE(!pthread_create(&t, NULL, perf_opener, NULL), "thread");
	for (t0 = now_s(); now_s() - t0 < 2; cycles++) {
		if (ioctl(fd, PT_TRACE_IOC_STOP))
			failed++;
		if (ioctl(fd, PT_TRACE_IOC_START)) {
			if (!first_err)
				first_err = errno;
			failed++;
		}
	}
	__atomic_store_n(&perf_stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	CHECK(!perf_got, "STOP/START: perf got intel_bts %ld of %ld times in %ld cycles",
	      perf_got, perf_opens, cycles);
	CHECK(!failed, "STOP/START: %ld of %ld cycles failed (first: %s)",
	      failed, cycles, strerror(first_err));
	printf("stop/start race: %ld cycles, %ld perf opens, %ld installed\n",
	       cycles, perf_opens, perf_got);
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
	if (!err)
		restart_race(type, fd);
	if (!err)
		stop_start_race(type, fd);
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
