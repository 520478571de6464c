// SPDX-License-Identifier: GPL-2.0
/*
 * record -- COMMAND, from the recorder's side (rec_cmd_trace.h): spawn
 * the command, start the trace at its exec, serve its ptrace stops while
 * it runs and let it run to its end after the trace.  The ptrace
 * mechanics are rec_command.c's.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "rec_cmd_trace.h"
#include "rec_device.h"
#include "rec_sideband.h"
#include "rec_sym_range.h"
#include "sideband.h"
#include "tool.h"

/*
 * A ptrace stop of the command: exec or exit (read its maps), a clone
 * (a thread traced since the dlopen wait), a syscall stop left from that
 * wait, or a signal to deliver.
 */
void rec_child_stop(pid_t child, int st, FILE *sb,
		    struct ptt_maps *maps)
{
	int sig = WSTOPSIG(st), ev = st >> 16;

	/*
	 * Ptrace's own stops: an exec (its maps: the new program's) or the
	 * exit (the maps it ended with), a clone, a system call.  A SIGTRAP
	 * that is none of them (PTRACE_O_TRACEEXEC makes an exec an event
	 * stop) is the command's own, from an int3 or a kill(): delivered,
	 * as without the recorder (a debugger's or a runtime's handler).
	 */
	if (ev || rcmd_is_syscall_stop(st)) {
		if (ev == PTRACE_EVENT_EXEC || ev == PTRACE_EVENT_EXIT)
			ptt_maps_write(sb, child, maps);
		if (ev != PTRACE_EVENT_EXIT)
			ptrace(PTRACE_SETOPTIONS, child, NULL,
			       PTRACE_O_TRACEEXIT | PTRACE_O_TRACEEXEC |
			       PTRACE_O_EXITKILL);
		sig = 0;
	}
	ptrace(PTRACE_CONT, child, NULL, (void *)(long)sig);
}

/*
 * The command: held before exec until the perf sideband watches it,
 * stopped at exec, where its maps are read, the --filter and --stop-at
 * symbols resolved (those of start-up libraries as the loader maps
 * them) and the trace started; then it runs.
 */
int rec_start_command(struct rec_cpu *rcs, int n, struct rec_opts *o,
		      const struct pt_trace_caps *caps,
		      struct rec_run *run, const int *cpus,
		      struct rec_bts *bts)
{
	int release = -1, ret, i;

	run->cmd.pid = rcmd_spawn(o->cmd, &release);
	if (run->cmd.pid < 0) {
		ptt_err("fork: %s", strerror(errno));
		return PTT_EXIT_INTERNAL;
	}
	o->target = run->cmd.pid;
	ptsb_put(run->sb, "pid", "%d", (int)run->cmd.pid);
	rec_perf_open(run, cpus, n, o);
	if (rcmd_release(run->cmd.pid, &release, &run->child_status)) {
		run->exited = 1;
		/* a Ctrl-C to the process group killed it before its exec */
		if (__atomic_load_n(&rec_stop, __ATOMIC_RELAXED) ||
		    (WIFSIGNALED(run->child_status) &&
		     WTERMSIG(run->child_status) == SIGINT))
			return PTT_EXIT_INTERRUPTED;
		ptt_err("%s did not start (see above)", o->cmd[0]);
		return PTT_EXIT_USAGE;
	}
	ptt_maps_write(run->sb, run->cmd.pid, &run->maps);
	run->cmd.stopped = run->cmd.pid;
	ret = rec_resolve_cmd_syms(o, run);
	if (!ret)
		ret = rec_start_all(rcs, n, o, caps, run->sb);
	/* BTS too before the command's first instruction. */
	for (i = 0; bts && i < n && !ret; i++)
		ret = rec_bts_start(&bts[i]);
	if (ret) {
		if (!run->exited) {
			rcmd_kill(&run->cmd, &run->child_status);
			run->exited = 1;
		}
		return ret;
	}
	/*
	 * The command's exec stop, or the thread that mapped the last
	 * library (rcmd_await_libs()); the others stop on their own.
	 */
	ptrace(PTRACE_SETOPTIONS, run->cmd.stopped, NULL,
	       run->cmd.stopped == run->cmd.pid ?
	       PTRACE_O_TRACEEXIT | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL :
	       PTRACE_O_EXITKILL);
	ptrace(PTRACE_CONT, run->cmd.stopped, NULL, NULL);
	return 0;
}

/* After the trace: let the command run to its end (--stop-at, -d). */
void rec_finish_command(struct rec_run *run)
{
	int st;

	if (run->cmd.pid <= 0 || run->exited)
		return;
	if (__atomic_load_n(&rec_stop, __ATOMIC_RELAXED))
		kill(run->cmd.pid, SIGTERM);
	while (rcmd_wait(&run->cmd, &st, 0) == run->cmd.pid) {
		if (!WIFSTOPPED(st)) {
			run->child_status = st;
			run->exited = 1;
			break;
		}
		rec_child_stop(run->cmd.pid, st, run->sb, &run->maps);
	}
}
