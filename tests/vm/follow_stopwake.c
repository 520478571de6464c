// SPDX-License-Identifier: GPL-2.0
/*
 * ptt-timeout: 60
 * poll(2) wakes when the driver notices a TraceStop (issue #13).  A flight
 * recorder on /dev/pt0 follows a child pinned to CPU 0 and has a TraceStop
 * range (ADDR0_CFG=2) over a function in a section of its own.  The test
 * blocks in poll(POLLPRI) with a 10 s timeout while the child does traced
 * work, enters the function, and then sleeps 5 s: TraceStop raises no
 * interrupt, but the child's switch-out pauses the trace and reads
 * RTIT_STATUS, so the driver learns Stopped there and must wake the
 * poller (from irq_work: the runqueue is locked in sched_switch).
 * Checks:
 *  - before START and before the child runs, poll reports no POLLPRI;
 *  - poll returns POLLPRI (does not time out), soon after the child left
 *    the function (printed; bounded loosely, the VM is TCG);
 *  - GET_STATUS then says PT_STATUS_HW_STOPPED and RTIT_STATUS.Stopped;
 *  - POLLPRI is level-triggered: still reported by a second poll, and
 *    after STOP (the status of the last session says stopped).
 * A driver that does not wake pollers times out after 10 s.  Skips on
 * profiles without address ranges (bdw, min).
 */
#include <poll.h>
#include <sys/mman.h>

#include "follow_common.h"
#include "compiler.h"

#define SW_RTIT_STATUS_STOPPED	BIT_ULL(5)

static unsigned long sink;

static double sw_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static __pt_attribute((noinline)) void traced(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		sink += i;
		__asm__ __volatile__("" : : "r"(sink) : "memory");
	}
}

/* The stop range: the section's bounds (the linker defines them). */
extern char __start_ptt_stopwake[], __stop_ptt_stopwake[];

static __pt_attribute((noinline, used, section("ptt_stopwake")))
void stopper(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		sink ^= i;
		__asm__ __volatile__("" : : "r"(sink) : "memory");
	}
}

/* When the child left the stop function (CLOCK_MONOTONIC, ns), shared. */
static __u64 *left_ns;

static double sw_left(void)
{
	return __atomic_load_n(left_ns, __ATOMIC_RELAXED) / 1e9;
}

/*
 * Traced work, then 0.3 s in the function (long enough for the sampled
 * model's ticks to see an IP in it; the loop around it is outside), then
 * asleep: its first switch-out since the stop.
 */
static void child(void *arg)
{
	double t0;

	(void)arg;
	ptt_pin_cpu(0);
	t0 = sw_now();
	while (sw_now() - t0 < 0.2)
		traced(20000);
	t0 = sw_now();
	while (sw_now() - t0 < 0.3)
		stopper(20000);
	__atomic_store_n(left_ns, (__u64)(sw_now() * 1e9), __ATOMIC_RELAXED);
	fc_sleep_ms(5000);
}

static short poll_pri(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLPRI };
	int n = poll(&p, 1, ms);

	REQUIRE(n >= 0, "poll: %s", strerror(errno));
	return n ? p.revents : 0;
}

int main(void)
{
	struct pt_trace_addr addr = { .size = sizeof(addr) };
	struct pt_trace_status st = { .size = sizeof(st) };
	double t0, woke, left;
	short rev;
	pid_t pid;
	int fd, go;

	if (ptt_read_ll("/sys/kernel/pt_trace/caps/num_address_ranges") < 1)
		SKIP("no address ranges in this profile");
	left_ns = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	REQUIRE(left_ns != MAP_FAILED, "mmap: %s", strerror(errno));
	*left_ns = 0;
	ptt_pin_cpu(1);
	pid = fc_child(child, NULL, &go);

	fd = fc_open(0, PT_MODE_FLIGHT, 256 << 10);
	addr.index = 0;
	addr.cfg = PT_ADDR_CFG_STOP;
	addr.start = (__u64)(unsigned long)__start_ptt_stopwake;
	addr.end = (__u64)(unsigned long)__stop_ptt_stopwake - 1;
	REQUIRE(addr.end > addr.start, "empty stop section");
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_SET_ADDR, &addr), "SET_ADDR: %s",
		strerror(errno));
	REQUIRE(!fc_follow(fd, pid, 0), "FOLLOW %d: %s", (int)pid,
		strerror(errno));
	CHECK(!(poll_pri(fd, 0) & POLLPRI), "POLLPRI before START");
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	CHECK(!(poll_pri(fd, 0) & POLLPRI), "POLLPRI before the child ran");

	fc_go(go);
	t0 = sw_now();
	rev = poll_pri(fd, 10000);
	woke = sw_now();
	left = sw_left();
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_GET_STATUS, &st), "GET_STATUS: %s",
		strerror(errno));
	fprintf(stderr,
		"PTT-INFO revents %#x after %.3f s; the child left the function at %.3f s; status flags %#x rtit_status %#llx\n",
		rev, woke - t0, left ? left - t0 : -1.0, st.flags,
		(unsigned long long)st.rtit_status);
	REQUIRE(st.flags & PT_STATUS_HW_STOPPED,
		"the trace never stopped (flags %#x): the model saw no IP in the range",
		st.flags);
	CHECK(st.rtit_status & SW_RTIT_STATUS_STOPPED,
	      "RTIT_STATUS.Stopped clear: %#llx",
	      (unsigned long long)st.rtit_status);
	CHECK(rev & POLLPRI,
	      "poll was not woken by the stop (revents %#x after %.3f s)", rev,
	      woke - t0);
	/* Woken by the switch-out of the sleep, not by a later event. */
	if ((rev & POLLPRI) && left)
		CHECK(woke - left < 2.0,
		      "woken %.3f s after the child left the function",
		      woke - left);
	CHECK(poll_pri(fd, 0) & POLLPRI, "POLLPRI not reported again");
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	CHECK(poll_pri(fd, 0) & POLLPRI, "no POLLPRI after STOP");
	close(fd);
	fc_kill(pid);
	return ptt_done();
}
