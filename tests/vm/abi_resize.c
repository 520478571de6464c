// SPDX-License-Identifier: GPL-2.0
/*
 * A buffer replaced (SET_CONFIG, SET_BUFSIZE) against everything that
 * looks at it:
 *  1. after a trace in a 1 MiB buffer, STOP and a resize to 64 KiB, the
 *     status and the new control page describe the new, empty buffer
 *     (head and offset 0, no stale WRAPPED), flight and streaming alike;
 *     and after a streaming trace that lost data (a 16 KiB ring nobody
 *     reads), a close and a new open: the next opener's status and
 *     control page show nothing of the last opener's session (loss
 *     records, byte and PMI counts, the ring-full stop);
 *  2. eight threads on one file mix SET_CONFIG, SET_BUFSIZE, START, STOP,
 *     GET_STATUS, mmap, read and poll (1000 resizes and 1000 mappings at
 *     least), and check on every status that offset < buffer_size and
 *     head % buffer_size == offset, and on every mapping that its control
 *     page and the status taken while it is mapped describe the buffer it
 *     maps (a buffer is never replaced under a mapping).  Where CPU 1 can
 *     go offline, the race runs on /dev/pt1 with a ninth thread taking
 *     CPU 1 offline and back, 10 times at least (the trace stops, the
 *     buffer and the file stay).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <linux/pt_trace.h>

#include "ptt_test.h"

#define THREADS	8
#define ONLINE	"/sys/devices/system/cpu/cpu1/online"

static struct pt_trace_caps caps = { .size = sizeof(caps) };
static int fd, stop_all;
static long pg;
static unsigned long long n_status, n_maps, n_resizes;

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* GET_STATUS with the invariant checked; 0 or -1 (errno). */
static int get_status(struct pt_trace_status *st, const char *when)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	if (ioctl(fd, PT_TRACE_IOC_GET_STATUS, st))
		return -1;
	__atomic_add_fetch(&n_status, 1, __ATOMIC_RELAXED);
	CHECK(st->buffer_size && st->offset < st->buffer_size &&
	      st->head % st->buffer_size == st->offset,
	      "%s: status offset %llu head %llu in a %llu-byte buffer", when,
	      (unsigned long long)st->offset, (unsigned long long)st->head,
	      (unsigned long long)st->buffer_size);
	return 0;
}

static void config(unsigned long long size, int mode)
{
	struct pt_trace_config c = { .size = sizeof(c) };

	c.ctl = PT_CTL_BRANCHEN | PT_CTL_USER | PT_CTL_OS;
	c.buffer_size = size;
	c.mode = mode;
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &c), "SET_CONFIG: %s",
		strerror(errno));
}

/* 1. Status and control page after STOP and a resize. */
static void after_resize(int mode)
{
	struct pt_trace_status st;
	const struct pt_trace_mmap_page *c;
	__u64 small = 64 << 10;

	double t0;

	config(1 << 20, mode);
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	/* Past the small size if the model gets there in 2 s (loaded VMs). */
	for (t0 = now(); now() - t0 < 2; usleep(50 * 1000))
		if (!get_status(&st, "tracing") && st.head > small)
			break;
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	REQUIRE(!get_status(&st, "before resize"), "GET_STATUS");
	fprintf(stderr, "PTT-INFO mode %d: head %llu offset %llu before the resize\n",
		mode, (unsigned long long)st.head,
		(unsigned long long)st.offset);
	CHECK(st.head > 0, "mode %d: nothing traced", mode);
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_SET_BUFSIZE, &small), "SET_BUFSIZE: %s",
		strerror(errno));
	REQUIRE(!get_status(&st, "after resize"), "GET_STATUS");
	CHECK(st.buffer_size == small && st.head == 0 && st.offset == 0 &&
	      !(st.flags & PT_STATUS_WRAPPED) && !st.loss_records &&
	      !st.lost_bytes && !st.stream_bytes,
	      "mode %d after resize: size %llu head %llu offset %llu flags %#x losses %llu",
	      mode, (unsigned long long)st.buffer_size,
	      (unsigned long long)st.head, (unsigned long long)st.offset,
	      st.flags, (unsigned long long)st.loss_records);
	c = mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, 0);
	REQUIRE(c != MAP_FAILED, "mmap: %s", strerror(errno));
	CHECK(c->data_size == small && c->data_head == 0 &&
	      c->loss_records == 0 && c->lost_bytes == 0,
	      "mode %d: new control page: size %llu head %llu losses %llu",
	      mode, (unsigned long long)c->data_size,
	      (unsigned long long)c->data_head,
	      (unsigned long long)c->loss_records);
	munmap((void *)c, pg);
}

