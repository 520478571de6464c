// SPDX-License-Identifier: GPL-2.0
/*
 * record -p PID ends by itself when the process has gone (rec_end.h).
 * The driver knows best when following: GET_FOLLOW says PT_FOLLOW_EMPTY
 * once the last member (thread, or inherited descendant) has exited, and
 * after that nothing more can be traced.  Without following (--cr3-filter,
 * or a driver from before FOLLOW) the process is watched through a pidfd,
 * readable once every thread of it has exited; a kernel without pidfds
 * (before 5.3) falls back to kill(pid, 0), which sees an exited process
 * only once its parent has reaped it.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/pt_trace.h>

#include "rec_end.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

void rec_end_watch(struct rec_end *e, pid_t pid, int following)
{
	e->pid = pid;
	e->following = following;
	e->pidfd = -1;
	if (pid > 0 && !following)
		e->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
}

int rec_end_gone(const struct rec_end *e, int fd)
{
	struct pt_trace_follow_status st = { .size = sizeof(st) };
	struct pollfd p;

	if (e->pid <= 0)
		return 0;
	if (e->following)
		return !ioctl(fd, PT_TRACE_IOC_GET_FOLLOW, &st) &&
		       (st.state & PT_FOLLOW_ACTIVE) &&
		       (st.state & PT_FOLLOW_EMPTY);
	if (e->pidfd >= 0) {
		p.fd = e->pidfd;
		p.events = POLLIN;
		p.revents = 0;
		return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
	}
	return kill(e->pid, 0) && errno == ESRCH;
}

void rec_end_close(struct rec_end *e)
{
	if (e->pidfd >= 0)
		close(e->pidfd);
	e->pidfd = -1;
	e->pid = 0;
}
