/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record -- COMMAND (rec_command.c): the command under ptrace.  It is
 * held before its exec until the recorder is ready, stops at the exec,
 * and, while the recorder looks for --filter/--stop-at functions that
 * are not mapped yet, runs from syscall stop to syscall stop through
 * its loader's start-up and then, for a library it loads later
 * (dlopen), with each of its threads traced.  After that the recorder
 * sees the command's exec and exit stops only; rcmd_wait() serves the
 * stops of its other threads so that none is left stopped.
 */
#ifndef PT_TRACE_REC_COMMAND_H
#define PT_TRACE_REC_COMMAND_H

#include <stddef.h>
#include <sys/types.h>

struct rcmd {
	pid_t pid;		/* the command: its first thread, or -1 */
	pid_t stopped;		/* the thread to continue at the start */
	int threads;		/* every thread traced: see rcmd_wait() */
	/* threads whose first stop (a new one's SIGSTOP) came: */
	pid_t *seen;
	size_t nseen, cap;
	/* the last syscall each thread entered (rcmd_await_libs()) */
	int *nr;
};

/*
 * Fork COMMAND, unpinned, held before its exec: it waits for a byte on a
 * pipe (@release: the end to write), so that the perf sideband can watch
 * it from its exec on; rcmd_release() lets it go, and it stops at the
 * exec under ptrace, before its first instruction, where the recorder
 * reads its maps, resolves --filter/--stop-at and starts tracing.
 * Returns its pid, or -1 (errno).
 */
pid_t rcmd_spawn(char **cmd, int *release);
/*
 * Let it go to its exec and wait for the ptrace stop there: 0, or -1
 * when it exited instead (exec failed: it said why; or it died before,
 * e.g. of the terminal's SIGINT), @status its end.
 */
int rcmd_release(pid_t pid, int *release, int *status);

/* What rcmd_await_libs() asks its caller. */
struct rcmd_look {
	/*
	 * The command's executable mappings changed (it is stopped after
	 * the syscall that did it): look the functions up again.  How many
	 * are still missing (0: stop here), or -errno.
	 */
	int (*look)(void *arg, pid_t pid);
	/*
	 * The loader's start-up is over with some still missing: from here
	 * on, a library the command loads itself.  0 to wait for it, else
	 * an error to return.
	 */
	int (*startup_over)(void *arg);
	/* Called every 100 ms or so while waiting (the perf sideband). */
	void (*tick)(void *arg);
	const int *stop;	/* set by a signal: give up (-EINTR) */
	void *arg;
};

/*
 * The command is at its exec stop; the functions @l looks for are not in
 * what is mapped there.  Run it from syscall stop to syscall stop, and
 * after each syscall that may change its executable mappings (mmap,
 * mprotect, mremap) let @l look them up again.  The first syscall made
 * from outside ld.so's text ends the loader's start-up (@l->startup_over);
 * from then on every thread is traced (PTRACE_O_TRACECLONE) until one
 * maps the last library.
 *
 * 0: all found, the thread that mapped the last one stopped at that
 * syscall's exit (@c->stopped); -ENOENT: no loader (a static program,
 * or ld.so run as the command: nothing more is mapped at start);
 * -ECHILD: the command ended (@status); -EINTR: @l->stop was set;
 * another -errno: ptrace failed or @l said so.
 */
int rcmd_await_libs(struct rcmd *c, const struct rcmd_look *l, int *status);

/*
 * waitpid() for the command's own stops and end (@flags: 0 or WNOHANG),
 * continuing every other thread's stop when all of them are traced:
 * the pid, 0 (WNOHANG: nothing yet), or -1 (errno).
 */
pid_t rcmd_wait(struct rcmd *c, int *status, int flags);
/* Whether @status is a syscall stop (not a signal to deliver). */
int rcmd_is_syscall_stop(int status);
/* SIGKILL the command and reap it with all its threads. */
void rcmd_kill(struct rcmd *c, int *status);
void rcmd_free(struct rcmd *c);

#endif /* PT_TRACE_REC_COMMAND_H */
