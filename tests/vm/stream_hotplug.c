// SPDX-License-Identifier: GPL-2.0
/*
 * CPU hotplug while streaming /dev/pt1 (the VM has 2 CPUs; this test
 * runs on CPU 0).  The documented behaviour (Documentation/abi.rst):
 * taking the CPU offline stops its trace as STOP would, so
 *  - a reader blocked in read(2) gets the rest of the data, then EOF;
 *  - a gap open at that moment (the ring was full) is closed as a loss
 *    record, like at STOP, with every byte the model could not write
 *    (when the records say PT_LOSS_BYTES_KNOWN);
 *  - the status and the control page say PT_STATUS_CPU_OFFLINE, not
 *    RUNNING; START fails with ENODEV; poll says POLLHUP; the mapping
 *    stays valid and holds what was read;
 * and once the CPU is back the flag clears and START/STOP work again
 * (a new generation).  No kernel warning (the runner scans dmesg), no
 * modelled #GP, no faulting MSR access.
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "stream_common.h"
#include "stream_wd.h"

#define ONLINE	"/sys/devices/system/cpu/cpu1/online"
#define BUF	(256u << 10)
#define CAP	(32u << 20)

static int fd;
static unsigned char *out;
static size_t len;
static ssize_t last_ret;
static int last_errno;

static int cpu1_set(int on)
{
	FILE *f = fopen(ONLINE, "w");

	if (!f)
		return -1;
	fputs(on ? "1" : "0", f);
	return fclose(f);
}

static void cpu1_back(void)
{
	cpu1_set(1);
}

/* A blocking reader: until EOF or an error. */
static void *reader(void *arg)
{
	ssize_t n;

	(void)arg;
	do {
		n = st_read(fd, out, &len, CAP);
	} while (n > 0);
	last_ret = n;
	last_errno = n < 0 ? errno : 0;
	return NULL;
}

static void wait_for(size_t bytes)
{
	double t0 = st_now();

	while (__atomic_load_n(&len, __ATOMIC_RELAXED) < bytes &&
	       st_now() - t0 < 10.0)
		usleep(10 * 1000);
}

/* The stream in the mapping matches what read(2) returned. */
static void check_mapping(const struct pt_trace_mmap_page *pg,
			  const unsigned char *data, const char *when)
{
	unsigned long long head = pg->data_head, n, i;

	n = head < BUF ? head : BUF;
	CHECK(head == len, "%s: data_head %llu, read %zu", when, head, len);
	for (i = head - n; i < head && head == len; i++)
		if (data[i % BUF] != out[i]) {
			CHECK(0, "%s: mapping differs at %llu", when, i);
			break;
		}
}

static unsigned long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void expect_offline(const struct pt_trace_mmap_page *pg,
			   const unsigned char *data, const char *when)
{
	struct pt_trace_status st;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t n;

	st_status(fd, &st);
	CHECK(st.flags & PT_STATUS_CPU_OFFLINE, "%s: status flags %#x", when,
	      st.flags);
	CHECK(!(st.flags & (PT_STATUS_RUNNING | PT_STATUS_HW_STOPPED)),
	      "%s: still running or in a gap: %#x", when, st.flags);
	CHECK(pg->flags & PT_STATUS_CPU_OFFLINE, "%s: control page flags %#x",
	      when, pg->flags);
	CHECK(ioctl(fd, PT_TRACE_IOC_START) < 0 && errno == ENODEV,
	      "%s: START on an offline CPU: %s", when, strerror(errno));
	n = read(fd, out, 16);
	CHECK(n == 0, "%s: read after the end: %zd", when, n);
	CHECK(poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLHUP),
	      "%s: poll %#x", when, pfd.revents);
	CHECK(st.head == len, "%s: head %llu, read %zu", when,
	      (unsigned long long)st.head, len);
	CHECK(access("/dev/pt1", F_OK) != 0, "%s: /dev/pt1 still there", when);
	check_mapping(pg, data, when);
	printf("PTT-INFO %s: read %zu, records %llu, lost_bytes %llu, pmis %llu\n",
	       when, len, (unsigned long long)st.loss_records,
	       (unsigned long long)st.lost_bytes,
	       (unsigned long long)st.pmis);
}

static void expect_online(const struct pt_trace_mmap_page *pg, const char *when)
{
	struct pt_trace_status st;

	st_status(fd, &st);
	CHECK(!(st.flags & PT_STATUS_CPU_OFFLINE), "%s: status flags %#x",
	      when, st.flags);
	CHECK(!(pg->flags & PT_STATUS_CPU_OFFLINE),
	      "%s: control page flags %#x", when, pg->flags);
	CHECK(access("/dev/pt1", F_OK) == 0, "%s: no /dev/pt1", when);
}

