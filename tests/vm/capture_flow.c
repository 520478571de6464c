// SPDX-License-Identifier: GPL-2.0
/*
 * The design card end to end: open /dev/pt0, pin to CPU 0, trace kernel
 * and user (OS=1, USER=1), CR3 filter on this process (by PID 0), CYCEn,
 * start, run a syscall-heavy workload while a child process on the same
 * CPU (another address space, so another CR3) competes with it, stop,
 * mmap, and check that the trace decodes, has CYC packets when the CPU
 * has them, and, with CR3 filtering, has PIPs and every one of them
 * carries the filtered CR3.
 *
 * With OS=1 the CR3 by PID is the process's kernel CR3.  Under PTI its
 * user half runs on the user page tables (CR3 bit 12, and bit 11 with
 * PCID), which the filter rightly rejects: PIPs then come from the
 * ticks that land in the process's system calls, where the CR3 changes
 * to the filtered one (Table 36-50: PIP(NewCR3) when ContextEn is 1
 * after the MOV CR3) and from the PSB+ there.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <intel-pt.h>
#include <linux/pt_trace.h>

#include "ptt_test.h"

#define CHUNK	(128 << 10)

static unsigned long sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Mostly in the kernel: reading /dev/zero clears user memory in kernel
 * mode, so the model's ticks often land in this process's kernel
 * context.  Some user work between the calls keeps user ticks too.
 * Runs for a bounded time, not a fixed count: TCG speed varies.
 */
static void workload(int zero, char *buf)
{
	double t0 = now();
	unsigned long i, calls = 0;

	while (now() - t0 < 0.6 || calls < 64) {
		if (read(zero, buf, CHUNK) != CHUNK)
			break;
		calls++;
		for (i = 0; i < 20000; i++) {
			sink += i * 7;
			__asm__ __volatile__("" : : "r"(sink) : "memory");
		}
		if (!(calls % 8))
			getppid();
	}
	fprintf(stderr, "PTT-INFO %lu reads of %u bytes\n", calls, CHUNK);
}

/* Another address space on the same CPU, in and out of the kernel. */
static pid_t spawn_competitor(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		static char buf[4096];
		int zero = open("/dev/zero", O_RDONLY);

		ptt_pin_cpu(0);
		for (;;) {
			if (zero >= 0 && read(zero, buf, sizeof(buf)) < 0)
				_exit(1);
			getppid();
		}
	}
	return pid;
}

struct pip_check {
	__u64 cr3, pips, bad;
};

/* Count PIPs and those whose CR3 differs from the filter's (bits 51:5). */
static void pip_fn(const struct pt_packet *pkt, void *ctx)
{
	struct pip_check *c = ctx;

	if (pkt->type != ppt_pip)
		return;
	c->pips++;
	if ((pkt->payload.pip.cr3 & ~0x1fULL) != (c->cr3 & 0xfffffffffffe0ULL))
		c->bad++;
}

static void check_pips(const __u8 *buf, size_t len, __u64 cr3,
		       __u64 *pips, __u64 *bad)
{
	struct pip_check c = { .cr3 = cr3 };

	ptt_walk_packets(buf, len, NULL, pip_fn, &c);
	*pips += c.pips;
	*bad += c.bad;
}

