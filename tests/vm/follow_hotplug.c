// SPDX-License-Identifier: GPL-2.0
/*
 * CPU hotplug while following: a followed process spins on CPU 1 and an
 * unfollowed one on both CPUs; CPU 1 goes offline (its device stops
 * with PT_STATUS_CPU_OFFLINE, the followed process moves to CPU 0) and
 * comes back, the followed process is put back on it, and its device
 * STARTs again with the set it kept.  The witness must
 * see the contract hold on CPU 0 throughout and on both CPUs after the
 * restart, where the followed process is traced again on CPU 1.
 */
#define _GNU_SOURCE
#include "follow_common.h"

#define ONLINE "/sys/devices/system/cpu/cpu1/online"

static void pin(pid_t pid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	CHECK(!sched_setaffinity(pid, sizeof(set), &set),
	      "sched_setaffinity %d to CPU %d: %s", pid, cpu, strerror(errno));
}

static void window(const char *what, pid_t fol, pid_t other,
		   unsigned long long *traced)
{
	struct fc_row rows[FC_MAX_ROWS];
	int n;

	fc_witness_start();
	fc_sleep_ms(400);
	n = fc_witness_stop(rows);
	fc_judge(what, rows, n, (int[]){ fol, 0 }, (int[]){ other, 0 },
		 traced);
}

int main(void)
{
	unsigned long long traced[FC_NCPU];
	struct pt_trace_follow_status fs;
	struct pt_trace_status st = { .size = sizeof(st) };
	int fd[FC_NCPU], cpu, ret;
	pid_t fol, other;

	fc_icl_only();
	if (ptt_read_ll(ONLINE) != 1)
		SKIP("CPU 1 cannot go offline here");
	fol = fc_spinner(0, NULL);
	other = fc_spinner(0, NULL);
	pin(fol, 1);
	fc_start_all(fd, PT_MODE_STREAM, 4 << 20, fol, 0);
	window("before", fol, other, traced);
	CHECK(traced[1], "not traced on CPU 1 before the offline");
	ret = ptt_write_str(ONLINE, "0");
	REQUIRE(!ret, "CPU 1 offline: %s", strerror(-ret));
	window("CPU 1 offline", fol, other, traced);
	CHECK(traced[0], "not traced on CPU 0 with CPU 1 offline");
	REQUIRE(!ioctl(fd[1], PT_TRACE_IOC_GET_STATUS, &st), "GET_STATUS");
	CHECK((st.flags & PT_STATUS_CPU_OFFLINE) &&
	      !(st.flags & PT_STATUS_RUNNING), "CPU 1 offline: flags %#x",
	      st.flags);
	fs = fc_status(fd[1]);
	CHECK(fs.pid == fol && (fs.state & PT_FOLLOW_ACTIVE) &&
	      !(fs.state & PT_FOLLOW_SWITCHED_IN),
	      "CPU 1 offline: follow state %#x", fs.state);
	ret = ptt_write_str(ONLINE, "1");
	REQUIRE(!ret, "CPU 1 online: %s", strerror(-ret));
	pin(fol, 1);
	CHECK(!ioctl(fd[1], PT_TRACE_IOC_START), "START again on CPU 1: %s",
	      strerror(errno));
	window("CPU 1 back", fol, other, traced);
	for (cpu = 0; cpu < FC_NCPU; cpu++) {
		fs = fc_status(fd[cpu]);
		fprintf(stderr, "PTT-INFO CPU %d: %llu switches in, %llu traced at the end\n",
			cpu, (unsigned long long)fs.switches_in, traced[cpu]);
		CHECK(fs.switches_in, "CPU %d: no switch in", cpu);
		CHECK(!ioctl(fd[cpu], PT_TRACE_IOC_STOP), "STOP");
		close(fd[cpu]);
	}
	CHECK(traced[1], "not traced on CPU 1 after it came back");
	fc_kill(fol);
	fc_kill(other);
	return ptt_done();
}