/* 1b. A new opener sees nothing of the last one's streaming session. */
static void after_reopen(void)
{
	struct pt_trace_status st;
	const struct pt_trace_mmap_page *c;
	double t0;

	config(16 << 10, PT_MODE_STREAM);
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	for (t0 = now(); now() - t0 < 3; usleep(50 * 1000))
		if (!get_status(&st, "streaming") && st.loss_records)
			break;
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	REQUIRE(!get_status(&st, "stopped"), "GET_STATUS");
	fprintf(stderr, "PTT-INFO last session: %llu bytes, %llu PMIs, %llu loss records\n",
		(unsigned long long)st.stream_bytes,
		(unsigned long long)st.pmis,
		(unsigned long long)st.loss_records);
	CHECK(st.stream_bytes && st.loss_records,
	      "a 16 KiB ring nobody read lost nothing in 3 s");
	close(fd);
	fd = ptt_open_cpu(0, O_RDWR);
	REQUIRE(fd >= 0, "open /dev/pt0 again: %s", strerror(errno));
	config(16 << 10, PT_MODE_STREAM);
	c = mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, 0);
	REQUIRE(c != MAP_FAILED, "mmap: %s", strerror(errno));
	REQUIRE(!get_status(&st, "new opener"), "GET_STATUS");
	CHECK(!st.head && !st.stream_bytes && !st.pmis && !st.loss_records &&
	      !st.lost_bytes && !st.lost_ns && !st.stops && !st.errors &&
	      !(st.flags & (PT_STATUS_HW_STOPPED | PT_STATUS_HW_ERROR |
			    PT_STATUS_TAKEN_OVER | PT_STATUS_WRAPPED)),
	      "new opener's status: head %llu bytes %llu PMIs %llu losses %llu stops %llu flags %#x",
	      (unsigned long long)st.head, (unsigned long long)st.stream_bytes,
	      (unsigned long long)st.pmis,
	      (unsigned long long)st.loss_records,
	      (unsigned long long)st.stops, st.flags);
	CHECK(!c->data_head && !c->loss_records && !c->lost_bytes,
	      "new opener's control page: head %llu losses %llu lost %llu",
	      (unsigned long long)c->data_head,
	      (unsigned long long)c->loss_records,
	      (unsigned long long)c->lost_bytes);
	munmap((void *)c, pg);
}

/* 2. One racing thread. */
static void map_check(unsigned long long r)
{
	struct pt_trace_status st;
	const struct pt_trace_mmap_page *c;
	size_t len, size;
	int data_only = (r >> 20) & 1;

	if (get_status(&st, "before mmap"))
		return;
	size = st.buffer_size;
	len = data_only ? size : pg + size;
	c = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, data_only ? pg : 0);
	if (c == MAP_FAILED) {
		/* The buffer changed meanwhile, or memory. */
		CHECK(errno == EINVAL || errno == ENOMEM || errno == EBUSY,
		      "mmap: %s", strerror(errno));
		return;
	}
	__atomic_add_fetch(&n_maps, 1, __ATOMIC_RELAXED);
	/* Mapped: this buffer stays the current one. */
	if (!get_status(&st, "mapped"))
		CHECK(st.buffer_size == size,
		      "a %zu-byte buffer is mapped but the status says %llu",
		      size, (unsigned long long)st.buffer_size);
	if (!data_only)
		CHECK(c->data_size == size,
		      "a %zu-byte mapping whose control page says %llu", size,
		      (unsigned long long)c->data_size);
	(void)__atomic_load_n((const char *)c + len - 1, __ATOMIC_RELAXED);
	munmap((void *)c, len);
}

