// SPDX-License-Identifier: GPL-2.0
/*
 * record -- COMMAND under ptrace (rec_command.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proc_maps.h"
#include "rec_command.h"
#include "tool.h"

pid_t rcmd_spawn(char **cmd, int *release)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid == 0) {
		char c;

		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(127);	/* the recorder gave up */
		close(p[0]);
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execvp(cmd[0], cmd);
		fprintf(stderr, "pt-trace record: cannot run %s: %s\n", cmd[0],
			strerror(errno));
		_exit(127);
	}
	close(p[0]);
	if (pid < 0) {
		close(p[1]);
		return -1;
	}
	*release = p[1];
	return pid;
}

/*
 * One byte to the held command.  It may be dead already (a Ctrl-C to the
 * terminal's process group reaches it too, while it waits): the write
 * then fails with EPIPE, and the SIGPIPE it raises, blocked here, is
 * taken back rather than left to kill the recorder (exit 141, not the
 * clean end a Ctrl-C gets).
 */
static ssize_t rcmd_write_go(int fd)
{
	const struct timespec now = { 0, 0 };
	sigset_t pipe, old;
	ssize_t w;
	int err;

	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	sigprocmask(SIG_BLOCK, &pipe, &old);
	w = write(fd, "g", 1);
	err = errno;
	if (w < 0 && err == EPIPE && !sigismember(&old, SIGPIPE))
		sigtimedwait(&pipe, NULL, &now);
	sigprocmask(SIG_SETMASK, &old, NULL);
	errno = err;
	return w;
}

int rcmd_release(pid_t pid, int *release, int *status)
{
	ssize_t w = rcmd_write_go(*release);

	close(*release);
	*release = -1;
	if (w != 1) {
		/* its end, if it has one: the caller says what happened */
		while (waitpid(pid, status, 0) < 0 && errno == EINTR)
			;
		return -1;
	}
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFSTOPPED(*status) ? 0 : -1;
}

/* The index of thread @tid in @c->seen, or -1. */
static long rcmd_find(const struct rcmd *c, pid_t tid)
{
	size_t i;

	for (i = 0; i < c->nseen; i++)
		if (c->seen[i] == tid)
			return (long)i;
	return -1;
}

/* Thread @tid has stopped once: 0, or -ENOMEM. */
static int rcmd_add(struct rcmd *c, pid_t tid)
{
	pid_t *s;
	int *nr;

	if (rcmd_find(c, tid) >= 0)
		return 0;
	if (c->nseen == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;

		s = realloc(c->seen, cap * sizeof(*s));
		if (!s)
			return -ENOMEM;
		c->seen = s;
		nr = realloc(c->nr, cap * sizeof(*nr));
		if (!nr)
			return -ENOMEM;
		c->nr = nr;
		c->cap = cap;
	}
	c->seen[c->nseen] = tid;
	c->nr[c->nseen++] = -1;
	return 0;
}

/* Thread @tid has exited (its tid may come again for a new one). */
static void rcmd_forget(struct rcmd *c, pid_t tid)
{
	long i = rcmd_find(c, tid);

	if (i < 0)
		return;
	c->seen[i] = c->seen[--c->nseen];
	c->nr[i] = c->nr[c->nseen];
}

int rcmd_is_syscall_stop(int status)
{
	return WIFSTOPPED(status) && WSTOPSIG(status) == (SIGTRAP | 0x80);
}

/*
 * The first stop of a thread that PTRACE_O_TRACECLONE attached is its
 * SIGSTOP (not one sent to it): 1 for that one, and @tid is seen from
 * here on.
 */
static int rcmd_first_stop(struct rcmd *c, pid_t tid)
{
	if (tid == c->pid || rcmd_find(c, tid) >= 0)
		return 0;
	rcmd_add(c, tid);	/* out of memory: the next stop is a SIGSTOP too */
	return 1;
}

pid_t rcmd_wait(struct rcmd *c, int *status, int flags)
{
	pid_t got;
	int st, sig;

	if (!c->threads)
		return waitpid(c->pid, status, flags);
	for (;;) {
		got = waitpid(-1, &st, flags | __WALL);
		if (got <= 0 || got == c->pid) {
			if (got > 0)
				*status = st;
			return got;
		}
		if (!WIFSTOPPED(st)) {
			rcmd_forget(c, got);
			continue;
		}
		sig = WSTOPSIG(st);
		if (rcmd_first_stop(c, got) && sig == SIGSTOP)
			sig = 0;
		if (st >> 16 || rcmd_is_syscall_stop(st)) {
			/* no more syscall stops, and its threads untraced */
			ptrace(PTRACE_SETOPTIONS, got, NULL, PTRACE_O_EXITKILL);
			sig = 0;
		}
		ptrace(PTRACE_CONT, got, NULL, (void *)(long)sig);
	}
}

