// SPDX-License-Identifier: GPL-2.0
/*
 * read(2) on a streaming /dev/ptN with every count from 1 to 4097, against
 * the data itself (the read-only mapping of the ring shows the unread bytes
 * [data_tail, data_head), which the hardware may not overwrite):
 *  - while streaming, a blocking read of any count returns at once when
 *    data is unread, the next bytes of the stream (all it asked for when
 *    that many were unread), and data_tail moves by exactly what it
 *    returned; an O_NONBLOCK read of one byte returns that byte;
 *  - after STOP, reads of every count return the rest of the stream in
 *    order, short only at its end, then 0 (end of file) exactly when
 *    everything was read; with one byte left a 4096-byte read returns it.
 * A read that comes back only at STOP fails the test (a watchdog thread
 * stops the trace when the position has not moved for 3 s).
 *
 * Each phase runs until every count was tried, for at most 30 s: about
 * 8 s on a quiet host, but the model's timer-driven output slows with the
 * host's load under TCG, and a coverage check must not become a speed test.
 * ptt-timeout: 90
 */
#define _GNU_SOURCE
#include <pthread.h>

#include "stream_common.h"

#define SIZE		(256u << 10)
#define MAXCOUNT	4097u
#define PHASE_S		30

static int fd;
static const unsigned char *data;
static const struct pt_trace_mmap_page *ctrl;
static unsigned long long pos;		/* the stream position read so far */
static int stream_done, wd_stopped;

static unsigned long long head_now(void)
{
	return __atomic_load_n(&ctrl->data_head, __ATOMIC_ACQUIRE);
}

static unsigned long long tail_now(void)
{
	return __atomic_load_n(&ctrl->data_tail, __ATOMIC_ACQUIRE);
}

/* @n bytes of the ring from stream position @p. */
static void ring_copy(unsigned char *to, unsigned long long p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		to[i] = data[(p + i) % SIZE];
}

static void set_nonblock(int on)
{
	int fl = fcntl(fd, F_GETFL);

	fcntl(fd, F_SETFL, on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK);
}

/*
 * One read of @count: checks the bytes against the ring as it was before
 * the read (a streaming ring may reuse the space right after the read
 * released it), the count against what was unread, and data_tail.
 * Returns what read() returned.
 */
static ssize_t read_check(size_t count, int nonblock, const char *phase)
{
	static unsigned char want[MAXCOUNT], got[MAXCOUNT];
	unsigned long long unread = head_now() - pos;
	size_t snap = unread < count ? unread : count;
	ssize_t n;

	ring_copy(want, pos, snap);
	set_nonblock(nonblock);
	n = read(fd, got, count);
	set_nonblock(0);
	if (n < 0) {
		CHECK(0, "%s: read(%zu) at %llu with %llu unread: %s", phase,
		      count, pos, unread, strerror(errno));
		return n;
	}
	CHECK((size_t)n <= count, "%s: read(%zu) returned %zd", phase, count,
	      n);
	CHECK((size_t)n >= snap,
	      "%s: read(%zu) returned %zd with %llu bytes unread", phase,
	      count, n, unread);
	CHECK(!memcmp(want, got, (size_t)n < snap ? (size_t)n : snap),
	      "%s: read(%zu) at %llu returned other bytes than the stream's",
	      phase, count, pos);
	__atomic_store_n(&pos, pos + n, __ATOMIC_RELAXED);
	CHECK(tail_now() == pos,
	      "%s: read(%zu) returned %zd but data_tail is %llu, not %llu",
	      phase, count, n, tail_now(), pos);
	return n;
}

static void *watchdog(void *arg)
{
	unsigned long long last = ~0ULL, p;
	double since = st_now();

	(void)arg;
	while (!__atomic_load_n(&stream_done, __ATOMIC_ACQUIRE)) {
		usleep(100 * 1000);
		p = __atomic_load_n(&pos, __ATOMIC_RELAXED);
		if (p != last) {
			last = p;
			since = st_now();
		} else if (st_now() - since > 3) {
			__atomic_store_n(&wd_stopped, 1, __ATOMIC_RELEASE);
			ioctl(fd, PT_TRACE_IOC_STOP);
			break;
		}
	}
	return NULL;
}

/*
 * Single-entry ToPA: whole ticks inside the 512-byte PMI margin, so the
 * pace is the tick's period: 50 us, not 100, took bdw's run on 6.12 from
 * 25-31 s to 15-17 s (both phases need the same ~8 MB, at the model's
 * pace).  Not on the debug kernel (lockdep, KASAN): there 50 us ticks
 * did not come faster under TCG (35-56 s), so it keeps 100 us.
 */
static void fast_model(const struct pt_trace_caps *caps)
{
	int single = st_single_entry(caps);

	st_write_param("model_tick_bytes", single ? "256" : "8192");
	st_write_param("model_period_us", !single ? "1000" :
		       access("/proc/lockdep", F_OK) ? "50" : "100");
}

/*
 * Streaming: counts 1..4097 in turn, blocking, every 16th O_NONBLOCK.
 * The slow single-entry model may run out of the 12 s budget.
 */
