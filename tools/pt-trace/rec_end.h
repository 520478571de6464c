/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record -p PID (rec_end.c): has the traced process gone, so that the
 * recording ends by itself as perf record -p does?  Followed (the
 * driver's FOLLOW), when the followed set is empty: the process with all
 * its threads and, with inherit, every descendant has exited.  Traced by
 * its CR3 instead, when the process has exited (its pidfd).
 */
#ifndef PT_TRACE_REC_END_H
#define PT_TRACE_REC_END_H

#include <sys/types.h>

struct rec_end {
	pid_t pid;		/* the -p process, 0: none to watch */
	int following;		/* the devices follow it: ask them */
	int pidfd;		/* else its pidfd, or -1 */
};

/* Watch @pid (followed through @following devices, or not). */
void rec_end_watch(struct rec_end *e, pid_t pid, int following);
/*
 * 1 when nothing of the process is left to trace; @fd is one of the
 * devices following it (they all follow the same tasks).
 */
int rec_end_gone(const struct rec_end *e, int fd);
void rec_end_close(struct rec_end *e);

#endif /* PT_TRACE_REC_END_H */