static void *racer(void *arg)
{
	unsigned long long r = (unsigned long)arg * 0x9e3779b97f4a7c15ULL;
	static const __u64 sizes[] = { 16 << 10, 32 << 10, 64 << 10 };
	struct pt_trace_status st;
	char out[4096];

	while (!__atomic_load_n(&stop_all, __ATOMIC_RELAXED)) {
		struct pt_trace_config c = { .size = sizeof(c) };
		int fl;

		r ^= r << 13;
		r ^= r >> 7;
		r ^= r << 17;
		switch (r % 9) {
		case 0:
			ioctl(fd, PT_TRACE_IOC_START);
			break;
		case 1:
			ioctl(fd, PT_TRACE_IOC_STOP);
			break;
		case 2:
			c.ctl = PT_CTL_USER | PT_CTL_BRANCHEN;
			c.buffer_size = sizes[(r >> 8) % 3];
			c.mode = (caps.flags & PT_CAP_TOPA) ? (r >> 12) & 1 : 0;
			if (!ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &c))
				__atomic_add_fetch(&n_resizes, 1,
						   __ATOMIC_RELAXED);
			break;
		case 3:
			if (!ioctl(fd, PT_TRACE_IOC_SET_BUFSIZE,
				   &sizes[(r >> 8) % 3]))
				__atomic_add_fetch(&n_resizes, 1,
						   __ATOMIC_RELAXED);
			break;
		case 4:
		case 5:
			get_status(&st, "racing");
			break;
		case 6:
			map_check(r);
			break;
		case 7:
			fl = fcntl(fd, F_GETFL);
			fcntl(fd, F_SETFL, fl | O_NONBLOCK);
			if (read(fd, out, 1 + (r >> 16) % sizeof(out)) < 0)
				CHECK(errno == EAGAIN || errno == EINVAL ||
				      errno == EIO || errno == ENOMEM ||
				      errno == EBUSY || errno == ENODEV,
				      "read: %s", strerror(errno));
			break;
		default:
			poll(&(struct pollfd){ .fd = fd, .events = POLLIN }, 1,
			     0);
			break;
		}
		if (ptt_failures > 20)
			break;
	}
	return NULL;
}

/* CPU 1 offline and back, until the racers stop. */
static void *hotplug(void *arg)
{
	unsigned long long *n = arg;

	while (!__atomic_load_n(&stop_all, __ATOMIC_RELAXED)) {
		if (ptt_write_str(ONLINE, "0") == 0)
			__atomic_add_fetch(n, 1, __ATOMIC_RELAXED);
		usleep(20 * 1000);
		ptt_write_str(ONLINE, "1");
		usleep(20 * 1000);
	}
	ptt_write_str(ONLINE, "1");
	return NULL;
}

int main(void)
{
	unsigned long long plugs = 0;
	pthread_t t[THREADS], hp;
	int i, cpu, hot;
	double t0;

	pg = sysconf(_SC_PAGESIZE);
	fd = ptt_open_cpu(0, O_RDWR);
	REQUIRE(fd >= 0, "open /dev/pt0: %s", strerror(errno));
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_GET_CAPS, &caps), "GET_CAPS: %s",
		strerror(errno));

	after_resize(PT_MODE_FLIGHT);
	if (caps.flags & PT_CAP_TOPA) {
		after_resize(PT_MODE_STREAM);
		after_reopen();
	}

	/* The race, on CPU 1 with hotplug beside where it can go offline. */
	hot = ptt_read_ll(ONLINE) == 1;
	cpu = hot ? 1 : 0;
	if (hot) {
		close(fd);
		fd = ptt_open_cpu(cpu, O_RDWR);
		REQUIRE(fd >= 0, "open /dev/pt1: %s", strerror(errno));
	}
	config(32 << 10, PT_MODE_FLIGHT);
	t0 = now();
	for (i = 0; i < THREADS; i++)
		REQUIRE(!pthread_create(&t[i], NULL, racer,
					(void *)(long)(i + 1)), "thread");
	if (hot)
		REQUIRE(!pthread_create(&hp, NULL, hotplug, &plugs), "thread");
	/*
	 * Until 1000 resizes, 1000 mappings and 10 offlines (about 1.5 s on
	 * a quiet host, where a fixed 4 s did 3600, 6000 and 30), or 4 s.
	 */
	while (now() - t0 < 4 &&
	       (__atomic_load_n(&n_resizes, __ATOMIC_RELAXED) < 1000 ||
		__atomic_load_n(&n_maps, __ATOMIC_RELAXED) < 1000 ||
		(hot && __atomic_load_n(&plugs, __ATOMIC_RELAXED) < 10)))
		usleep(50 * 1000);
	__atomic_store_n(&stop_all, 1, __ATOMIC_RELAXED);
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	if (hot)
		pthread_join(hp, NULL);
	fprintf(stderr,
		"PTT-INFO pt%d %.1f s: %llu statuses %llu maps %llu resizes %llu offlines\n",
		cpu, now() - t0, n_status, n_maps, n_resizes, plugs);
	CHECK(n_maps > 10 && n_resizes > 10, "too little raced");
	ioctl(fd, PT_TRACE_IOC_STOP);
	close(fd);
	return ptt_done();
}