int main(void)
{
	struct pt_trace_caps caps = { .size = sizeof(caps) };
	struct pt_trace_status st = { .size = sizeof(st) };
	struct pt_trace_config cfg = { .size = sizeof(cfg) };
	struct pt_trace_cr3 cr3 = { .size = sizeof(cr3) };
	struct pt_trace_cyc cyc = { .size = sizeof(cyc) };
	struct pt_trace_mmap_page *ctrl;
	struct ptt_packet_stats ps;
	__u8 *map, *lin;
	size_t maplen;
	__u64 pips = 0, bad = 0, first, n;
	int fd, zero, has_cr3, has_cyc;
	char *buf;
	pid_t child;

	REQUIRE(ptt_pin_cpu(0) == 0, "pin: %s", strerror(errno));
	fd = ptt_open_cpu(0, O_RDONLY);
	REQUIRE(fd >= 0, "open /dev/pt0: %s", strerror(errno));
	REQUIRE(ioctl(fd, PT_TRACE_IOC_GET_CAPS, &caps) == 0, "GET_CAPS: %s",
		strerror(errno));
	CHECK(caps.abi_version == PT_TRACE_ABI_VERSION, "abi %u", caps.abi_version);
	CHECK(caps.cpu == 0, "cpu %u", caps.cpu);
	has_cr3 = !!(caps.flags & PT_CAP_CR3_FILTER);
	has_cyc = !!(caps.flags & PT_CAP_PSB_CYC);

	/* Kernel and user: the CR3 by PID is then the kernel CR3. */
	REQUIRE(ioctl(fd, PT_TRACE_IOC_GET_CONFIG, &cfg) == 0, "GET_CONFIG: %s",
		strerror(errno));
	cfg.ctl |= PT_CTL_OS | PT_CTL_USER;
	REQUIRE(ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &cfg) == 0, "SET_CONFIG: %s",
		strerror(errno));
	if (has_cr3) {
		cr3.how = PT_CR3_BY_PID;
		cr3.pid = 0;
		CHECK(ioctl(fd, PT_TRACE_IOC_SET_CR3, &cr3) == 0, "SET_CR3: %s",
		      strerror(errno));
		CHECK(cr3.cr3 && !(cr3.cr3 & 0x1f), "cr3 %#llx",
		      (unsigned long long)cr3.cr3);
		/* Kernel CR3: neither PTI user bit. */
		CHECK(!(cr3.cr3 & 0x1800), "cr3 %#llx is a PTI user CR3",
		      (unsigned long long)cr3.cr3);
	}
	if (has_cyc) {
		cyc.enable = 1;
		CHECK(ioctl(fd, PT_TRACE_IOC_SET_CYC, &cyc) == 0, "SET_CYC: %s",
		      strerror(errno));
	}
	zero = open("/dev/zero", O_RDONLY);
	REQUIRE(zero >= 0, "open /dev/zero: %s", strerror(errno));
	buf = malloc(CHUNK);
	REQUIRE(buf, "malloc");
	child = spawn_competitor();
	REQUIRE(child > 0, "fork: %s", strerror(errno));
	REQUIRE(ioctl(fd, PT_TRACE_IOC_START) == 0, "START: %s", strerror(errno));
	workload(zero, buf);
	REQUIRE(ioctl(fd, PT_TRACE_IOC_STOP) == 0, "STOP: %s", strerror(errno));
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	free(buf);
	close(zero);
	REQUIRE(ioctl(fd, PT_TRACE_IOC_GET_STATUS, &st) == 0, "STATUS: %s",
		strerror(errno));
	CHECK(!(st.flags & PT_STATUS_RUNNING), "still running");
	CHECK(st.flags & PT_STATUS_CONFIGURED, "flags %#x", st.flags);
	CHECK(st.output == PT_OUTPUT_TOPA || st.output == PT_OUTPUT_SINGLE,
	      "output %u", st.output);
	CHECK(st.offset < st.buffer_size, "offset %llu",
	      (unsigned long long)st.offset);
	CHECK(!(st.flags & (PT_STATUS_HW_ERROR | PT_STATUS_HW_STOPPED)),
	      "hw flags %#x status %#llx", st.flags,
	      (unsigned long long)st.rtit_status);

	maplen = 4096 + st.buffer_size;
	map = mmap(NULL, maplen, PROT_READ, MAP_SHARED, fd, 0);
	REQUIRE(map != MAP_FAILED, "mmap: %s", strerror(errno));
	ctrl = (void *)map;
	CHECK(ctrl->version == PT_TRACE_ABI_VERSION, "version %u", ctrl->version);
	CHECK(ctrl->data_offset == 4096, "data_offset %llu",
	      (unsigned long long)ctrl->data_offset);
	CHECK(ctrl->data_size == st.buffer_size, "data_size");
	CHECK(__atomic_load_n(&ctrl->data_head, __ATOMIC_ACQUIRE) == st.head,
	      "head %llu vs %llu", (unsigned long long)ctrl->data_head,
	      (unsigned long long)st.head);

	if (!st.head) {
		fprintf(stderr, "PTT-INFO the model wrote no trace\n");
		if (ptt_failures)
			return ptt_done();
		SKIP("no trace produced (model without packet output)");
	}
	/* Oldest first: [head - size, head) modulo size. */
	n = st.head < st.buffer_size ? st.head : st.buffer_size;
	first = (st.head - n) % st.buffer_size;
	lin = malloc(n);
	REQUIRE(lin, "malloc");
	for (__u64 i = 0; i < n; i++)
		lin[i] = map[4096 + (first + i) % st.buffer_size];

	REQUIRE(ptt_decode_packets(lin, n, &ps) == 0, "no PSB in %llu bytes",
		(unsigned long long)n);
	CHECK(ps.packets > 0, "no packets");
	CHECK(ps.errors == 0, "%llu decode errors, first at %llu",
	      (unsigned long long)ps.errors,
	      (unsigned long long)ps.first_error_offset);
	if (has_cyc)
		CHECK(ps.cyc > 0, "no CYC packets with CYCEn");
	check_pips(lin, n, cr3.cr3, &pips, &bad);
	CHECK(ps.pip == pips, "PIP count %llu vs %llu",
	      (unsigned long long)ps.pip, (unsigned long long)pips);
	if (has_cr3) {
		/* Not vacuous: the process's kernel context was traced. */
		CHECK(pips > 0, "no PIP with OS=1 and the process's CR3");
		CHECK(bad == 0, "%llu of %llu PIPs with another CR3",
		      (unsigned long long)bad, (unsigned long long)pips);
	} else {
		/* No filter: OS=1 puts a PIP in every PSB+. */
		CHECK(pips > 0, "no PIP with OS=1");
	}
	fprintf(stderr,
		"PTT-INFO %llu bytes, %llu packets, %llu cyc, %llu pip (%llu other CR3), cr3 %#llx\n",
		(unsigned long long)n, (unsigned long long)ps.packets,
		(unsigned long long)ps.cyc, (unsigned long long)pips,
		(unsigned long long)bad, (unsigned long long)cr3.cr3);
	free(lin);
	munmap(map, maplen);
	close(fd);
	return ptt_done();
}