int main(void)
{
	struct pt_trace_mmap_page *pg;
	struct ptt_packet_stats ps;
	struct pt_trace_status st;
	struct pt_trace_caps caps;
	const unsigned char *data;
	unsigned long long gen, recs;
	long long lost0, lost1;
	unsigned long long off0, off1, stop1;
	pthread_t th;
	void *map;
	double t0;

	if (access(ONLINE, W_OK))
		SKIP("no CPU hotplug for cpu1");
	out = malloc(CAP);
	REQUIRE(out, "malloc");
	ptt_pin_cpu(0);
	atexit(cpu1_back);
	fd = st_setup(1, BUF, 32 << 10, 0, &caps);
	map = mmap(NULL, 4096 + BUF, PROT_READ, MAP_SHARED, fd, 0);
	REQUIRE(map != MAP_FAILED, "mmap: %s", strerror(errno));
	pg = map;
	data = (const unsigned char *)map + pg->data_offset;

	/* 1. A reader blocked in read(2) when the CPU goes. */
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	gen = pg->generation;
	REQUIRE(!pthread_create(&th, NULL, reader, NULL), "pthread_create");
	wait_for(4096);
	CHECK(len > 0, "data before the offline");
	st_status(fd, &st);
	CHECK(!st.driver_stop_ns && !st.driver_stop_tsc,
	      "driver_stop %llu/%llu before any", (unsigned long long)st.driver_stop_ns,
	      (unsigned long long)st.driver_stop_tsc);
	off0 = mono_ns();
	REQUIRE(!cpu1_set(0), "offline cpu1: %s", strerror(errno));
	off1 = mono_ns();
	pthread_join(th, NULL);
	CHECK(last_ret == 0, "the reader ends with EOF: %zd (%s)", last_ret,
	      strerror(last_errno));
	expect_offline(pg, data, "offline while reading");
	/* GET_STATUS says when the driver stopped it: inside the offline. */
	st_status(fd, &st);
	CHECK(st.size >= PT_TRACE_STATUS_SIZE_VER2 && st.driver_stop_ns >= off0 &&
	      st.driver_stop_ns <= off1 && st.driver_stop_tsc,
	      "driver_stop_ns %llu not in the offline [%llu, %llu], tsc %llu",
	      (unsigned long long)st.driver_stop_ns, off0, off1,
	      (unsigned long long)st.driver_stop_tsc);
	stop1 = st.driver_stop_ns;
	REQUIRE(!cpu1_set(1), "online cpu1: %s", strerror(errno));
	expect_online(pg, "back online");

	/* 2. START works again; then the CPU goes while the ring is full. */
	len = 0;
	lost0 = st_model("lost_bytes");
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START after online: %s",
		strerror(errno));
	CHECK(pg->generation == gen + 1, "generation %llu after %llu",
	      (unsigned long long)pg->generation, gen);
	/* Nobody reads: the ring fills and a gap opens. */
	t0 = st_now();
	do {
		usleep(20 * 1000);
		st_status(fd, &st);
	} while (!(st.flags & PT_STATUS_HW_STOPPED) && st_now() - t0 < 10.0);
	CHECK(st.flags & PT_STATUS_HW_STOPPED, "a gap opened: flags %#x",
	      st.flags);
	recs = st.loss_records;
	REQUIRE(!cpu1_set(0), "offline cpu1: %s", strerror(errno));
	lost1 = st_model("lost_bytes");
	st_status(fd, &st);
	CHECK(st.loss_records == recs + 1,
	      "the open gap is closed as a record: %llu then %llu", recs,
	      (unsigned long long)st.loss_records);
	if (st.loss_records) {
		const struct pt_trace_loss *l = (const void *)((char *)pg +
			pg->loss_offset + ((st.loss_records - 1) %
					   pg->loss_slots) * sizeof(*l));

		CHECK(l->pos == st.head, "the last gap at the end: %llu, head %llu",
		      (unsigned long long)l->pos,
		      (unsigned long long)st.head);
		/* What the model lost until the offline is in the records. */
		if (l->flags & PT_LOSS_BYTES_KNOWN)
			CHECK((long long)st.lost_bytes == lost1 - lost0,
			      "records say %llu bytes lost, the model %lld",
			      (unsigned long long)st.lost_bytes,
			      lost1 - lost0);
	}
	while (st_read(fd, out, &len, CAP) > 0)
		;
	expect_offline(pg, data, "offline while stalled");
	st_status(fd, &st);
	CHECK(st.driver_stop_ns > stop1, "the second offline's stop %llu, the first's %llu",
	      (unsigned long long)st.driver_stop_ns, stop1);
	stop1 = st.driver_stop_ns;
	REQUIRE(!cpu1_set(1), "online cpu1: %s", strerror(errno));
	expect_online(pg, "back online again");

	/* 3. A clean session after it all: keeps up, decodes. */
	len = 0;
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	REQUIRE(!pthread_create(&th, NULL, reader, NULL), "pthread_create");
	wait_for(64 << 10);
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	pthread_join(th, NULL);
	CHECK(last_ret == 0, "EOF after STOP: %zd (%s)", last_ret,
	      strerror(last_errno));
	st_status(fd, &st);
	CHECK(st.head == len, "head %llu, read %zu",
	      (unsigned long long)st.head, len);
	CHECK(st.driver_stop_ns == stop1, "a STOP of ours moved driver_stop_ns: %llu, was %llu",
	      (unsigned long long)st.driver_stop_ns, stop1);
	check_mapping(pg, data, "after the last session");
	if (!st.loss_records) {
		REQUIRE(ptt_decode_packets(out, len, &ps) == 0, "no PSB");
		CHECK(ps.errors == 0, "%llu decode errors",
		      (unsigned long long)ps.errors);
	}
	printf("PTT-INFO last session: read %zu, records %llu\n", len,
	       (unsigned long long)st.loss_records);
	CHECK(ptt_read_ll("/sys/kernel/debug/pt_trace/msr_faults") == 0,
	      "faulting MSR accesses");
	CHECK(st_model("gp_faults") == 0, "modelled #GP");

	ST_CHECK_NO_WATCHDOG(1);
	st_restore_model();
	munmap(map, 4096 + BUF);
	close(fd);
	free(out);
	return ptt_done();
}
