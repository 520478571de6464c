// SPDX-License-Identifier: GPL-2.0
/*
 * read(2) with several readers on one streaming /dev/ptN:
 *  - an O_NONBLOCK read beside a blocking reader asleep on an empty ring
 *    returns at once (EAGAIN), it does not wait behind the sleeper;
 *  - the sleeper returns as soon as data is published (the watermark),
 *    while the trace still runs, not at STOP;
 *  - two readers looping until end of file share the stream: together
 *    they read every byte exactly once (their sum is data_head), and
 *    both see end of file after STOP.
 * The model runs slowly (64 bytes every 250 ms) while nothing may be
 * published; a guard thread stops the trace after 8 s so the old
 * behaviour fails instead of hanging.
 */
#define _GNU_SOURCE
#include <pthread.h>

#include "stream_common.h"

#define SIZE	(64u << 10)
#define WM	(8u << 10)

static int fd;
static const struct pt_trace_mmap_page *ctrl;
static int stopping;

struct reader {
	pthread_t t;
	unsigned long long bytes;
	ssize_t first;		/* the first read's result */
	int first_running;	/* ... returned before the test's STOP */
	int first_errno;
	int eof;
};

static void *reader_fn(void *arg)
{
	struct reader *r = arg;
	unsigned char *b = malloc(SIZE);
	ssize_t n;

	REQUIRE(b, "malloc");
	n = read(fd, b, SIZE);
	r->first_errno = errno;
	r->first_running = !__atomic_load_n(&stopping, __ATOMIC_ACQUIRE);
	__atomic_store_n(&r->first, n, __ATOMIC_RELEASE);
	if (n > 0)
		r->bytes += n;
	while (n > 0) {
		n = read(fd, b, SIZE);
		if (n > 0)
			r->bytes += n;
	}
	r->eof = n == 0;
	free(b);
	return NULL;
}

static void stop_trace(void)
{
	__atomic_store_n(&stopping, 1, __ATOMIC_RELEASE);
	CHECK(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
}

static void *guard_fn(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 80 && !__atomic_load_n(&stopping, __ATOMIC_ACQUIRE); i++)
		usleep(100 * 1000);
	if (!__atomic_load_n(&stopping, __ATOMIC_ACQUIRE)) {
		fprintf(stderr, "PTT-INFO the guard thread stops the trace\n");
		stop_trace();
	}
	return NULL;
}

static int returned(struct reader *r)
{
	return __atomic_load_n(&r->first, __ATOMIC_ACQUIRE) != -2;
}

/* Wait up to @secs for @r's first read to return. */
static int wait_first(struct reader *r, double secs)
{
	double t0 = st_now();

	while (!returned(r) && st_now() - t0 < secs)
		usleep(10 * 1000);
	return returned(r);
}

int main(void)
{
	struct reader a = { .first = -2 }, b = { .first = -2 },
		      c = { .first = -2 };
	struct pt_trace_caps caps;
	long pg = sysconf(_SC_PAGESIZE);
	unsigned char one;
	pthread_t g;
	double t0, dt;
	ssize_t n;
	int fl;

	fd = st_setup(0, SIZE, WM, 0, &caps);
	st_model_slow();
	ctrl = mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, 0);
	REQUIRE(ctrl != MAP_FAILED, "mmap: %s", strerror(errno));
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	REQUIRE(!pthread_create(&g, NULL, guard_fn, NULL), "guard thread");

	/* 1. A blocking reader asleep; an O_NONBLOCK read beside it. */
	REQUIRE(!pthread_create(&a.t, NULL, reader_fn, &a), "reader a");
	usleep(300 * 1000);
	CHECK(!returned(&a), "the blocking read returned on an empty ring: %zd",
	      a.first);
	fl = fcntl(fd, F_GETFL);
	fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	t0 = st_now();
	n = read(fd, &one, 1);
	dt = st_now() - t0;
	fcntl(fd, F_SETFL, fl);
	CHECK(n == 1 || (n == -1 && errno == EAGAIN),
	      "O_NONBLOCK read beside a sleeping reader: %zd %s", n,
	      strerror(errno));
	CHECK(dt < 1.0, "O_NONBLOCK read waited %.2f s behind a sleeping reader",
	      dt);
	fprintf(stderr, "PTT-INFO O_NONBLOCK read beside a sleeper: %zd in %.3f s\n",
		n, dt);

	/* 2. Data comes: the sleeper returns while the trace runs. */
	st_model_fast(&caps);
	CHECK(wait_first(&a, 5.0) && a.first > 0 && a.first_running,
	      "the blocking read did not return with the data while tracing: %zd (%s), running %d",
	      a.first, strerror(a.first_errno), a.first_running);

	/* 3. A second reader; both loop until end of file. */
	REQUIRE(!pthread_create(&b.t, NULL, reader_fn, &b), "reader b");
	REQUIRE(!pthread_create(&c.t, NULL, reader_fn, &c), "reader c");
	usleep(500 * 1000);
	if (!__atomic_load_n(&stopping, __ATOMIC_ACQUIRE))
		stop_trace();
	pthread_join(a.t, NULL);
	pthread_join(b.t, NULL);
	pthread_join(c.t, NULL);
	pthread_join(g, NULL);
	CHECK(a.eof && b.eof && c.eof, "end of file: %d %d %d", a.eof, b.eof,
	      c.eof);
	CHECK(a.bytes + b.bytes + c.bytes + (n == 1) == ctrl->data_head,
	      "readers got %llu + %llu + %llu (+%d) bytes of %llu",
	      a.bytes, b.bytes, c.bytes, n == 1,
	      (unsigned long long)ctrl->data_head);
	fprintf(stderr, "PTT-INFO readers: %llu %llu %llu bytes of %llu\n",
		a.bytes, b.bytes, c.bytes, (unsigned long long)ctrl->data_head);
	munmap((void *)ctrl, pg);
	close(fd);
	st_restore_model();
	return ptt_done();
}
