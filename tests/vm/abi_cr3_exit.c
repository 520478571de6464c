// SPDX-License-Identifier: GPL-2.0
/*
 * PT_CR3_BY_PID against processes that exit while the driver derives
 * their CR3: batches of children exit at once while the test goes round
 * their pids (as many as 15 s allow on a kernel with lockdep, where a
 * report proves the bug, under the icl profile; 3 s elsewhere, since
 * the path does not depend on the profile and make check runs the test
 * under three profiles on three kernels).  When the driver's mmput() is the last one it runs
 * exit_mmap(), which takes mmap_lock; mmap of the device takes pc->lock
 * under mmap_lock.  So the mm reference must be dropped outside pc->lock,
 * or lockdep (the debug kernel) reports a circular dependency, which the
 * harness counts as a failure.  A mapping of the device is made first, so
 * lockdep has seen the mmap_lock -> pc->lock order.  Every answer must be
 * 0, ESRCH or EINVAL (the process had already gone).  The race is rare:
 * a pass on old code proves little, a lockdep report proves the bug.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/pt_trace.h>

#include "ptt_test.h"

#define BATCH	16

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(void)
{
	struct pt_trace_caps caps = { .size = sizeof(caps) };
	long pg = sysconf(_SC_PAGESIZE);
	const char *prof = getenv("PTT_PROFILE");
	int fd, i, ok = 0, gone = 0, calls = 0;
	double t0, secs = 3;
	void *m;

	fd = ptt_open_cpu(0, O_RDWR);
	REQUIRE(fd >= 0, "open /dev/pt0: %s", strerror(errno));
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_GET_CAPS, &caps), "GET_CAPS");
	if (!(caps.flags & PT_CAP_CR3_FILTER))
		SKIP("no CR3 filtering");
	m = mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, 0);
	REQUIRE(m != MAP_FAILED, "mmap: %s", strerror(errno));
	munmap(m, pg);

	/*
	 * Batches of children blocked on a pipe: closing it lets them all
	 * exit at once while SET_CR3 goes round their pids until every one
	 * is gone, so many calls fall inside their exits.
	 */
	if (!access("/proc/lockdep", F_OK) && prof && !strcmp(prof, "icl"))
		secs = 15;
	t0 = now();
	for (i = 0; now() - t0 < secs && ptt_failures < 10; i += BATCH) {
		pid_t pids[BATCH];
		int p[2], k, live = BATCH;

		REQUIRE(!pipe(p), "pipe");
		for (k = 0; k < BATCH; k++) {
			pids[k] = fork();
			REQUIRE(pids[k] >= 0, "fork: %s", strerror(errno));
			if (!pids[k]) {
				char c;

				close(p[1]);
				(void)!read(p[0], &c, 1);
				_exit(0);
			}
		}
		close(p[0]);
		close(p[1]);
		while (live) {
			live = 0;
			for (k = 0; k < BATCH; k++) {
				struct pt_trace_cr3 r = { .size = sizeof(r) };

				if (!pids[k])
					continue;
				r.how = PT_CR3_BY_PID;
				r.pid = pids[k];
				errno = 0;
				calls++;
				if (!ioctl(fd, PT_TRACE_IOC_SET_CR3, &r)) {
					ok++;
					live++;
				} else if (errno == ESRCH || errno == EINVAL) {
					gone++;
					waitpid(pids[k], NULL, 0);
					pids[k] = 0;
				} else {
					CHECK(0, "SET_CR3 of exiting pid %d: %s",
					      pids[k], strerror(errno));
					live++;
				}
			}
		}
		/* And the mapping order again. */
		m = mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, 0);
		if (m != MAP_FAILED)
			munmap(m, pg);
	}
	fprintf(stderr, "PTT-INFO %d exiting processes in %.1f s: %d calls, %d derived, %d gone\n",
		i, now() - t0, calls, ok, gone);
	CHECK(ok > 0, "no CR3 was derived from a live process");
	close(fd);
	return ptt_done();
}
