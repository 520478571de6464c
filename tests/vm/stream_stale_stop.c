// SPDX-License-Identifier: GPL-2.0
/*
 * A reader that catches up before the hardware reaches the STOP loses
 * nothing, even when a PMI found it behind by all but a region or two
 * (issue 10: the bench lost trace after TCG stalls of its reader,
 * HW_STOP records with room to spare).  The driver learns data_tail only
 * when it services the ring.  Three things make that enough:
 *  - the INT is never later than the region before the STOP's, so a
 *    PMI comes while the STOP can still be moved (topa.c);
 *  - with the head in the STOP's region (no PMI before the STOP),
 *    poll() reports EPOLLIN whatever the watermark, and
 *  - a read that releases data then moves the STOP at once (an IPI).
 *
 * Built to happen on every lap: a 256 KiB ring (4 regions of 64 KiB,
 * the smallest streaming region) with a watermark of 3 regions, the
 * model's rate generator at 240 KB/s on CPU 0 (a region every ~270 ms),
 * a reader on CPU 1 that polls for POLLIN and then reads all there is.
 * The watermark is measured from the tail the last PMI saw, so after
 * the first lap it ends in the STOP's region: each lap the reader has a
 * region's time (~270 ms) to come.  Until two laps are read (or 8 s): no
 * loss record, no hardware stop, nothing the model lost.  On the code
 * before, each lap ended in a HW_STOP record (2 in 2 laps), and with
 * only the last two parts one lap in two did.  icl only: the path is
 * the same for every multi-entry ToPA, and single-entry ToPA stops at
 * every region's end by design.
 */
#include <stdlib.h>

#include "stream_common.h"
#include "stream_wd.h"

#define RING	(256u << 10)
#define REGION	(RING / 4)	/* buffer.c: 64 KiB at least, 4 a ring */
#define WM	(3 * REGION)
#define RATE	"240000"
#define CAP	(4u << 20)
#define LIMIT	8.0

static void restore(void)
{
	st_write_param("model_rate", "0");
	st_write_param("model_burst", "0");
	st_restore_model();
}

/* Where the loss records say the trace broke, for the log. */
static void print_losses(int fd, double t0)
{
	const struct pt_trace_mmap_page *pg;
	const struct pt_trace_loss *l;
	unsigned long long i;

	pg = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (pg == MAP_FAILED)
		return;
	for (i = 0; i < pg->loss_records && i < pg->loss_slots; i++) {
		l = (const void *)((const char *)pg + pg->loss_offset +
				   i * sizeof(*l));
		printf("PTT-INFO loss %llu: pos %llu, %llu bytes, flags %#x, at %.3f s\n",
		       i, (unsigned long long)l->pos,
		       (unsigned long long)l->bytes, l->flags,
		       l->start_ns / 1e9 - t0);
	}
	munmap((void *)pg, 4096);
}

int main(void)
{
	struct pt_trace_caps caps;
	struct pt_trace_status st;
	unsigned char *out;
	long long lost0, lost1;
	size_t len = 0, total = 0;
	double t0;
	ssize_t r;
	int fd;

	if (getenv("PTT_PROFILE") && strcmp(getenv("PTT_PROFILE"), "icl"))
		SKIP("the same for every multi-entry ToPA: icl only");
	out = malloc(CAP);
	REQUIRE(out, "malloc");
	REQUIRE(ptt_pin_cpu(1) == 0, "pin to CPU 1");
	atexit(restore);
	fd = st_setup(0, RING, WM, O_NONBLOCK, &caps);
	REQUIRE(!st_single_entry(&caps), "icl has multi-entry ToPA");
	st_write_param("model_period_us", "10");
	st_write_param("model_tick_bytes", "65536");
	st_write_param("model_burst", "1");
	st_write_param("model_rate", RATE);
	lost0 = st_model("lost_bytes");
	t0 = st_now();
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	while (total < 2 * RING && st_now() - t0 < LIMIT) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		if (poll(&pfd, 1, 200) != 1)
			continue;
		while ((r = st_read(fd, out, &len, CAP)) > 0) {
			total += r;
			if (len == CAP)
				len = 0;	/* only the count matters */
		}
		REQUIRE(r < 0 && errno == EAGAIN, "read: %zd (%s)", r,
			strerror(errno));
	}
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	lost1 = st_model("lost_bytes");
	st_status(fd, &st);
	printf("PTT-INFO %.2f s, read %zu bytes, head %llu, ", st_now() - t0,
	       total, (unsigned long long)st.head);
	printf("pmis %llu, stops %llu, loss records %llu, model lost %lld\n",
	       (unsigned long long)st.pmis, (unsigned long long)st.stops,
	       (unsigned long long)st.loss_records, lost1 - lost0);
	print_losses(fd, t0);
	REQUIRE(st.head >= 2 * RING,
		"only %llu bytes in %.0f s: the STOP was never reached, nothing shown",
		(unsigned long long)st.head, LIMIT);
	CHECK(st.loss_records == 0, "%llu loss records (%llu bytes)",
	      (unsigned long long)st.loss_records,
	      (unsigned long long)st.lost_bytes);
	CHECK(st.stops == 0, "the hardware stopped %llu times",
	      (unsigned long long)st.stops);
	CHECK(lost1 == lost0, "the model lost %lld bytes", lost1 - lost0);
	ST_CHECK_NO_WATCHDOG(0);
	close(fd);
	free(out);
	return ptt_done();
}