void rcmd_kill(struct rcmd *c, int *status)
{
	int st = 0;
	pid_t got;

	kill(c->pid, SIGKILL);
	if (!c->threads) {
		ptrace(PTRACE_CONT, c->pid, NULL, NULL);
		while (waitpid(c->pid, &st, 0) < 0 && errno == EINTR)
			;
		if (status)
			*status = st;
		return;
	}
	/* every thread, for the first one's end to be reported */
	for (;;) {
		got = waitpid(-1, &st, __WALL);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0 || (got == c->pid && !WIFSTOPPED(st)))
			break;
	}
	if (status && got == c->pid)
		*status = st;
}

void rcmd_free(struct rcmd *c)
{
	free(c->seen);
	free(c->nr);
	c->seen = NULL;
	c->nr = NULL;
	c->nseen = 0;
	c->cap = 0;
}

/* AT_ENTRY of @pid's auxiliary vector, or 0. */
static uint64_t rcmd_at_entry(pid_t pid)
{
	unsigned long v[2], entry = 0;
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fread(v, sizeof(v), 1, f) == 1 && v[0] != AT_NULL)
		if (v[0] == AT_ENTRY)
			entry = v[1];
	fclose(f);
	return entry;
}

struct rcmd_xmaps {
	uint64_t ip, start, end;	/* in: ip; out: its mapping */
	uint64_t hash;			/* FNV-1a of every mapping's line */
};

static int rcmd_xmap_look(const struct ptt_map *m, void *arg)
{
	struct rcmd_xmaps *l = arg;
	const char *c;

	if (l->ip >= m->start && l->ip < m->end) {
		l->start = m->start;
		l->end = m->end;
	}
	for (c = m->line; *c; c++)
		l->hash = (l->hash ^ (unsigned char)*c) * 0x100000001b3ULL;
	l->hash = (l->hash ^ '\n') * 0x100000001b3ULL;
	return 0;
}

/* @pid's executable mappings: their hash, and the one holding @ip. */
static int rcmd_xmaps(pid_t pid, struct rcmd_xmaps *l, uint64_t ip)
{
	l->ip = ip;
	l->start = 0;
	l->end = 0;
	l->hash = 0xcbf29ce484222325ULL;
	return ptt_maps_each(pid, rcmd_xmap_look, l);
}

/*
 * Whether syscall @nr (-1: not known) may have mapped code: mmap and
 * mprotect map and make it executable, mremap moves it, exec replaces
 * it all.  Other exits are not looked at (a read of /proc/PID/maps each).
 */
static int rcmd_may_map(int nr)
{
	switch (nr) {
	case SYS_mmap:
	case SYS_mprotect:
	case SYS_pkey_mprotect:
	case SYS_mremap:
	case SYS_execve:
	case SYS_execveat:
	case -1:
		return 1;
	}
	return 0;
}

/*
 * The next stop of a traced thread (of the first one only until every
 * thread is traced): its tid and @st, -ECHILD when the command ended,
 * -EINTR when @l->stop was set, another -errno.  SIGCHLD is blocked
 * (rcmd_await_libs()): between stops it is waited for at most 100 ms at
 * a time, so that @l->tick runs even when the command makes no syscall
 * for long (a perf sideband ring that fills up drops the records that
 * come next, such as the mmap of the library waited for).
 */
static pid_t rcmd_next_stop(struct rcmd *c, const struct rcmd_look *l,
			    int *st, int *status, double *tick)
{
	const struct timespec wait = { 0, 100000000 };
	sigset_t chld;
	pid_t tid;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	for (;;) {
		if (l->tick && ptt_now() >= *tick + 0.1) {
			l->tick(l->arg);
			*tick = ptt_now();
		}
		if (__atomic_load_n(l->stop, __ATOMIC_RELAXED))
			return -EINTR;
		tid = waitpid(c->threads ? -1 : c->pid, st, __WALL | WNOHANG);
		if (!tid || (tid < 0 && errno == EINTR)) {
			/* a SIGCHLD, 100 ms, or a signal that sets @l->stop */
			sigtimedwait(&chld, NULL, &wait);
			continue;
		}
		if (tid < 0)
			return -errno;
		if (WIFSTOPPED(*st))
			return tid;
		if (tid == c->pid) {
			*status = *st;
			return -ECHILD;
		}
		rcmd_forget(c, tid);
	}
}

