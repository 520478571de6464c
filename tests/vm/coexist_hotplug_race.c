// SPDX-License-Identifier: GPL-2.0
/*
 * CPU hotplug racing a session's setup and teardown (issue 10).  One
 * thread takes CPU 1 offline and online again as fast as it can, for
 * 3 s and at least 8 times (10 s at most); the other opens /dev/pt1,
 * configures (flight, streaming, or streaming with a reader's
 * watermark), maps the control page and the
 * data, STARTs, reads, asks the status, and STOPs or just closes (the
 * release stops), over and over.  The cpuhp callbacks (core.c, the
 * devices' in chardev.c, ownership.c) then run at every point of open,
 * ioctl, mmap, read and close.
 *
 * Allowed: open fails with ENOENT/ENXIO (/dev/pt1 goes away with the
 * CPU), START with ENODEV (the CPU is offline).  Anything else fails,
 * and so does any kernel warning, lockdep splat or KASAN report (the
 * runner scans the log; the debug kernel is where this counts), a
 * faulting MSR access or a modelled #GP.  At the end, with CPU 1 back, a
 * new session starts and stops normally.
 *
 * icl only: the paths raced are above the hw ops.
 */
#include <pthread.h>
#include <sys/mman.h>

#include "stream_common.h"

#define ONLINE	"/sys/devices/system/cpu/cpu1/online"
/* 3 s and at least 8 cycles (the debug kernel takes ~0.7 s a cycle). */
#define RUN_S	3.0
#define MIN_CYCLES	8
#define MAX_S	10.0
#define BUF	(64u << 10)

static int stop_flag;	/* __atomic: the two threads share it */
static unsigned long cycles, hp_fail, opened;

/* Offline, online, until told to stop; CPU 1 is online when it returns. */
static void *hotplug(void *arg)
{
	(void)arg;
	ptt_pin_cpu(0);
	while (!__atomic_load_n(&stop_flag, __ATOMIC_RELAXED)) {
		if (ptt_write_str(ONLINE, "0"))
			hp_fail++;
		if (ptt_write_str(ONLINE, "1"))
			hp_fail++;
		cycles++;
		/* Sessions open while it is up, and race its going down. */
		usleep(10000);
	}
	return NULL;
}

/* Success or an errno the race explains; else a failure (10 shown). */
static int allowed(int ok, int err, const char *what, int e1, int e2)
{
	static int reported;

	if (ok || err == e1 || err == e2)
		return 1;
	if (reported++ < 10)
		CHECK(0, "%s: %s", what, strerror(err));
	else
		ptt_failures++;
	return 0;
}

/* One session; returns 1 when it STARTed. */
static int session(unsigned long i)
{
	struct pt_trace_config cfg = { .size = sizeof(cfg) };
	struct pt_trace_status st = { .size = sizeof(st) };
	static unsigned char out[BUF];
	size_t maplen = 4096 + BUF;
	int fd, started = 0, r;
	void *map;

	fd = ptt_open_cpu(1, O_RDWR | O_NONBLOCK);
	if (fd < 0) {
		allowed(0, errno, "open", ENOENT, ENXIO);
		usleep(1000);
		return 0;
	}
	opened++;
	cfg.ctl = PT_CTL_BRANCHEN | PT_CTL_USER | PT_CTL_OS;
	cfg.mode = i % 3 ? PT_MODE_STREAM : PT_MODE_FLIGHT;
	cfg.buffer_size = BUF;
	cfg.watermark = i % 3 == 2 ? 4096 : 0;
	r = ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &cfg);
	allowed(!r, errno, "SET_CONFIG", 0, 0);
	/* Half the sessions map before START (the buffer is made here). */
	map = MAP_FAILED;
	if (i & 1) {
		map = mmap(NULL, maplen, PROT_READ, MAP_SHARED, fd, 0);
		allowed(map != MAP_FAILED, errno, "mmap", 0, 0);
	}
	r = ioctl(fd, PT_TRACE_IOC_START);
	if (allowed(!r, errno, "START", ENODEV, ENODEV) && !r)
		started = 1;
	if (map == MAP_FAILED) {
		map = mmap(NULL, maplen, PROT_READ, MAP_SHARED, fd, 0);
		allowed(map != MAP_FAILED, errno, "mmap", 0, 0);
	}
	if (cfg.mode == PT_MODE_STREAM) {
		r = read(fd, out, sizeof(out));
		/* ENODEV: a read after a failed START starts (abi.rst). */
		allowed(r >= 0, errno, "read", EAGAIN, ENODEV);
	}
	r = ioctl(fd, PT_TRACE_IOC_GET_STATUS, &st);
	allowed(!r, errno, "GET_STATUS", 0, 0);
	/* Every fourth: closed while it runs, the mapping after the file. */
	if (i % 4 != 3) {
		r = ioctl(fd, PT_TRACE_IOC_STOP);
		allowed(!r, errno, "STOP", 0, 0);
		if (map != MAP_FAILED)
			munmap(map, maplen);
		close(fd);
	} else {
		close(fd);
		if (map != MAP_FAILED)
			munmap(map, maplen);
	}
	return started;
}

int main(void)
{
	unsigned long i, starts = 0;
	struct pt_trace_status st;
	pthread_t hp;
	double t0;
	int fd;

	if (getenv("PTT_PROFILE") && strcmp(getenv("PTT_PROFILE"), "icl"))
		SKIP("the paths raced are above the hw ops: icl only");
	if (access(ONLINE, W_OK))
		SKIP("CPU 1 cannot go offline here");
	ptt_pin_cpu(0);
	REQUIRE(!pthread_create(&hp, NULL, hotplug, NULL), "pthread_create");
	t0 = st_now();
	for (i = 0; st_now() - t0 < MAX_S; i++) {
		if (st_now() - t0 >= RUN_S &&
		    __atomic_load_n(&cycles, __ATOMIC_RELAXED) >= MIN_CYCLES)
			break;
		starts += session(i);
	}
	__atomic_store_n(&stop_flag, 1, __ATOMIC_RELAXED);
	pthread_join(hp, NULL);
	printf("PTT-INFO %lu sessions (%lu opened, %lu started)", i, opened,
	       starts);
	printf(" against %lu offline/online cycles (%lu writes refused)\n",
	       cycles, hp_fail);
	CHECK(cycles >= 3, "only %lu hotplug cycles", cycles);
	CHECK(starts > 0, "no session started in %lu", i);

	/* CPU 1 is back: a session works as if nothing happened. */
	for (i = 0; i < 50 && access("/dev/pt1", F_OK); i++)
		usleep(20000);
	fd = st_setup(1, BUF, 0, O_NONBLOCK, &(struct pt_trace_caps){ 0 });
	CHECK(!ioctl(fd, PT_TRACE_IOC_START), "START after: %s", strerror(errno));
	st_status(fd, &st);
	CHECK(st.flags & PT_STATUS_RUNNING, "flags %#x: not RUNNING", st.flags);
	CHECK(!(st.flags & PT_STATUS_CPU_OFFLINE), "flags %#x: CPU_OFFLINE",
	      st.flags);
	CHECK(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP after: %s", strerror(errno));
	close(fd);
	CHECK(ptt_read_ll("/sys/kernel/debug/pt_trace/msr_faults") == 0,
	      "faulting MSR accesses");
	CHECK(st_model("gp_faults") == 0, "modelled #GP");
	return ptt_done();
}
