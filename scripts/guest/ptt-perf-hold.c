// SPDX-License-Identifier: GPL-2.0
/*
 * Guest helper: hold perf's scheduler static keys enabled for the whole
 * VM run.  A perf event with context_switch=1 (here a dummy one on this
 * process) enables perf_sched_events, and closing the last such event
 * disables it again a second later: each change patches __schedule()
 * with text_poke_bp().  Under QEMU TCG that patching once crashed a
 * 6.12 guest ("Oops: int3" in __schedule(), the int3 of the patch seen
 * after it was gone), while pt-trace record's sideband events came and
 * went.  That is a property of the emulator, not of the code under test,
 * so the runner keeps one such event open and later events only change
 * a count.  Exits at once if perf_event_open fails (the run goes on).
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.size = sizeof(attr);
	attr.context_switch = 1;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0) {
		perror("ptt-perf-hold: perf_event_open");
		return 1;
	}
	for (;;)
		pause();
}