/*
 * @tid is at its exec's event stop.  A thread other than the first that
 * execs takes the first one's tid (@tid now): its own is never reported
 * again.  The syscall exit that follows is an exec's (@tid's entry may be
 * the first thread's last syscall).
 */
static void rcmd_exec(struct rcmd *c, pid_t tid)
{
	unsigned long old = 0;
	long i;

	if (!ptrace(PTRACE_GETEVENTMSG, tid, NULL, &old) &&
	    (pid_t)old != tid)
		rcmd_forget(c, (pid_t)old);
	i = rcmd_find(c, tid);
	if (i >= 0)
		c->nr[i] = SYS_execve;
}

static int rcmd_await(struct rcmd *c, const struct rcmd_look *l, int *status);

int rcmd_await_libs(struct rcmd *c, const struct rcmd_look *l, int *status)
{
	sigset_t chld, old;
	int err;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);
	err = rcmd_await(c, l, status);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return err;
}

static int rcmd_await(struct rcmd *c, const struct rcmd_look *l, int *status)
{
	struct __ptrace_syscall_info si;
	struct rcmd_xmaps x;
	uint64_t lo, hi, hash;
	double tick = ptt_now();
	int st, sig = 0, left, err, startup = 1;
	pid_t tid = c->pid;
	long i;

	if (ptrace(PTRACE_GET_SYSCALL_INFO, c->pid, sizeof(si), &si) <= 0)
		return -errno;
	if (si.instruction_pointer == rcmd_at_entry(c->pid) ||
	    rcmd_xmaps(c->pid, &x, si.instruction_pointer) || !x.end)
		return -ENOENT;	/* no loader: all it has is mapped */
	lo = x.start;
	hi = x.end;
	hash = x.hash;
	/*
	 * PTRACE_O_TRACEEXEC: an exec is an event stop (with the tid a
	 * thread other than the first had), and a SIGTRAP is the command's
	 * own signal, delivered.
	 */
	if (ptrace(PTRACE_SETOPTIONS, c->pid, NULL,
		   PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL |
		   PTRACE_O_TRACEEXEC) ||
	    rcmd_add(c, c->pid))
		return -errno;
	for (;;) {
		/* a thread killed under us (ESRCH) reports its end next */
		if (ptrace(PTRACE_SYSCALL, tid, NULL, (void *)(long)sig) &&
		    errno != ESRCH)
			return -errno;
		tid = rcmd_next_stop(c, l, &st, status, &tick);
		if (tid < 0)
			return tid;
		sig = WSTOPSIG(st);
		if (rcmd_first_stop(c, tid) && sig == SIGSTOP)
			sig = 0;
		if (st >> 16 == PTRACE_EVENT_EXEC)
			rcmd_exec(c, tid);
		if (st >> 16)
			sig = 0;	/* a ptrace event: clone, exec */
		if (sig != (SIGTRAP | 0x80))
			continue;	/* a signal: delivered */
		sig = 0;
		if (ptrace(PTRACE_GET_SYSCALL_INFO, tid, sizeof(si), &si) <= 0) {
			if (errno == ESRCH)
				continue;	/* killed: its end comes */
			return -errno;
		}
		i = rcmd_find(c, tid);
		if (si.op == PTRACE_SYSCALL_INFO_ENTRY) {
			if (i >= 0)
				c->nr[i] = si.arch == AUDIT_ARCH_X86_64 &&
					   si.entry.nr < 1024 ?
					   (int)si.entry.nr : -1;
			if (!startup || (si.instruction_pointer >= lo &&
					 si.instruction_pointer < hi))
				continue;
			/*
			 * Code of the libraries or the program runs: the
			 * loader's start-up is over.  From here on each
			 * thread the command makes is traced too.
			 */
			startup = 0;
			err = l->startup_over(l->arg);
			if (err)
				return err;
			if (ptrace(PTRACE_SETOPTIONS, tid, NULL,
				   PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL |
				   PTRACE_O_TRACEEXEC | PTRACE_O_TRACECLONE) &&
			    errno != ESRCH)
				return -errno;
			c->threads = 1;
			continue;
		}
		/*
		 * @tid's maps: the first thread's are empty once it has
		 * ended (pthread_exit()) while others run.
		 */
		if (si.op != PTRACE_SYSCALL_INFO_EXIT ||
		    !rcmd_may_map(i >= 0 ? c->nr[i] : -1) ||
		    rcmd_xmaps(tid, &x, 0) || x.hash == hash)
			continue;
		hash = x.hash;
		left = l->look(l->arg, tid);
		if (left < 0)
			return left;
		if (!left) {
			c->stopped = tid;
			return 0;
		}
	}
}