static void stream_phase(const struct pt_trace_caps *caps)
{
	double t0 = st_now();
	pthread_t wd;
	size_t count;

	REQUIRE(!pthread_create(&wd, NULL, watchdog, NULL), "thread");
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	for (count = 1; count <= MAXCOUNT && !ptt_failures &&
	     st_now() - t0 < PHASE_S; count++) {
		read_check(count, 0, "streaming");
		if (__atomic_load_n(&wd_stopped, __ATOMIC_ACQUIRE))
			break;
		/* One byte, O_NONBLOCK, while data is unread: that byte. */
		if (!(count % 16) && head_now() > pos)
			CHECK(read_check(1, 1, "streaming O_NONBLOCK") == 1,
			      "O_NONBLOCK read(1) with data unread");
	}
	__atomic_store_n(&stream_done, 1, __ATOMIC_RELEASE);
	pthread_join(wd, NULL);
	CHECK(!wd_stopped,
	      "streaming reads of counts 1..%zu did not return before STOP (at count %zu)",
	      (size_t)MAXCOUNT, count);
	fprintf(stderr, "PTT-INFO streaming: %zu counts, %llu bytes, %.1f s\n",
		count - 1, pos, st_now() - t0);
	CHECK(count > MAXCOUNT || st_single_entry(caps),
	      "streaming: only counts 1..%zu in %d s", count - 1, PHASE_S);
	CHECK(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	/* Drain: the rest, then end of file. */
	while (read_check(MAXCOUNT, 0, "drain") > 0)
		;
	CHECK(pos == head_now(), "EOF at %llu, head %llu", pos, head_now());
}

/*
 * Until the ring is full (no reader: the model stops there), or at
 * least three quarters full and nothing more came for 20 ms, or 150 ms
 * passed.  A fixed 150 ms, 5 s of the phase's 33 sessions, mostly
 * waited on a ring full after 30 ms; a ring that is not nearly full
 * keeps its 150 ms (on a loaded host the model's ticks come late, and
 * smaller sessions would only make more of them).
 */
static void wait_ring_full(void)
{
	unsigned long long last = 0, h;
	double t0 = st_now();
	int still = 0;

	while (st_now() - t0 < 0.15) {
		usleep(10 * 1000);
		h = head_now();
		still = h == last ? still + 1 : 0;
		last = h;
		if (h >= SIZE - 4096 || (h >= SIZE / 4 * 3 && still >= 2))
			break;
	}
}

/* Stopped sessions: the next counts until the stream ends, then EOF. */
static void stopped_phase(const struct pt_trace_caps *caps)
{
	size_t count = 1;
	double t0 = st_now();
	int sessions = 0, one_left = 0;

	while (count <= MAXCOUNT && st_now() - t0 < PHASE_S && !ptt_failures) {
		unsigned long long head;
		ssize_t n;

		REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s",
			strerror(errno));
		pos = 0;
		wait_ring_full();
		REQUIRE(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s",
			strerror(errno));
		head = head_now();
		sessions++;
		/* Every other session ends with one byte and a 4096 read. */
		while (count <= MAXCOUNT && !ptt_failures) {
			unsigned long long left = head - pos;

			if ((sessions & 1) && left > 1 && left <= count) {
				read_check(left - 1, 0, "stopped");
				continue;
			}
			if ((sessions & 1) && left == 1) {
				CHECK(read_check(4096, 0, "stopped") == 1,
				      "one byte left, read(4096)");
				one_left++;
				continue;
			}
			n = read_check(count, 0, "stopped");
			if (n <= 0)
				break;
			CHECK((size_t)n == count || pos == head,
			      "stopped: read(%zu) returned %zd with %llu left",
			      count, n, left);
			count++;
		}
		while (read_check(MAXCOUNT, 0, "stopped") > 0)
			;
		/* End of file, exactly at the end, and it stays there. */
		CHECK(pos == head, "stopped: EOF at %llu of %llu", pos, head);
		CHECK(read_check(1, 0, "EOF") == 0, "a second EOF");
		CHECK(read_check(1, 1, "EOF O_NONBLOCK") == 0,
		      "EOF with O_NONBLOCK");
	}
	fprintf(stderr, "PTT-INFO stopped: %d sessions, counts 1..%zu, %d one-byte ends, %.1f s\n",
		sessions, count - 1, one_left, st_now() - t0);
	CHECK(count > MAXCOUNT || st_single_entry(caps),
	      "stopped: only counts 1..%zu in %d s", count - 1, PHASE_S);
	CHECK(count > 64 && one_left > 0, "stopped: too little covered");
}

int main(void)
{
	struct pt_trace_caps caps;
	long pg = sysconf(_SC_PAGESIZE);
	void *m;

	REQUIRE(ptt_pin_cpu(1) == 0 || ptt_pin_cpu(0) == 0, "pin");
	fd = st_setup(0, SIZE, 16 << 10, 0, &caps);
	fast_model(&caps);
	m = mmap(NULL, pg + SIZE, PROT_READ, MAP_SHARED, fd, 0);
	REQUIRE(m != MAP_FAILED, "mmap: %s", strerror(errno));
	ctrl = m;
	data = (const unsigned char *)m + pg;
	stream_phase(&caps);
	stopped_phase(&caps);
	munmap(m, pg + SIZE);
	close(fd);
	st_restore_model();
	return ptt_done();
}
