// SPDX-License-Identifier: GPL-2.0
/*
 * A stream whose PT someone else takes (silicon-review C1, M6), played
 * by the model's agents (debugfs foreign, vmx):
 *  1. TraceEn cleared behind our back, our state otherwise intact (as KVM
 *     or, on bdw, VMXON do): a loss record flagged PT_LOSS_TAKEN_OVER,
 *     GET_STATUS says PT_STATUS_TAKEN_OVER while the CPU is not ours, and
 *     the stream resumes once it is (VMXOFF), with data flowing again;
 *  2. a perf-like owner: its writes fault while we trace (our trace goes
 *     on; RTIT_CTL only when its value differs from ours), its
 *     sched-out clears our TraceEn with its RTIT_CTL, its next sched-in
 *     traces through its own table.  A reader waiting in poll
 *     is woken within a second with EPOLLERR, read(2) says EIO once
 *     drained, the record and status say taken over, STOP writes no PT
 *     MSR (the owner's trace goes on, TraceEn still set), START again
 *     is refused until the file is reopened, and the driver never
 *     faulted;
 *  3. the flight recorder (64 KiB ToPA), which has no reader to wake:
 *     TraceEn cleared behind its back, a live GET_STATUS says
 *     PT_STATUS_TAKEN_OVER, and so does every later status and STOP
 *     (today the recorder stays off: it does not watch for the CPU to
 *     be free again), with the data up to the takeover accounted;
 *     the next START on the same file traces again.  Then the
 *     perf-like owner's sched-out and sched-in, and its sched-out
 *     (it lets PT go): the status says taken over throughout, STOP
 *     writes no PT MSR and accounts nothing, START is refused.
 */
#include "coexist_common.h"

#define BUF	(1024u * 1024)
#define CAP	(16u * 1024 * 1024)
#define WM	(8u * 1024)	/* data published often */

static int cpu;
static unsigned char *out;
static size_t total;		/* bytes read so far */

static long long model_ctl(void)
{
	char cmd[32];

	snprintf(cmd, sizeof(cmd), "%d 570", cpu);
	REQUIRE(!ptt_write_str(MODEL_DIR "msr", cmd), "msr read");
	return ptt_read_ll(MODEL_DIR "msr");
}

static void drain(int fd)
{
	ssize_t n;

	while ((n = read(fd, out, CAP)) > 0)
		total += n;
}

/* Loss records with PT_LOSS_TAKEN_OVER so far. */
static int taken_records(const struct pt_trace_mmap_page *pg)
{
	unsigned long long i, n = __atomic_load_n(&pg->loss_records,
						  __ATOMIC_ACQUIRE);
	int k = 0;

	for (i = 0; i < n && i < pg->loss_slots; i++) {
		const struct pt_trace_loss *l = (const void *)
			((const char *)pg + pg->loss_offset + i * sizeof(*l));

		k += !!(l->flags & PT_LOSS_TAKEN_OVER);
	}
	return k;
}

/* A running stream on cpu, its control page mapped, first data read. */
static int start_stream(__u32 wm, struct pt_trace_mmap_page **pg)
{
	struct pt_trace_caps caps;
	int fd = st_setup(cpu, BUF, wm, O_NONBLOCK, &caps);

	*pg = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	REQUIRE(*pg != MAP_FAILED, "mmap: %s", strerror(errno));
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	usleep(50000);
	drain(fd);
	return fd;
}

