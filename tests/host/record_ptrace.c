// SPDX-License-Identifier: GPL-2.0
/*
 * record -- COMMAND's wait for a --filter/--stop-at function that COMMAND
 * never loads (rcmd_await_libs(), tools/pt-trace/rec_command.c), on the
 * host: no /dev/pt* needed.  This program is both the recorder side and
 * the command (run again with a mode as argv[1]); it is linked with
 * -Wl,--wrap=waitpid so that a thread can be killed between a stop's
 * waitpid() and the ptrace requests that follow.
 *
 *  trap: the command's threads raise SIGTRAP (a handler counts them):
 *        a signal of the command, delivered, not taken for an exec's.
 *  kill: the command is SIGKILLed (as by its exit_group() or the OOM
 *        killer) while a thread of it is at a syscall stop: the wait
 *        says the command ended (-ECHILD), not that ptrace failed.
 *  exec: a thread other than the first execs (its tid changes) this
 *        program in mode trap: the wait goes on in the new program.
 *  lead: the first thread has ended (pthread_exit(): its maps are empty)
 *        when another maps the code looked for: found there.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "expect.h"
#include "rec_command.h"

/* --- the command ------------------------------------------------------- */

static int traps;

static void on_trap(int sig)
{
	(void)sig;
	__atomic_add_fetch(&traps, 1, __ATOMIC_RELAXED);
}

static void *trap_thread(void *arg)
{
	(void)arg;
	raise(SIGTRAP);
	return NULL;
}

static char *self;

static void *exec_thread(void *arg)
{
	(void)arg;
	execl(self, self, "trap", (char *)NULL);
	exit(6);
}

static void *busy_thread(void *arg)
{
	(void)arg;
	for (;;)
		syscall(SYS_getpid);
	return NULL;
}

/* Code mapped from a file of its own: the function looked for. */
static void *map_thread(void *arg)
{
	int fd = memfd_create("ptt-marker", 0);

	(void)arg;
	usleep(100000);	/* the first thread has exited */
	/* a first mmap: the look there finds nothing yet */
	if (fd < 0 || ftruncate(fd, 4096) ||
	    mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0) == MAP_FAILED ||
	    mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) ==
	    MAP_FAILED)
		exit(5);
	return NULL;
}

static int command(const char *mode)
{
	pthread_t t;

	if (!strcmp(mode, "trap")) {
		signal(SIGTRAP, on_trap);
		raise(SIGTRAP);
		pthread_create(&t, NULL, trap_thread, NULL);
		pthread_join(t, NULL);
		return __atomic_load_n(&traps, __ATOMIC_RELAXED) == 2 ? 0 : 3;
	}
	if (!strcmp(mode, "exec")) {
		pthread_create(&t, NULL, exec_thread, NULL);
		pthread_join(t, NULL);
		return 7;
	}
	if (!strcmp(mode, "lead")) {
		pthread_create(&t, NULL, map_thread, NULL);
		pthread_exit(NULL);
	}
	pthread_create(&t, NULL, busy_thread, NULL);
	pthread_join(t, NULL);
	return 4;
}

/* --- the recorder's side ----------------------------------------------- */

static pid_t leader;
static int kill_armed;

/* rec_command.c's waitpid() (-Wl,--wrap=waitpid): wait4() as libc's */
pid_t __wrap_waitpid(pid_t pid, int *st, int flags)
{
	pid_t got = wait4(pid, st, flags, NULL);

	if (got > 0 && got != leader && kill_armed &&
	    rcmd_is_syscall_stop(*st)) {
		kill_armed = 0;
		kill(leader, SIGKILL);
		usleep(100000);	/* the thread is woken and dies */
	}
	return got;
}

/* Found once the marker is mapped executable (never but in mode lead). */
static int look_marker(void *arg, pid_t pid)
{
	char path[64], line[4096], perm[5];
	int left = 1;
	FILE *f;

	(void)arg;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 1;
	while (left && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %4s", perm) == 1 && perm[2] == 'x' &&
		    strstr(line, "/memfd:ptt-marker"))
			left = 0;
	fclose(f);
	return left;
}

static int go_on(void *arg)
{
	(void)arg;
	return 0;
}

static int stop;

/* Run @self @mode under the wait: its result, the command's @status. */
static int await(char *self, const char *mode, int *status)
{
	struct rcmd c;
	char *cmd[3];
	struct rcmd_look l = {
		.look = look_marker, .startup_over = go_on, .stop = &stop,
	};
	int release, err;

	cmd[0] = self;
	cmd[1] = (char *)mode;
	cmd[2] = NULL;
	memset(&c, 0, sizeof(c));
	c.pid = rcmd_spawn(cmd, &release);
	if (c.pid < 0)
		return -errno;
	leader = c.pid;
	if (rcmd_release(c.pid, &release, status))
		return -EINVAL;
	c.stopped = c.pid;
	kill_armed = !strcmp(mode, "kill");
	err = rcmd_await_libs(&c, &l, status);
	if (!err && c.stopped == c.pid)
		err = -EBADF;	/* not the thread that mapped it */
	if (err != -ECHILD)
		rcmd_kill(&c, status);
	rcmd_free(&c);
	return err;
}

int main(int argc, char **argv)
{
	int st = 0, err;

	self = argv[0];
	if (argc > 1)
		return command(argv[1]);

	err = await(argv[0], "trap", &st);
	EXPECT(err == -ECHILD, "trap: %d (%s)", err, strerror(-err));
	EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "trap: status %#x: the command's SIGTRAPs were not delivered",
	       st);

	st = 0;
	err = await(argv[0], "kill", &st);
	EXPECT(err == -ECHILD, "kill: %d (%s)", err, strerror(-err));
	EXPECT(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "kill: status %#x",
	       st);

	st = 0;
	err = await(argv[0], "exec", &st);
	EXPECT(err == -ECHILD, "exec: %d (%s)", err, strerror(-err));
	EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 0, "exec: status %#x", st);

	err = await(argv[0], "lead", &st);
	EXPECT(!err, "lead: %d (%s): not found in the thread that mapped it",
	       err, strerror(-err));
	return fails ? 1 : 0;
}
