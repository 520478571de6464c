// SPDX-License-Identifier: GPL-2.0
/*
 * record's loop while tracing runs (rec_wait.h): until the command
 * exits, the -p process has gone, -d has passed, a signal, or the
 * --stop-at range stopped the trace; meanwhile it serves the command's
 * ptrace stops, drains stream mode, restarts the traces the driver
 * stopped, takes -S snapshots, keeps the perf sideband from overflowing
 * and shows the status line, asleep in ppoll() in between.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cpu_info.h"
#include "rec_cmd_trace.h"
#include "rec_finish.h"
#include "rec_hotplug.h"
#include "rec_ring.h"
#include "rec_snapshot.h"
#include "rec_wait.h"
#include "tool.h"

static void rec_status_line(struct rec_cpu *rcs, int n, double t0,
			    const struct rec_opts *o)
{
	double dt = ptt_now() - t0;
	struct ptl_sum sum;
	uint64_t bytes = 0;
	int i;

	rec_sum(rcs, n, &sum, &bytes);
	if (o->mode != PT_MODE_STREAM) {
		/* Flight: produced so far (the file gets the newest part). */
		bytes = 0;
		for (i = 0; i < n; i++)
			bytes += __atomic_load_n(&rcs[i].map.ctrl->data_head,
						 __ATOMIC_ACQUIRE);
	}
	fprintf(stderr, "\r[record] %6.1fs %9.2f MB %8.2f MB/s", dt,
		bytes / 1e6, dt > 0 ? bytes / 1e6 / dt : 0.0);
	if (o->mode == PT_MODE_STREAM)
		fprintf(stderr, "  losses %llu (%llu B known, %.1f ms)%s   ",
			(unsigned long long)(sum.records + sum.lapped),
			(unsigned long long)sum.known_bytes,
			sum.lost_ns / 1e6, sum.lapped ? " LAPPED" : "");
	else
		fputs("   ", stderr);
}

/* --stop-at: has a trace unit stopped in the range?  (-1: no) */
int rec_stopped_cpu(struct rec_cpu *rcs, int n)
{
	struct pt_trace_status st;
	int i;

	for (i = 0; i < n; i++)
		if (!ptdev_get_status(rcs[i].fd, &st) &&
		    (st.flags & PT_STATUS_HW_STOPPED))
			return rcs[i].cpu;
	return -1;
}

/*
 * --stop-at: each status look pauses a flight recorder.  Following, the
 * driver reads RTIT_STATUS at every switch-out of the task and raises
 * POLLPRI at a stop, so a look once a second is only a safety net (a
 * driver from before that POLLPRI); a whole CPU traced has no switch-out
 * to see it at, so there the recorder looks ten times a second.
 */
#define REC_STOP_CHECK_S	1.0
#define REC_STOP_CHECK_CPU_S	0.1

/*
 * How the recording loop sleeps: in ppoll() on what can end the sleep
 * early, with the signals that can blocked outside it so none is lost
 * between a look and the sleep.  SIGCHLD: the command stopped under
 * ptrace (exec, exit, a signal: it waits until we look) or ended; it
 * used to be looked for every 2 ms, and those wakeups of the recorder
 * (often on the command's CPU) preempted the traced command hundreds
 * of times a second.  Descriptors: each device's POLLPRI with --stop-at
 * (flight: the driver read RTIT_STATUS.Stopped, Documentation/abi.rst),
 * its POLLIN in stream mode without --drain-interval (a watermark's
 * worth of data), and the perf sideband's rings (half full).
 */
struct rec_sleep {
	struct pollfd *pfd;
	int npfd;
	char *perf_hup;		/* a sideband ring said POLLHUP: not polled */
	sigset_t old_mask, sleep_mask;
	struct sigaction old_chld;
};

static void rec_on_chld(int sig)
{
	(void)sig;
}