static void cleared(int use_vmx)
{
	struct pt_trace_status st;
	struct pt_trace_mmap_page *pg;
	int fd = start_stream(WM, &pg), seen = 0;
	size_t before;
	double t0;

	if (use_vmx)
		cx_agent("vmx", cpu, "on");
	else
		cx_agent("foreign", cpu, "clear");
	/* The record: at the next PMI or watchdog (50 ms); up to 3 s. */
	for (t0 = st_now(); !use_vmx && st_now() - t0 < 3; usleep(20000))
		if (taken_records(pg))
			break;
	if (use_vmx) {
		/* The 50 ms stream watchdog notices: up to 3 s. */
		for (t0 = st_now(); st_now() - t0 < 3; usleep(20000)) {
			st_status(fd, &st);
			if (st.flags & PT_STATUS_TAKEN_OVER)
				break;
		}
		seen = !!(st.flags & PT_STATUS_TAKEN_OVER);
		printf("PTT-INFO vmx on: status %#x after %.2f s\n", st.flags,
		       st_now() - t0);
		CHECK(seen, "VMXON stopped the trace: status must say taken over (waited %.1f s)",
		      st_now() - t0);
		cx_agent("vmx", cpu, "off");
		/* Resumed by the watchdog: up to 3 s. */
		for (t0 = st_now(); st_now() - t0 < 3; usleep(20000)) {
			st_status(fd, &st);
			if (!(st.flags & PT_STATUS_TAKEN_OVER))
				break;
		}
	}
	drain(fd);
	before = total;
	/*
	 * Data is published per ToPA region: a whole one on single-entry
	 * (at 2 MB/s a few ms; up to 5 s).
	 */
	for (t0 = st_now(); total == before && st_now() - t0 < 5; ) {
		usleep(50000);
		drain(fd);
	}
	st_status(fd, &st);
	printf("PTT-INFO %s: records %llu taken %d, status %#x, %zu bytes after\n",
	       use_vmx ? "vmx" : "clear", (unsigned long long)st.loss_records,
	       taken_records(pg), st.flags, total - before);
	CHECK(taken_records(pg) == 1, "one loss record flagged taken over");
	CHECK(!(st.flags & PT_STATUS_TAKEN_OVER), "resumed, status still taken over");
	CHECK(st.flags & PT_STATUS_RUNNING, "the stream ended");
	CHECK(total > before, "no data after the CPU was ours again (waited %.1f s)",
	      st_now() - t0);
	CHECK(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	munmap(pg, 4096);
	close(fd);
	st_restore_model();
}

static void perf_like(void)
{
	long long f0 = st_model("foreign_faults"), gp0 = st_model("gp_faults");
	long mark = cx_log_mark();
	struct pt_trace_mmap_page *pg;
	int fd = start_stream(0, &pg);
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct pt_trace_status st;
	double t0;
	ssize_t n;

	cx_agent("foreign", cpu, "start");
	printf("PTT-INFO the owner's writes while we trace: %lld faults\n",
	       st_model("foreign_faults") - f0);
	/* RTIT_CTL too, unless its value is ours exactly (bdw). */
	CHECK(st_model("foreign_faults") - f0 >= 3,
	      "its output writes must fault while our TraceEn is 1");
	usleep(100000);
	st_status(fd, &st);
	CHECK(!(st.flags & PT_STATUS_TAKEN_OVER), "taken over by faulting writes");
	drain(fd);
	/* Its sched-out, then its sched-in on its own table. */
	cx_agent("foreign", cpu, "switch");
	t0 = st_now();
	while (st_now() - t0 < 2) {
		pfd.revents = 0;
		poll(&pfd, 1, 100);
		if (pfd.revents & POLLERR)
			break;
		drain(fd);
	}
	printf("PTT-INFO woken after %.3f s, revents %#x\n", st_now() - t0,
	       pfd.revents);
	CHECK(pfd.revents & POLLERR, "a poller was not woken with EPOLLERR");
	drain(fd);
	n = read(fd, out, 4096);
	CHECK(n < 0 && errno == EIO, "read after the takeover: %zd %s", n,
	      strerror(errno));
	st_status(fd, &st);
	CHECK(st.flags & PT_STATUS_TAKEN_OVER, "status %#x", st.flags);
	CHECK(taken_records(pg) == 1, "one loss record flagged taken over");
	CHECK(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	CHECK(model_ctl() & PT_CTL_TRACEEN,
	      "STOP wrote RTIT_CTL of a trace that is not ours");
	errno = 0;
	CHECK(ioctl(fd, PT_TRACE_IOC_START) < 0 && errno == EBUSY,
	      "START again after a takeover: %s", strerror(errno));
	CHECK(st_model("gp_faults") == gp0, "the driver faulted");
	munmap(pg, 4096);
	close(fd);
	CHECK(cx_log_has(mark, "leaked"), "no log line for the kept buffer");
	cx_agent("foreign", cpu, "stop");
	cx_agent("foreign", cpu, "off");
	st_restore_model();
}

static int flight_open(void)
{
	struct pt_trace_config cfg = { .size = sizeof(cfg) };
	int fd = ptt_open_cpu(cpu, O_RDWR);

	REQUIRE(fd >= 0, "open: %s", strerror(errno));
	cfg.ctl = PT_CTL_BRANCHEN | PT_CTL_USER | PT_CTL_OS;
	cfg.mode = PT_MODE_FLIGHT;
	cfg.output = PT_OUTPUT_TOPA;
	cfg.buffer_size = 64u << 10;
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &cfg), "SET_CONFIG: %s",
		strerror(errno));
	return fd;
}

