// SPDX-License-Identifier: GPL-2.0
/*
 * Streaming poll(2) reports EPOLLPRI while a gap is open (abi.rst,
 * "poll(2)/epoll": what GET_STATUS reports as HW_STOPPED while
 * streaming), and only then:
 *  - tracing with the model slow (nothing near the watermark, no gap):
 *    a poll for POLLPRI alone times out and GET_STATUS has no HW_STOPPED;
 *  - the model fast and nobody reading: the ring fills, the hardware
 *    stops at the STOP region and a gap opens; a poll for POLLPRI alone,
 *    blocked meanwhile (10 s limit), is woken with POLLPRI, and
 *    GET_STATUS then says HW_STOPPED;
 *  - the model slow again and the ring read empty: the read resumes the
 *    trace, the gap closes into a loss record, and POLLPRI is gone (poll
 *    with no timeout) as is HW_STOPPED.
 * A driver without the streaming EPOLLPRI (before b1cbfe4) lets the
 * second poll time out: POLLIN alone is set while the ring is full.
 */
#include "stream_common.h"
#include "stream_wd.h"

#define BUF	(64u << 10)
#define WM	(32u << 10)
#define CAP	(1024u * 1024)

int main(void)
{
	struct pt_trace_mmap_page *pg;
	struct pt_trace_status st;
	struct pt_trace_caps caps;
	struct pollfd pfd;
	unsigned char *out = malloc(CAP);
	size_t len = 0, total = 0;
	double t0;
	ssize_t r;
	int fd, n;

	REQUIRE(out, "malloc");
	ptt_pin_cpu(1);
	fd = st_setup(0, BUF, WM, O_NONBLOCK, &caps);
	pg = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	REQUIRE(pg != MAP_FAILED, "mmap control page: %s", strerror(errno));
	st_model_slow();
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));

	/* No gap: nothing to report. */
	pfd = (struct pollfd){ .fd = fd, .events = POLLPRI };
	n = poll(&pfd, 1, 200);
	CHECK(n == 0, "POLLPRI without a gap: %d %#x", n, pfd.revents);
	st_status(fd, &st);
	CHECK(!(st.flags & PT_STATUS_HW_STOPPED),
	      "HW_STOPPED without a gap: %#x", st.flags);

	/* Nobody reads: the ring fills, a gap opens, the poller wakes. */
	st_model_fast(&caps);
	t0 = st_now();
	pfd.revents = 0;
	n = poll(&pfd, 1, 10000);
	printf("PTT-INFO poll(POLLPRI) returned %d, revents %#x, after %.3f s; ",
	       n, pfd.revents, st_now() - t0);
	printf("%llu unread, %llu loss records\n",
	       (unsigned long long)(__atomic_load_n(&pg->data_head,
						    __ATOMIC_ACQUIRE) -
				    pg->data_tail),
	       (unsigned long long)pg->loss_records);
	CHECK(n == 1 && (pfd.revents & POLLPRI),
	      "a full ring: poll(POLLPRI) %d %#x", n, pfd.revents);
	st_status(fd, &st);
	CHECK(st.flags & PT_STATUS_HW_STOPPED, "POLLPRI, no HW_STOPPED: %#x",
	      st.flags);

	/* Read it all: the trace resumes, the gap closes. */
	st_model_slow();
	while ((r = st_read(fd, out, &len, CAP)) > 0) {
		total += r;
		if (len > CAP / 2)
			len = 0;
	}
	CHECK(r < 0 && errno == EAGAIN, "draining: %zd (%s)", r,
	      r < 0 ? strerror(errno) : "EOF");
	pfd.revents = 0;
	n = poll(&pfd, 1, 0);
	CHECK(n == 0, "POLLPRI after the reader made room: %d %#x", n,
	      pfd.revents);
	st_status(fd, &st);
	CHECK(!(st.flags & PT_STATUS_HW_STOPPED),
	      "HW_STOPPED after the reader made room: %#x", st.flags);
	CHECK(pg->loss_records >= 1, "no loss record for the gap");
	printf("PTT-INFO read %zu bytes, %llu loss records\n", total,
	       (unsigned long long)pg->loss_records);

	REQUIRE(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	ST_CHECK_NO_WATCHDOG(0);
	st_restore_model();
	munmap(pg, 4096);
	close(fd);
	free(out);
	return ptt_done();
}
