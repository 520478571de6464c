/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the tests/vm/coexist_*.c tests: the model's other agents
 * (debugfs foreign, late_pmi, vmx: model/agents.c) and the kernel log
 * since a mark.
 */
#ifndef COEXIST_COMMON_H
#define COEXIST_COMMON_H

#include "stream_common.h"
#include "stream_wd.h"

/* The CPU the agents act on: the second one when there is one. */
static inline int cx_cpu(void)
{
	return sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 1 : 0;
}

/* "CPU ACTION" to one of the model's agent files; skips without it. */
static inline void cx_agent(const char *file, int cpu, const char *action)
{
	char path[128], cmd[64];

	snprintf(path, sizeof(path), MODEL_DIR "%s", file);
	if (access(path, W_OK))
		SKIP("the model has no %s hook", file);
	snprintf(cmd, sizeof(cmd), "%d %s", cpu, action);
	REQUIRE(!ptt_write_str(path, cmd), "%s: %s", path, cmd);
}

/*
 * /dev/pt@cpu configured for flight mode through ToPA, branches in user
 * and kernel mode, a ring of @size bytes: the traced side the agents
 * act against.
 */
static inline int cx_open_flight(int cpu, unsigned long long size)
{
	struct pt_trace_config cfg;
	int fd;

	fd = ptt_open_cpu(cpu, O_RDWR);
	REQUIRE(fd >= 0, "open: %s", strerror(errno));
	memset(&cfg, 0, sizeof(cfg));
	cfg.size = sizeof(cfg);
	cfg.ctl = PT_CTL_BRANCHEN | PT_CTL_USER | PT_CTL_OS;
	cfg.mode = PT_MODE_FLIGHT;
	cfg.output = PT_OUTPUT_TOPA;
	cfg.buffer_size = size;
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &cfg), "SET_CONFIG: %s",
		strerror(errno));
	return fd;
}

/* Let an NMI sent to another CPU arrive and its handlers run. */
static inline void cx_settle(void)
{
	usleep(20000);
}

/*
 * A foreign bit-55 PMI (perf's, a KVM guest's) on @cpu: the driver must
 * not claim it, and the agent's handler, after ours, must find the bit.
 */
static inline void cx_foreign_pmi_not_claimed(int cpu, const char *when)
{
	long long h0 = st_model("foreign_handled");
	long long s0 = st_model("foreign_stolen");
	double t0;

	cx_agent("foreign", cpu, "pmi");
	/*
	 * Its handler counts it either way: wait for that (up to 2 s, a
	 * stolen vCPU may take a while), then as long again as before for
	 * anything the driver might do after the NMI.
	 */
	for (t0 = st_now(); st_now() - t0 < 2; usleep(1000))
		if (st_model("foreign_handled") + st_model("foreign_stolen") !=
		    h0 + s0)
			break;
	cx_settle();
	printf("PTT-INFO %s: foreign_handled %lld stolen %lld\n", when,
	       st_model("foreign_handled") - h0,
	       st_model("foreign_stolen") - s0);
	CHECK(st_model("foreign_stolen") == s0,
	      "%s: the driver claimed (acknowledged) a foreign PMI", when);
	CHECK(st_model("foreign_handled") == h0 + 1,
	      "%s: the foreign handler did not get its PMI (waited %.1f s)",
	      when, st_now() - t0);
	cx_agent("foreign", cpu, "off");
}

/* The number of kernel log lines so far: a mark for cx_log_has(). */
static inline long cx_log_mark(void)
{
	FILE *p = popen("dmesg | wc -l", "r");
	long n = 0;

	if (p) {
		if (fscanf(p, "%ld", &n) != 1)
			n = 0;
		pclose(p);
	}
	return n;
}

/* Does the kernel log after @mark contain @what? */
static inline int cx_log_has(long mark, const char *what)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "dmesg | tail -n +%ld | grep -q -e '%s'",
		 mark + 1, what);
	return system(cmd) == 0;
}

/*
 * 1 when the model says @cpu's LVTPC is masked (a PMI was delivered and
 * nobody unmasked it since: on silicon no later PMI, ours or perf's,
 * reaches that CPU), 0 when not, -1 when the model does not say.
 */
static inline int cx_lvtpc_masked(int cpu)
{
	char want[32], line[512];
	int masked = -1, n;
	FILE *f = fopen(MODEL_DIR "detail", "r");

	if (!f)
		return -1;
	n = snprintf(want, sizeof(want), "cpu%d ctl ", cpu);
	while (fgets(line, sizeof(line), f)) {
		const char *p = strstr(line, " lvtpc_masked ");

		if (!strncmp(line, want, (size_t)n) && p)
			masked = atoi(p + strlen(" lvtpc_masked "));
	}
	fclose(f);
	return masked;
}

#endif /* COEXIST_COMMON_H */
