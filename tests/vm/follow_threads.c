// SPDX-License-Identifier: GPL-2.0
/*
 * PT_TRACE_IOC_FOLLOW of a process with two threads spinning on CPUs 0
 * and 1, beside an unfollowed process spinning on the same two CPUs, on
 * both devices; in flight mode, then streaming (ToPA profiles).  The
 * model's witness must show every user-mode sample of the followed
 * threads traced (on both CPUs) and every other thread's untraced (the
 * other process, this program, anything else that ran); both devices
 * count switches in and out, the set has one process, the trace has
 * data and no loss record, and CLEAR forgets the set.  Every profile:
 * the flight recorder's pause differs per output (multi- and
 * single-entry ToPA, single range).
 */
#include "follow_common.h"

static void phase(__u32 mode, __u64 size)
{
	const char *what = mode == PT_MODE_STREAM ? "stream" : "flight";
	struct pt_trace_follow_status fs;
	struct pt_trace_status st;
	struct fc_row rows[FC_MAX_ROWS];
	unsigned long long traced[FC_NCPU];
	int fd[FC_NCPU], cpu, n;
	pid_t fol, other;

	fol = fc_spinner(0x3, NULL);
	other = fc_spinner(0x3, NULL);
	fc_start_all(fd, mode, size, fol, 0);
	fc_witness_start();
	/*
	 * 400 ms: about 700 witness samples and 25 switches a CPU (1 s,
	 * 1700 and 65, showed nothing more).
	 */
	fc_sleep_ms(400);
	n = fc_witness_stop(rows);
	for (cpu = 0; cpu < FC_NCPU; cpu++) {
		fs = fc_status(fd[cpu]);
		fprintf(stderr, "PTT-INFO %s CPU %d: %llu switches in, %llu out, state %#x\n",
			what, cpu, (unsigned long long)fs.switches_in,
			(unsigned long long)fs.switches_out, fs.state);
		CHECK(fs.pid == fol && fs.flags == 0 &&
		      (fs.state & PT_FOLLOW_ACTIVE) && fs.processes == 1 &&
		      fs.joined == 1 && !fs.left,
		      "%s CPU %d: GET_FOLLOW pid %d flags %#x state %#x processes %llu",
		      what, cpu, fs.pid, fs.flags, fs.state,
		      (unsigned long long)fs.processes);
		CHECK(fs.switches_in && fs.switches_out,
		      "%s CPU %d: no switch counted", what, cpu);
		REQUIRE(!ioctl(fd[cpu], PT_TRACE_IOC_STOP), "STOP: %s",
			strerror(errno));
		st.size = sizeof(st);
		REQUIRE(!ioctl(fd[cpu], PT_TRACE_IOC_GET_STATUS, &st),
			"GET_STATUS");
		CHECK(st.head, "%s CPU %d: nothing traced", what, cpu);
		CHECK(!st.loss_records && !(st.flags & (PT_STATUS_TAKEN_OVER |
							PT_STATUS_HW_ERROR)),
		      "%s CPU %d: %llu loss records, flags %#x", what, cpu,
		      (unsigned long long)st.loss_records, st.flags);
		fs = fc_status(fd[cpu]);
		CHECK(!(fs.state & PT_FOLLOW_SWITCHED_IN),
		      "%s CPU %d: switched in after STOP", what, cpu);
	}
	fc_judge(what, rows, n, (int[]){ fol, 0 }, (int[]){ other, 0 },
		 traced);
	for (cpu = 0; cpu < FC_NCPU; cpu++)
		CHECK(traced[cpu], "%s: the followed thread on CPU %d never traced",
		      what, cpu);
	/* CLEAR forgets the set. */
	CHECK(!fc_follow(fd[0], 0, PT_FOLLOW_CLEAR), "CLEAR: %s",
	      strerror(errno));
	fs = fc_status(fd[0]);
	CHECK(!fs.pid && !fs.state && !fs.processes, "after CLEAR: pid %d state %#x",
	      fs.pid, fs.state);
	for (cpu = 0; cpu < FC_NCPU; cpu++)
		close(fd[cpu]);
	fc_kill(fol);
	fc_kill(other);
}

int main(void)
{
	phase(PT_MODE_FLIGHT, 1 << 20);
	if (fc_has_topa())
		phase(PT_MODE_STREAM, 4 << 20);
	return ptt_done();
}
