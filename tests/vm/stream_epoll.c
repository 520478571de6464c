// SPDX-License-Identifier: GPL-2.0
/*
 * epoll and poll on a streaming /dev/ptN, level- and edge-triggered:
 *  - nothing pending (before START, or fewer than 'watermark' bytes
 *    unread while tracing): poll and epoll_wait time out, and an
 *    O_NONBLOCK read(2) of an empty ring fails with EAGAIN;
 *  - a STOP from another thread wakes a blocked epoll_wait with EPOLLHUP
 *    (and EPOLLIN when data is left); edge-triggered, the same state is
 *    not reported again without a new wake-up, level-triggered it is;
 *  - reaching the watermark wakes epoll_wait with EPOLLIN, and then at
 *    least 'watermark' bytes are unread.
 * The model runs slowly (64-byte ticks, 4 a second) where nothing may be
 * pending, so the watermark (32 KiB) cannot be reached by accident; no
 * wall-clock time is asserted.
 */
#include <pthread.h>
#include <sys/epoll.h>

#include "stream_common.h"
#include "stream_wd.h"

#define BUF	(64u << 10)
#define WM	(32u << 10)
#define CAP	(8u << 20)

static int fd;

static void *stopper(void *arg)
{
	(void)arg;
	usleep(300 * 1000);
	CHECK(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	return NULL;
}

static int ep_new(__u32 events)
{
	struct epoll_event ev = { .events = events };
	int ep = epoll_create1(0);

	REQUIRE(ep >= 0, "epoll_create1: %s", strerror(errno));
	REQUIRE(!epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev), "EPOLL_CTL_ADD: %s",
		strerror(errno));
	return ep;
}

static int ep_wait(int ep, int ms, __u32 *events)
{
	struct epoll_event ev = { 0 };
	int n = epoll_wait(ep, &ev, 1, ms);

	*events = n > 0 ? ev.events : 0;
	return n;
}

static unsigned long long unread(const struct pt_trace_mmap_page *pg)
{
	unsigned long long head = __atomic_load_n(&pg->data_head,
						  __ATOMIC_ACQUIRE);

	return head - __atomic_load_n(&pg->data_tail, __ATOMIC_RELAXED);
}

/* read(2) until the ring is empty: must end with EAGAIN, never block. */
static void drain_to_eagain(unsigned char *out, size_t *len, const char *when)
{
	ssize_t n = 1;
	int i;

	for (i = 0; i < 100000 && n > 0; i++)
		n = st_read(fd, out, len, CAP);
	CHECK(n < 0 && errno == EAGAIN, "%s: read ended with %zd (%s)", when,
	      n, n < 0 ? strerror(errno) : "data");
}

int main(void)
{
	struct pt_trace_mmap_page *pg;
	struct pt_trace_caps caps;
	struct ptt_packet_stats ps;
	struct pollfd pfd;
	unsigned char *out = malloc(CAP);
	size_t len = 0;
	pthread_t th;
	int lt, et, n;
	__u32 ev;
	ssize_t r;

	REQUIRE(out, "malloc");
	ptt_pin_cpu(1);
	fd = st_setup(0, BUF, WM, O_NONBLOCK, &caps);
	st_model_slow();
	lt = ep_new(EPOLLIN);
	et = ep_new(EPOLLIN | EPOLLET);

	/* Nothing started: nothing to report. */
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	CHECK(poll(&pfd, 1, 100) == 0, "poll before START: %#x", pfd.revents);
	CHECK(ep_wait(lt, 100, &ev) == 0, "LT before START: %#x", ev);
	CHECK(ep_wait(et, 100, &ev) == 0, "ET before START: %#x", ev);

	pg = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	REQUIRE(pg != MAP_FAILED, "mmap control page: %s", strerror(errno));

	/* Tracing, below the watermark: time-outs and EAGAIN. */
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	r = read(fd, out, 4096);
	CHECK(r < 0 && errno == EAGAIN, "read of an empty ring: %zd (%s)", r,
	      r < 0 ? strerror(errno) : "data");
	CHECK(poll(&pfd, 1, 200) == 0, "poll below the watermark: %#x",
	      pfd.revents);
	CHECK(ep_wait(lt, 200, &ev) == 0, "LT below the watermark: %#x", ev);
	CHECK(ep_wait(et, 200, &ev) == 0, "ET below the watermark: %#x", ev);
	printf("PTT-INFO unread below the watermark: %llu\n", unread(pg));

	/* STOP from another thread wakes a blocked epoll_wait. */
	REQUIRE(!pthread_create(&th, NULL, stopper, NULL), "pthread_create");
	n = ep_wait(et, 10000, &ev);
	pthread_join(th, NULL);
	CHECK(n == 1 && (ev & EPOLLHUP), "ET woken by STOP: %d %#x", n, ev);
	CHECK(!!(ev & EPOLLIN) == !!unread(pg), "EPOLLIN %#x with %llu unread",
	      ev, unread(pg));
	/* Edge-triggered: no new wake-up, no new event; level: still there. */
	CHECK(ep_wait(et, 200, &ev) == 0, "ET reported twice: %#x", ev);
	CHECK(ep_wait(lt, 0, &ev) == 1 && (ev & EPOLLHUP),
	      "LT after STOP: %#x", ev);
	CHECK(poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLHUP),
	      "poll after STOP: %#x", pfd.revents);
	while ((r = st_read(fd, out, &len, CAP)) > 0)
		;
	CHECK(r == 0, "EOF after STOP: %zd (%s)", r,
	      r < 0 ? strerror(errno) : "");

	/* The watermark: a fast model, nobody reading. */
	len = 0;
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START again: %s",
		strerror(errno));
	CHECK(ep_wait(et, 0, &ev) == 0, "ET right after START: %#x", ev);
	st_model_fast(&caps);
	n = ep_wait(et, 10000, &ev);
	CHECK(n == 1 && (ev & EPOLLIN) && !(ev & EPOLLHUP),
	      "ET at the watermark: %d %#x", n, ev);
	CHECK(unread(pg) >= WM, "woken with %llu unread, watermark %u",
	      unread(pg), WM);
	CHECK(ep_wait(lt, 0, &ev) == 1 && (ev & EPOLLIN),
	      "LT at the watermark: %#x", ev);
	printf("PTT-INFO unread at the watermark wake-up: %llu\n", unread(pg));
	st_model_slow();
	drain_to_eagain(out, &len, "drained");
	CHECK(ep_wait(lt, 200, &ev) == 0, "LT after draining: %#x", ev);

	REQUIRE(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	while ((r = st_read(fd, out, &len, CAP)) > 0)
		;
	CHECK(r == 0, "EOF: %zd", r);
	/* Up to the first gap (the ring may have filled): it decodes. */
	if (pg->loss_records) {
		const struct pt_trace_loss *l = (const void *)((char *)pg +
							      pg->loss_offset);

		if (l->pos < len)
			len = l->pos;
	}
	printf("PTT-INFO read %zu bytes before any gap, %llu loss records\n",
	       len, (unsigned long long)pg->loss_records);
	REQUIRE(ptt_decode_packets(out, len, &ps) == 0, "no PSB in the stream");
	CHECK(ps.errors == 0, "%llu decode errors",
	      (unsigned long long)ps.errors);

	ST_CHECK_NO_WATCHDOG(0);
	st_restore_model();
	close(lt);
	close(et);
	munmap(pg, 4096);
	close(fd);
	free(out);
	return ptt_done();
}
