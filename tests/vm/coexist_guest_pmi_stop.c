// SPDX-License-Identifier: GPL-2.0
/*
 * A KVM guest's PMI after a TraceStop range stopped our flight recorder
 * on a CPU in VMX operation.  There a lap PMI halts the trace to judge
 * it (coexist_guest_pmi), and it finds RTIT_STATUS.Stopped; it must wake
 * the pollers (the stop is seen there first: EPOLLPRI), judge the PMI as
 * any other (our output sits mid-ring, where no lap leaves it: the
 * guest's, left to perf's handler and so to KVM), keep the trace off,
 * and not call the stop an error.  On the code before, the driver took
 * the guest's PMI (foreign_stolen 1) and the session ended in HW_ERROR
 * beside HW_STOPPED.
 *
 * A 1 MiB ring with lap PMIs, a STOP range over a function a child
 * pinned to the traced CPU enters once the output is in the middle of
 * the ring (the parent polls the status for that, then never again
 * before the guest's PMI, so that the PMI is where the stop is noticed).
 * icl only (VMX operation that allows tracing; bdw refuses START there,
 * min has no VMX).
 */
#include <signal.h>
#include <sys/wait.h>

#include "coexist_common.h"
#include "model_common.h"

#define RING	(1024u * 1024)

static unsigned long sink;

MC_SECTION_BOUNDS(ptt_guest_stop);

static noinline __used __section("ptt_guest_stop") void stopper(void)
{
	for (;;)
		__atomic_fetch_add(&sink, 1, __ATOMIC_RELAXED);
}

/* The child: spin outside the range until told, then enter it. */
static void child(int cpu, int *go)
{
	ptt_pin_cpu(cpu);
	while (!__atomic_load_n(go, __ATOMIC_RELAXED))
		__atomic_fetch_add(&sink, 1, __ATOMIC_RELAXED);
	stopper();
}

int main(void)
{
	struct pt_trace_addr addr = { .size = sizeof(addr) };
	struct pt_trace_status st;
	struct pollfd p;
	long long h0, s0, l0, l1;
	int *go;
	unsigned long long off = 0;
	double t0;
	int cpu = cx_cpu(), fd, n;
	pid_t pid;

	if (getenv("PTT_PROFILE") && strcmp(getenv("PTT_PROFILE"), "icl"))
		SKIP("VMX operation that allows tracing: icl only");
	ptt_pin_cpu(cpu ? 0 : 1);
	go = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	REQUIRE(go != MAP_FAILED, "mmap");
	fd = cx_open_flight(cpu, RING);
	addr.index = 0;
	addr.cfg = PT_ADDR_CFG_STOP;
	addr.start = (__u64)(unsigned long)__start_ptt_guest_stop;
	addr.end = (__u64)(unsigned long)__stop_ptt_guest_stop - 1;
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_SET_ADDR, &addr), "SET_ADDR: %s",
		strerror(errno));
	cx_agent("vmx", cpu, "on");
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	pid = fork();
	REQUIRE(pid >= 0, "fork");
	if (!pid)
		child(cpu, go);
	/* The output in the middle of a lap (2 MB/s: ~0.25 s), up to 10 s. */
	for (t0 = st_now(); st_now() - t0 < 10; usleep(5000)) {
		st_status(fd, &st);
		off = st.head % RING;
		if (off >= RING / 4 && off < RING / 2)
			break;
	}
	REQUIRE(off >= RING / 4 && off < RING / 2,
		"the output never came to the middle of the ring (%llu)", off);
	__atomic_store_n(go, 1, __ATOMIC_RELAXED);
	/* A tick or two of the model sees the child in the range. */
	usleep(300000);
	h0 = st_model("foreign_handled");
	s0 = st_model("foreign_stolen");
	l0 = st_stream_counter(cpu, "laps");
	cx_agent("foreign", cpu, "pmi");
	p = (struct pollfd){ .fd = fd, .events = POLLPRI };
	n = poll(&p, 1, 2000);
	cx_settle();
	l1 = st_stream_counter(cpu, "laps");
	printf("PTT-INFO poll %d revents %#x; ", n, p.revents);
	printf("foreign handled %lld stolen %lld; laps %lld -> %lld\n",
	       st_model("foreign_handled") - h0,
	       st_model("foreign_stolen") - s0, l0, l1);
	cx_agent("foreign", cpu, "off");
	CHECK(n == 1 && (p.revents & POLLPRI),
	      "the guest's PMI did not wake the poller: poll %d, revents %#x",
	      n, p.revents);
	CHECK(st_model("foreign_stolen") == s0,
	      "the driver took the guest's PMI");
	CHECK(st_model("foreign_handled") == h0 + 1,
	      "perf's handler did not get the guest's PMI");
	CHECK(l1 == l0, "the guest's PMI counted as a lap (%lld -> %lld)",
	      l0, l1);
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	st_status(fd, &st);
	CHECK(st.flags & PT_STATUS_HW_STOPPED, "no HW_STOPPED after STOP: %#x",
	      st.flags);
	CHECK(!(st.flags & PT_STATUS_HW_ERROR),
	      "a TraceStop ended the session in HW_ERROR: %#x", st.flags);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	cx_agent("vmx", cpu, "off");
	close(fd);
	return ptt_done();
}
