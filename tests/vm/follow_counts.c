// SPDX-License-Identifier: GPL-2.0
/*
 * GET_FOLLOW's switch counters (abi.rst): switches_in counts the runs of
 * a member traced on the CPU, switches_out those a switch ended, so
 * switches_out never exceeds switches_in.  A START that finds a member
 * running on its CPU (the follower itself, pinned there) begins a run:
 * ten times the process STARTs /dev/pt0 from CPU 0, naps there (out and
 * in again), then moves to CPU 1 (a switch-out ends the run on CPU 0)
 * and STOPs from there.  Before, START's run was not counted: switches_out
 * ran ahead of switches_in by one a round (in 10, out 20).  icl only.
 */
#include "follow_common.h"

int main(void)
{
	struct pt_trace_follow_status fs;
	int fd, i;

	fc_icl_only();
	fd = fc_open(0, PT_MODE_FLIGHT, 64 << 10);
	REQUIRE(!fc_follow(fd, getpid(), 0), "FOLLOW self: %s",
		strerror(errno));
	for (i = 0; i < 10; i++) {
		REQUIRE(!ptt_pin_cpu(0), "pin to CPU 0");
		REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s",
			strerror(errno));
		fs = fc_status(fd);
		CHECK(fs.state & PT_FOLLOW_SWITCHED_IN,
		      "round %d: START on the follower's CPU: not switched in (state %#x)",
		      i, fs.state);
		fc_sleep_ms(2);
		REQUIRE(!ptt_pin_cpu(1), "pin to CPU 1");
		REQUIRE(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s",
			strerror(errno));
		fs = fc_status(fd);
		CHECK(fs.switches_out <= fs.switches_in,
		      "round %d: %llu switches out, %llu in", i,
		      (unsigned long long)fs.switches_out,
		      (unsigned long long)fs.switches_in);
	}
	fprintf(stderr, "PTT-INFO %llu switches in, %llu out\n",
		(unsigned long long)fs.switches_in,
		(unsigned long long)fs.switches_out);
	CHECK(fs.switches_in == fs.switches_out && fs.switches_in >= 20,
	      "every run ended by a switch: %llu in, %llu out (want equal, at least 20)",
	      (unsigned long long)fs.switches_in,
	      (unsigned long long)fs.switches_out);
	close(fd);
	return ptt_done();
}
