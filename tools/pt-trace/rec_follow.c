// SPDX-License-Identifier: GPL-2.0
/*
 * record, following: the processes the driver could not follow
 * (rec_follow.h).  Every device follows its own set, so each counts a
 * failed join of its own: they normally agree, since each sees every
 * fork; with no memory they may not, and a process then is traced on
 * some CPUs only.  The largest count is reported (at least that many
 * processes are missing somewhere), and how many CPUs saw failures.
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/pt_trace.h>

#include "rec_follow.h"
#include "sideband.h"
#include "tool.h"

#define REC_FOLLOW_MAX_PARAM "/sys/module/pt_trace/parameters/follow_max_procs"

void rec_follow_cpu(struct rec_follow_sum *s, int fd, int cpu, FILE *sb)
{
	struct pt_trace_follow_status st = { .size = sizeof(st) };

	if (ioctl(fd, PT_TRACE_IOC_GET_FOLLOW, &st)) {
		ptt_warn("cpu %d: GET_FOLLOW: %s: the recorder cannot tell whether every process forked by the followed ones was traced",
			 cpu, strerror(errno));
		return;
	}
	s->cpus++;
	if (st.joined > s->joined)
		s->joined = st.joined;
	if (st.join_failures > s->failures)
		s->failures = st.join_failures;
	if (st.join_failures)
		s->failing++;
	ptsb_put(sb, "cpu.follow_joined", "%d %llu", cpu,
		 (unsigned long long)st.joined);
	ptsb_put(sb, "cpu.follow_join_failures", "%d %llu", cpu,
		 (unsigned long long)st.join_failures);
}

void rec_follow_report(const struct rec_follow_sum *s, FILE *sb)
{
	char max[32];

	if (!s->cpus)
		return;
	ptsb_put(sb, "follow.joined", "%llu", (unsigned long long)s->joined);
	ptsb_put(sb, "follow.join_failures", "%llu",
		 (unsigned long long)s->failures);
	if (!s->failures)
		return;
	ptt_sysfs_line(REC_FOLLOW_MAX_PARAM, max, sizeof(max));
	ptt_warn("%llu tasks could not be followed%s: processes forked by the followed ones that the driver could not add to its followed set (full at module parameter follow_max_procs = %s, or out of memory), so they ran untraced and none of their code is in the trace; raise %s (as root) or free memory and record again, or record system-wide with -a",
		 (unsigned long long)s->failures,
		 s->failing < s->cpus ? " on some CPUs" : "",
		 max[0] ? max : "?", REC_FOLLOW_MAX_PARAM);
}
