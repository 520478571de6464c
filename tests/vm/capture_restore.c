// SPDX-License-Identifier: GPL-2.0
/*
 * The driver leaves the PT MSRs as it found them.  perf's intel_pt caches
 * what it last wrote to OUTPUT_BASE, OUTPUT_MASK_PTRS and ADDRn_A/B and
 * skips writes that would not change them, so values a START overwrote
 * must be back after the STOP (else perf could trace through our freed
 * ToPA).  Foreign values are planted before START and read back after
 * STOP (and after close) through the model's debugfs msr hook, in
 * flight-recorder mode (AUTO output) and in streaming mode (ToPA); while
 * tracing, OUTPUT_BASE must be the driver's own.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/pt_trace.h>

#include "ptt_test.h"

#define HOOK	"/sys/kernel/debug/pt_trace/model/msr"
#define CPU	0

/* STATUS bits 2:0 (FilterEn, ContextEn, TriggerEn) are the hardware's. */
#define STATUS_RO	0x7ULL

struct plant {
	unsigned int msr;
	__u64 val;
	__u64 cmp_mask;		/* bits that must come back */
};

static struct plant plants[16];
static int nplants;

static int hook_write(const char *s)
{
	int fd = open(HOOK, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

static int wrmsr(unsigned int msr, __u64 val)
{
	char buf[80];

	snprintf(buf, sizeof(buf), "%d %x %llx", CPU, msr,
		 (unsigned long long)val);
	return hook_write(buf);
}

static int rdmsr(unsigned int msr, __u64 *val)
{
	char buf[80];

	snprintf(buf, sizeof(buf), "%d %x", CPU, msr);
	if (hook_write(buf) || ptt_read_str(HOOK, buf, sizeof(buf)))
		return -1;
	*val = strtoull(buf, NULL, 0);
	return 0;
}

static void add(unsigned int msr, __u64 val, __u64 cmp_mask)
{
	plants[nplants].msr = msr;
	plants[nplants].val = val;
	plants[nplants].cmp_mask = cmp_mask;
	nplants++;
}

static void plant_all(void)
{
	for (int i = 0; i < nplants; i++)
		REQUIRE(wrmsr(plants[i].msr, plants[i].val) == 0,
			"plant msr %#x = %#llx", plants[i].msr,
			(unsigned long long)plants[i].val);
}

static void check_all(const char *when)
{
	for (int i = 0; i < nplants; i++) {
		__u64 v = 0;

		REQUIRE(rdmsr(plants[i].msr, &v) == 0, "read msr %#x",
			plants[i].msr);
		CHECK((v & plants[i].cmp_mask) ==
		      (plants[i].val & plants[i].cmp_mask),
		      "%s: msr %#x is %#llx, the previous owner left %#llx",
		      when, plants[i].msr, (unsigned long long)v,
		      (unsigned long long)plants[i].val);
	}
}

static void session(int fd, __u32 mode, const char *name)
{
	struct pt_trace_config c = { .size = sizeof(c) };
	__u64 base = 0;

	c.ctl = PT_CTL_BRANCHEN | PT_CTL_USER;
	c.mode = mode;
	c.buffer_size = 65536;
	REQUIRE(ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &c) == 0, "%s: config: %s",
		name, strerror(errno));
	plant_all();
	REQUIRE(ioctl(fd, PT_TRACE_IOC_START) == 0, "%s: start: %s", name,
		strerror(errno));
	for (int i = 0; i < 200000; i++)
		__asm__ __volatile__("" : : : "memory");
	/* While tracing the registers are the driver's. */
	CHECK(rdmsr(0x560, &base) == 0 && base != plants[0].val,
	      "%s: OUTPUT_BASE while tracing is %#llx", name,
	      (unsigned long long)base);
	CHECK(ioctl(fd, PT_TRACE_IOC_STOP) == 0, "%s: stop: %s", name,
	      strerror(errno));
	printf("PTT-INFO %s: OUTPUT_BASE %#llx while tracing\n", name,
	       (unsigned long long)base);
	check_all(name);
}

int main(void)
{
	struct pt_trace_caps caps = { .size = sizeof(caps) };
	char backend[16];
	/* Since load; an earlier test in this VM may have added some. */
	long long msr0 = ptt_read_ll("/sys/kernel/debug/pt_trace/msr_faults");
	long long gp0 = ptt_read_ll("/sys/kernel/debug/pt_trace/model/gp_faults");
	__u64 status;
	int fd;

	if (ptt_read_str("/sys/kernel/pt_trace/backend", backend,
			 sizeof(backend)) || strcmp(backend, "model"))
		SKIP("needs the model backend (its debugfs msr hook)");
	if (access(HOOK, W_OK))
		SKIP("no model msr hook: %s", strerror(errno));
	REQUIRE(ptt_pin_cpu(CPU) == 0, "pin");
	fd = ptt_open_cpu(CPU, O_RDONLY);
	REQUIRE(fd >= 0, "open: %s", strerror(errno));
	REQUIRE(ioctl(fd, PT_TRACE_IOC_GET_CAPS, &caps) == 0, "caps");

	/* What another owner might have left (plants[0] is OUTPUT_BASE). */
	add(0x560, 0x7654000, ~0ULL);
	add(0x561, 0x000012300000ff7fULL, ~0ULL);
	status = 0x20;			/* Stopped */
	if (caps.flags & PT_CAP_PSB_CYC)
		status |= 0x1234ULL << 32;	/* PacketByteCnt */
	add(0x571, status, ~STATUS_RO);
	if (caps.flags & PT_CAP_CR3_FILTER)
		add(0x572, 0xabcde000, ~0ULL);
	for (unsigned int n = 0; n < caps.num_addr_ranges; n++) {
		add(0x580 + 2 * n, 0x1000ULL * (n + 1), ~0ULL);
		add(0x581 + 2 * n, 0x7fff0000ULL + n, ~0ULL);
	}
	printf("PTT-INFO %d MSRs planted\n", nplants);

	session(fd, PT_MODE_FLIGHT, "flight");
	if (caps.flags & PT_CAP_TOPA)
		session(fd, PT_MODE_STREAM, "stream");
	close(fd);
	check_all("after close");

	/* Leave reset values for the tests that follow. */
	for (int i = 0; i < nplants; i++)
		CHECK(wrmsr(plants[i].msr, plants[i].msr == 0x561 ? 0x7f : 0) == 0,
		      "reset msr %#x", plants[i].msr);
	CHECK(ptt_read_ll("/sys/kernel/debug/pt_trace/msr_faults") == msr0,
	      "driver MSR faults");
	CHECK(ptt_read_ll("/sys/kernel/debug/pt_trace/model/gp_faults") == gp0,
	      "model #GPs from the driver");
	return ptt_done();
}
