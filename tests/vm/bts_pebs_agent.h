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

/*
 * A stream the agent's PEBS took over: read(2) gives whole records,
 * then EIO; poll says POLLERR; the status says TAKEN_OVER; the last loss
 * record is PT_LOSS_TAKEN_OVER at the data's end.  @what names the
 * phase in failures.
 */
static inline void agent_stream_taken(int fd, const char *what)
{
	static unsigned char buf[1 << 20];
	const struct pt_trace_mmap_page *pg;
	const struct pt_trace_loss *l;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct pt_trace_status st;
	size_t len = 0;
	ssize_t n = 0;
	double t0;
	__u64 nrec;

	for (t0 = now_s(); now_s() - t0 < 2; ) {
		n = read(fd, buf + len, sizeof(buf) - len);
		if (n <= 0)
			break;
		len += n;
	}
	CHECK(n < 0 && errno == EIO, "%s: read after the data: %zd (%s), want EIO",
	      what, n, n < 0 ? strerror(errno) : "-");
	CHECK(len >= BTS_REC && !(len % BTS_REC), "%s: %zu bytes read", what,
	      len);
	CHECK(poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLERR),
	      "%s: poll revents %#x, want POLLERR", what, pfd.revents);
	bts_status(fd, &st);
	CHECK(st.flags & PT_STATUS_TAKEN_OVER, "%s: status flags %#x", what,
	      st.flags);
	pg = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	REQUIRE(pg != MAP_FAILED, "mmap control page: %s", strerror(errno));
	nrec = __atomic_load_n(&pg->loss_records, __ATOMIC_ACQUIRE);
	CHECK(nrec >= 1, "%s: no loss record", what);
	if (nrec) {
		l = (const void *)((const char *)pg + pg->loss_offset +
				   ((nrec - 1) % pg->loss_slots) * sizeof(*l));
		CHECK(l->flags & PT_LOSS_TAKEN_OVER,
		      "%s: last loss record flags %#x lack TAKEN_OVER", what,
		      l->flags);
		CHECK(l->pos == len, "%s: TAKEN_OVER at %llu, data ends at %zu",
		      what, (unsigned long long)l->pos, len);
	}
	munmap((void *)pg, 4096);
}

#endif