static int rec_sleep_begin(struct rec_sleep *w, int n, const struct pcol *perf)
{
	struct sigaction sa;
	sigset_t block;

	w->npfd = n + (perf->ring ? perf->n : 0);
	w->pfd = calloc((size_t)(unsigned int)w->npfd, sizeof(*w->pfd));
	w->perf_hup = calloc((size_t)(unsigned int)(w->npfd - n + 1), 1);
	if (!w->pfd || !w->perf_hup) {
		free(w->pfd);
		free(w->perf_hup);
		return -ENOMEM;
	}
	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGUSR2);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = rec_on_chld;
	sigaction(SIGCHLD, &sa, &w->old_chld);
	sigprocmask(SIG_BLOCK, &block, &w->old_mask);
	w->sleep_mask = w->old_mask;
	sigdelset(&w->sleep_mask, SIGCHLD);
	return 0;
}

static void rec_sleep_end(struct rec_sleep *w)
{
	sigaction(SIGCHLD, &w->old_chld, NULL);
	sigprocmask(SIG_SETMASK, &w->old_mask, NULL);
	free(w->pfd);
	free(w->perf_hup);
}

/*
 * Sleep until one of @w's events, a signal, or @ms pass.  With @stop
 * (--stop-at, flight), the CPU whose trace stopped, else -1.
 */
static int rec_sleep(struct rec_sleep *w, struct rec_cpu *rcs, int n,
		     const struct rec_opts *o, struct pcol *perf, int stop,
		     double ms)
{
	short ev = (short)((stop ? POLLPRI : 0) |
			   (o->mode == PT_MODE_STREAM && !o->drain_ms ?
			    POLLIN : 0));
	struct timespec ts;
	int i;

	if (ms < 0)
		ms = 0;
	ts.tv_sec = (time_t)(ms / 1e3);
	ts.tv_nsec = (long)((ms - ts.tv_sec * 1e3) * 1e6);
	for (i = 0; i < n; i++) {
		w->pfd[i].fd = rcs[i].hup || !ev ? -1 : rcs[i].fd;
		w->pfd[i].events = ev;
		w->pfd[i].revents = 0;
	}
	pcol_pollfds(perf, w->pfd + n, w->npfd - n);
	for (i = n; i < w->npfd; i++)
		if (w->perf_hup[i - n])
			w->pfd[i].fd = -1;
	if (ppoll(w->pfd, (nfds_t)w->npfd, &ts, &w->sleep_mask) <= 0)
		return -1;
	/*
	 * A task's event whose task exited (-p: the main thread gone,
	 * its other threads still traced) says POLLHUP at every poll.
	 */
	for (i = n; i < w->npfd; i++)
		if (w->pfd[i].revents & (POLLHUP | POLLERR | POLLNVAL))
			w->perf_hup[i - n] = 1;
	for (i = 0; i < n; i++) {
		if (stop && (w->pfd[i].revents & POLLPRI))
			return rcs[i].cpu;
		/* Not to be woken by it again (the status checks go on). */
		if (w->pfd[i].revents & (POLLHUP | POLLERR | POLLNVAL))
			rcs[i].hup = 1;
	}
	return -1;
}

/* Wait for the end: command exit, duration, or a signal; drain meanwhile. */
static int rec_wait_loop(struct rec_cpu *rcs, int n, const struct rec_opts *o,
			 struct rec_run *run, struct rec_sleep *w, int stop)
{
	double check_s = o->following ? REC_STOP_CHECK_S : REC_STOP_CHECK_CPU_S;
	double t0 = ptt_now(), next_status = t0 + 0.5, next_drain = t0;
	double next_check = t0 + check_s, next_gone = t0 + 0.1;
	int tty = isatty(STDERR_FILENO), i, st;
	int stream = o->mode == PT_MODE_STREAM;
	pid_t child = run->cmd.pid;

