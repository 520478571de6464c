// SPDX-License-Identifier: GPL-2.0
/*
 * A disabling RTIT_CTL write that #GPs (issue 11 point 5): the hardware
 * may still be writing the buffer, so the driver must keep it (leaked,
 * one log line) and refuse START and any buffer replacement on that CPU
 * with EIO, without a driver #GP (it must not program a CPU whose
 * TraceEn it could not clear).  The model's ctl_fault hook makes the
 * next TraceEn-clearing write fault once (counted in gp_faults_test);
 * the model then goes on tracing, into a single range (no PMI can
 * follow).  The CPU stays refused until the modules are reloaded, so the
 * test reloads them as the runner loaded them: the kept buffer is
 * reported at unload and left allocated (kmemleak must not report it,
 * the runner's scan comes later), and the CPU traces again afterwards.
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

#define MODEL_DIR	"/sys/kernel/debug/pt_trace/model/"
#define BUF		(64u * 1024)
#define LOG_KEEP	"TraceEn could not be cleared"
#define LOG_UNLOAD	"unloading with the"

static int open_single(int cpu, struct pt_trace_caps *caps)
{
	struct pt_trace_config cfg = { .size = sizeof(cfg) };
	int fd = ptt_open_cpu(cpu, O_RDWR);

	REQUIRE(fd >= 0, "open /dev/pt%d: %s", cpu, strerror(errno));
	memset(caps, 0, sizeof(*caps));
	caps->size = sizeof(*caps);
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_GET_CAPS, caps), "GET_CAPS");
	if (!(caps->flags & PT_CAP_SINGLE_RANGE))
		SKIP("no single-range output");
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_GET_CONFIG, &cfg), "GET_CONFIG");
	cfg.ctl = PT_CTL_BRANCHEN | PT_CTL_USER | PT_CTL_OS;
	cfg.output = PT_OUTPUT_SINGLE;
	cfg.mode = PT_MODE_FLIGHT;
	cfg.buffer_size = BUF;
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &cfg), "SET_CONFIG: %s",
		strerror(errno));
	return fd;
}

int main(void)
{
	int cpu = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 1 : 0, fd, ret, err;
	long long gp0, gpt0;
	struct pt_trace_caps caps;
	__u64 size = 2 * BUF;
	char cmd[200];
	int keep0, unload0;

	if (access(MODEL_DIR "ctl_fault", W_OK))
		SKIP("no ctl_fault hook");
	fd = open_single(cpu, &caps);
	keep0 = ptt_dmesg_count(LOG_KEEP);
	unload0 = ptt_dmesg_count(LOG_UNLOAD);
	gp0 = ptt_read_ll(MODEL_DIR "gp_faults");
	gpt0 = ptt_read_ll(MODEL_DIR "gp_faults_test");
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	usleep(20 * 1000);
	snprintf(cmd, sizeof(cmd), "%d", cpu);
	REQUIRE(!ptt_write_str(MODEL_DIR "ctl_fault", cmd), "ctl_fault");
	ret = ioctl(fd, PT_TRACE_IOC_STOP);
	printf("PTT-INFO STOP after the failed disabling write: %d (%s)\n",
	       ret, ret ? strerror(errno) : "ok");
	CHECK(ptt_read_ll(MODEL_DIR "gp_faults_test") == gpt0 + 1,
	      "the injected #GP did not happen once");

	ret = ioctl(fd, PT_TRACE_IOC_START);
	err = errno;
	CHECK(ret == -1 && err == EIO, "START again: %d %s, want EIO", ret,
	      strerror(err));
	ret = ioctl(fd, PT_TRACE_IOC_SET_BUFSIZE, &size);
	err = errno;
	CHECK(ret == -1 && err == EIO, "SET_BUFSIZE: %d %s, want EIO", ret,
	      strerror(err));
	CHECK(ptt_read_ll(MODEL_DIR "gp_faults") == gp0,
	      "the driver wrote PT MSRs of a CPU still tracing (#GP)");
	CHECK(ptt_dmesg_count(LOG_KEEP) == keep0 + 1, "want one log line '%s'",
	      LOG_KEEP);
	close(fd);

	/* Refused until reloaded: reload as the runner loaded them. */
	snprintf(cmd, sizeof(cmd),
		 ". /ptt/lib.sh && ptt_unload_model && ptt_load_model model_profile=%s",
		 getenv("PTT_PROFILE") ? getenv("PTT_PROFILE") : "icl");
	REQUIRE(system(cmd) == 0, "reloading the modules");
	CHECK(ptt_dmesg_count(LOG_UNLOAD) == unload0 + 1,
	      "the kept buffer was not reported at unload");
	fd = open_single(cpu, &caps);
	CHECK(!ioctl(fd, PT_TRACE_IOC_START), "START after reload: %s",
	      strerror(errno));
	CHECK(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP after reload: %s",
	      strerror(errno));
	close(fd);
	return ptt_done();
}
