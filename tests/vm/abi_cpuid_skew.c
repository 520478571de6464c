// SPDX-License-Identifier: GPL-2.0
/*
 * A CPU whose CPUID leaf 0x14 differs from the boot CPU's (a hybrid
 * part; issue 11 point 5): configurations are validated against the boot
 * CPU's capabilities, so the driver compares each CPU's leaf as it comes
 * online, logs a mismatch and refuses START there with EOPNOTSUPP.  The
 * model's model_cpuid_skew=CPU flips PTWRITE in that CPU's leaf; the
 * CPU is taken offline and online so the driver looks again.  At the end
 * the skew is undone the same way and the CPU traces again.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/pt_trace.h>

#include "ptt_test.h"

#define SKEW	"/sys/module/pt_trace_model/parameters/model_cpuid_skew"
#define LOG	"differ from the boot CPU"

static int cpu = 1;

static int log_count(void)
{
	char re[80];

	snprintf(re, sizeof(re), "CPU %d: .*%s", cpu, LOG);
	return ptt_dmesg_count(re);
}

/* Offline and online again: the driver's online callback runs there. */
static void replug(void)
{
	char path[80];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online",
		 cpu);
	REQUIRE(!ptt_write_str(path, "0"), "offline cpu%d: %s", cpu,
		strerror(errno));
	REQUIRE(!ptt_write_str(path, "1"), "online cpu%d: %s", cpu,
		strerror(errno));
}

/* START on the CPU: 0 or the errno. */
static int try_start(void)
{
	int fd, ret = 0, i;

	/* The node comes back with the CPU (devtmpfs): give it a moment. */
	for (i = 0; (fd = ptt_open_cpu(cpu, O_RDWR)) < 0 && i < 50; i++)
		usleep(20 * 1000);
	REQUIRE(fd >= 0, "open /dev/pt%d: %s", cpu, strerror(errno));
	if (ioctl(fd, PT_TRACE_IOC_START))
		ret = errno;
	else
		CHECK(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s",
		      strerror(errno));
	close(fd);
	return ret;
}

int main(void)
{
	char val[16];
	int n0, ret;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP("one CPU: nothing to compare");
	if (access(SKEW, W_OK))
		SKIP("no model_cpuid_skew");
	n0 = log_count();
	snprintf(val, sizeof(val), "%d", cpu);
	REQUIRE(!ptt_write_str(SKEW, val), "model_cpuid_skew");
	replug();
	ret = try_start();
	CHECK(ret == EOPNOTSUPP, "START on cpu%d with another leaf 0x14: %s, want EOPNOTSUPP",
	      cpu, ret ? strerror(ret) : "started");
	CHECK(log_count() == n0 + 1, "want one log line '%s' for CPU %d",
	      LOG, cpu);

	REQUIRE(!ptt_write_str(SKEW, "-1"), "model_cpuid_skew off");
	replug();
	ret = try_start();
	CHECK(ret == 0, "START after the leaf agrees again: %s",
	      strerror(ret));
	CHECK(log_count() == n0 + 1, "a log line for an agreeing leaf");
	return ptt_done();
}