/*
 * A flight trace running until it wrote something (20 ms normally; up
 * to 2 s), its first live statuses checked.
 */
static void flight_run(int fd, const char *what)
{
	struct pt_trace_status st;
	double t0;

	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "%s: START: %s", what,
		strerror(errno));
	t0 = st_now();
	do {
		usleep(20000);
		st_status(fd, &st);
	} while (!st.head && !(st.flags & PT_STATUS_TAKEN_OVER) &&
		 st_now() - t0 < 2);
	CHECK(!(st.flags & PT_STATUS_TAKEN_OVER) && st.head > 0,
	      "%s: before the takeover: status %#x head %llu after %.1f s",
	      what, st.flags, (unsigned long long)st.head, st_now() - t0);
}

static void flight_taken(void)
{
	long mark = cx_log_mark();
	struct pt_trace_status st;
	long long ctl;
	int fd = flight_open();

	/* 1. TraceEn cleared, our state left: the data so far is ours. */
	flight_run(fd, "flight, clear");
	cx_agent("foreign", cpu, "clear");
	st_status(fd, &st);
	CHECK(st.flags & PT_STATUS_TAKEN_OVER,
	      "flight, clear: live status %#x", st.flags);
	usleep(20000);
	st_status(fd, &st);
	CHECK(st.flags & PT_STATUS_TAKEN_OVER,
	      "flight, clear: the takeover no longer reported (%#x)", st.flags);
	CHECK(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	st_status(fd, &st);
	printf("PTT-INFO flight, clear: stopped with status %#x head %llu\n",
	       st.flags, (unsigned long long)st.head);
	CHECK((st.flags & PT_STATUS_TAKEN_OVER) && st.head > 0,
	      "flight, clear: STOP: status %#x head %llu", st.flags,
	      (unsigned long long)st.head);
	/* The CPU is ours again: a new trace on the same file. */
	flight_run(fd, "flight, again");
	/* 2. A perf-like owner's sched-out and sched-in, then its sched-out. */
	cx_agent("foreign", cpu, "switch");
	st_status(fd, &st);
	CHECK(st.flags & PT_STATUS_TAKEN_OVER,
	      "flight, perf-like: live status %#x", st.flags);
	cx_agent("foreign", cpu, "stop");
	st_status(fd, &st);
	CHECK(st.flags & PT_STATUS_TAKEN_OVER,
	      "flight, after the owner let go: status %#x", st.flags);
	ctl = model_ctl();
	CHECK(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	st_status(fd, &st);
	printf("PTT-INFO flight, perf-like: stopped with status %#x\n",
	       st.flags);
	CHECK(st.flags & PT_STATUS_TAKEN_OVER, "flight, perf-like: STOP: %#x",
	      st.flags);
	CHECK(model_ctl() == ctl, "STOP wrote RTIT_CTL of a trace not ours");
	errno = 0;
	CHECK(ioctl(fd, PT_TRACE_IOC_START) < 0 && errno == EBUSY,
	      "flight: START again after a takeover: %s", strerror(errno));
	close(fd);
	CHECK(cx_log_has(mark, "leaked"), "flight: no log line for the kept buffer");
	cx_agent("foreign", cpu, "off");
}

int main(void)
{
	struct pt_trace_caps caps;
	int fd;

	cpu = cx_cpu();
	out = malloc(CAP);
	REQUIRE(out, "malloc");
	if (st_model("foreign_pmis") < 0)
		SKIP("the model has no foreign agent");
	fd = st_setup(cpu, BUF, 0, O_NONBLOCK, &caps);
	close(fd);
	cleared(0);
	if (caps.family == 6 && caps.model == 0x3d)	/* bdw: VMX_MISC[14]=0 */
		cleared(1);
	perf_like();
	flight_taken();
	return ptt_done();
}
