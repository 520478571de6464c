// SPDX-License-Identifier: GPL-2.0
/*
 * A followed process exits while switched in: its two threads spin on
 * CPUs 0 and 1 and it is killed (SIGKILL: each thread exits from the
 * kernel entry it was interrupted in, on its CPU) while an unfollowed
 * process spins beside.  The witness must see the followed threads
 * only traced and the other process only untraced, before and after the
 * exit; GET_FOLLOW must then say that the one process left, the set is
 * empty and no member runs.  A thread that exits on its own leaves the
 * process followed.
 */
#include "follow_common.h"

static void *fc_exit_soon(void *arg)
{
	fc_spin_for(arg);
	return NULL;
}

/* Two spinning threads; a third that spins 100 ms and returns. */
static void victim(void *arg)
{
	pthread_t t;

	(void)arg;
	pthread_create(&t, NULL, fc_exit_soon, (void *)100L);
	fc_spinner_threads(0x3);
}

int main(void)
{
	struct fc_row rows[FC_MAX_ROWS];
	unsigned long long traced[FC_NCPU];
	struct pt_trace_follow_status fs;
	int fd[FC_NCPU], go, cpu, n;
	pid_t vic, other;

	fc_icl_only();
	other = fc_spinner(0x3, NULL);
	vic = fc_child(victim, NULL, &go);
	fc_start_all(fd, PT_MODE_FLIGHT, 1 << 20, vic, 0);
	fc_witness_start();
	fc_go(go);
	fc_sleep_ms(400);
	fs = fc_status(fd[0]);
	CHECK(fs.processes == 1 && !fs.left,
	      "a thread's exit: %llu processes, %llu left",
	      (unsigned long long)fs.processes, (unsigned long long)fs.left);
	fc_kill(vic);
	fc_sleep_ms(400);
	n = fc_witness_stop(rows);
	fc_judge("exit", rows, n, (int[]){ vic, 0 }, (int[]){ other, 0 },
		 traced);
	for (cpu = 0; cpu < FC_NCPU; cpu++) {
		fs = fc_status(fd[cpu]);
		CHECK(!fs.processes && fs.left == 1 &&
		      (fs.state & PT_FOLLOW_EMPTY) &&
		      !(fs.state & PT_FOLLOW_SWITCHED_IN),
		      "CPU %d after the exit: %llu processes, %llu left, state %#x",
		      cpu, (unsigned long long)fs.processes,
		      (unsigned long long)fs.left, fs.state);
		CHECK(!ioctl(fd[cpu], PT_TRACE_IOC_STOP), "STOP");
		close(fd[cpu]);
	}
	fc_kill(other);
	return ptt_done();
}