	for (i = 0; i < n; i++)
		cpu_tsc_now(&rcs[i].seen_tsc, &rcs[i].seen_ns);
	while (!__atomic_load_n(&rec_stop, __ATOMIC_RELAXED)) {
		double now, wait_ms;

		if (__atomic_exchange_n(&rec_snap, 0, __ATOMIC_RELAXED) &&
		    o->snapshot && rec_snapshot(rcs, n, o, run))
			return -EIO;
		if (run->perf.ring && pcol_drain(&run->perf))
			ptt_warn("writing %s/%s failed", o->outdir,
				 PTPSB_FILE_NAME);
		/* What a reader (or a SIGKILL) of the directory finds. */
		fflush(run->sb);

		if (child > 0) {
			pid_t got = rcmd_wait(&run->cmd, &st, WNOHANG);

			if (got == child && WIFSTOPPED(st)) {
				rec_child_stop(child, st, run->sb, &run->maps);
			} else if (got == child) {
				run->child_status = st;
				run->exited = 1;
				break;
			}
		}
		now = ptt_now();
		/* -p: as perf record -p, the end when the process has gone. */
		if (now >= next_gone) {
			if (rec_end_gone(&run->end, rcs[0].fd)) {
				fprintf(stderr, "process %d %s: the recording ends\n",
					(int)run->end.pid, o->following &&
					!o->no_inherit ?
					"and its descendants have exited" :
					"has exited");
				run->gone = 1;
				break;
			}
			next_gone = now + 0.1;
		}
		/* The safety net: the driver did not say (POLLPRI). */
		if (stop && now >= next_check) {
			run->stop_cpu = rec_stopped_cpu(rcs, n);
			if (run->stop_cpu >= 0)
				break;
			next_check = now + check_s;
		}
		if (o->duration > 0 && now - t0 >= o->duration)
			break;
		for (i = 0; i < n && !o->snapshot; i++)
			if (rec_hotplug(&rcs[i], o, &run->perf))
				return -EIO;
		for (i = 0; i < run->nbts && !o->snapshot; i++)
			if (rec_hotplug(&run->bts[i], o, &run->perf))
				return -EIO;
		if (stream && (!o->drain_ms || now >= next_drain)) {
			for (i = 0; i < n; i++) {
				int err = rcs[i].down ? 0 : rec_drain(&rcs[i]);

				if (err) {
					ptt_err("cpu %d: writing %s/cpu%d.pt: %s",
						rcs[i].cpu, o->outdir,
						rcs[i].cpu, strerror(-err));
					return err;
				}
			}
			for (i = 0; i < run->nbts; i++) {
				int err = run->bts[i].down ? 0 :
					  rec_drain(&run->bts[i]);

				if (err) {
					ptt_err("cpu %d: writing %s/cpu%d.bts: %s",
						run->bts[i].cpu, o->outdir,
						run->bts[i].cpu, strerror(-err));
					return err;
				}
			}
			if (o->drain_ms)
				next_drain = now + o->drain_ms / 1e3;
		}
		if (tty && now >= next_status) {
			rec_status_line(rcs, n, t0, o);
			next_status = now + 0.5;
		}
		/*
		 * Asleep until the next thing due, or a signal (SIGCHLD when
		 * the command needs us), or a device or the sideband says
		 * so (rec_sleep()).
		 */
		wait_ms = 100;
		if (o->duration > 0 && (t0 + o->duration - now) * 1e3 < wait_ms)
			wait_ms = (t0 + o->duration - now) * 1e3;
		if (o->drain_ms && (next_drain - now) * 1e3 < wait_ms)
			wait_ms = (next_drain - now) * 1e3;
		if (run->end.pid > 0 && (next_gone - now) * 1e3 < wait_ms)
			wait_ms = (next_gone - now) * 1e3;
		if (tty && (next_status - now) * 1e3 < wait_ms)
			wait_ms = (next_status - now) * 1e3;
		if (stop && (next_check - now) * 1e3 < wait_ms)
			wait_ms = (next_check - now) * 1e3;
		/* BTS's wakeups are not polled: look at least 100 times a second. */
		if (stream && run->nbts && wait_ms > 10)
			wait_ms = 10;
		run->stop_cpu = rec_sleep(w, rcs, n, o, &run->perf, stop,
					  wait_ms);
		if (run->stop_cpu >= 0)
			break;
	}
	if (tty) {
		rec_status_line(rcs, n, t0, o);
		fputc('\n', stderr);
	}
	return 0;
}

int rec_wait(struct rec_cpu *rcs, int n, const struct rec_opts *o,
	     struct rec_run *run)
{
	struct rec_sleep w;
	int ret;

	if (rec_sleep_begin(&w, n, &run->perf))
		return -ENOMEM;
	/* --stop-at: the flight recorder ends where the driver says. */
	ret = rec_wait_loop(rcs, n, o, run, &w,
			    o->stop_armed && o->mode != PT_MODE_STREAM);
	rec_sleep_end(&w);
	return ret;
}
