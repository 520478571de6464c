/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The model's pebs_agent (perf's PEBS, model/pebs.c) as the bts_pebs and
 * bts_kvm tests drive it on cpu0: its actions, whether IA32_DS_AREA is
 * its own, its record count, and a BTS START with a small buffer.
 */
#ifndef BTS_PEBS_AGENT_H
#define BTS_PEBS_AGENT_H

#include "bts_common.h"

#define AGENT BTS_MODEL_DIR "pebs_agent"

static inline void agent(const char *what)
{
	char cmd[32];

	snprintf(cmd, sizeof(cmd), "0 %s", what);
	REQUIRE(!ptt_write_str(AGENT, cmd), "pebs_agent '%s': %s", cmd,
		strerror(errno));
}

/* cpu0's line of the agent: is DS_AREA its own, and its record count. */
static inline int agent_state(long long *records)
{
	char buf[512] = "", *p;
	int mine;

	REQUIRE(!ptt_read_str(AGENT, buf, sizeof(buf)), "read pebs_agent");
	p = strstr(buf, "cpu0 ds_area ");
	REQUIRE(p, "pebs_agent: no cpu0 line in '%s'", buf);
	p += strlen("cpu0 ds_area ");
	mine = !strncmp(p, "agent", 5);
	p = strstr(p, "records ");
	REQUIRE(p, "pebs_agent: no record count");
	*records = atoll(p + 8);
	return mine;
}

static inline double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* What the model and the agent saw, for a failure's report. */
static inline void agent_dump(void)
{
	char buf[512] = "";

	ptt_read_str(AGENT, buf, sizeof(buf));
	printf("model: pebs records %lld dropped %lld pmis %lld ds_errors %lld\n",
	       bts_model("pebs_records"), bts_model("pebs_dropped"),
	       bts_model("pebs_pmis"), bts_model("pebs_ds_errors"));
	printf("agent: %s\n", buf);
}

/*
 * Up to @secs of running on cpu0: DS_AREA the agent's and its records
 * growing.  1 when so.
 */
static inline int agent_back(double secs)
{
	long long r0 = -1, r;
	double t0 = now_s();

	do {
		bts_busy(0.01);
		if (agent_state(&r)) {
			if (r0 < 0)
				r0 = r;
			else if (r > r0)
				return 1;
		}
	} while (now_s() - t0 < secs);
	agent_dump();
	return 0;
}

static inline int agent_bts_start(int fd, __u32 mode)
{
	REQUIRE(!bts_config(fd, PT_CTL_OS, mode, 256 << 10,
			    mode == PT_MODE_STREAM ? 4096 : 0),
		"SET_CONFIG: %s", strerror(errno));
	return ioctl(fd, PT_TRACE_IOC_START);
}

#endif
