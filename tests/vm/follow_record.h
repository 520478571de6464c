/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the follow_* tests of the recorder share: finding and running
 * pt-trace, the test binary's own child modes (the traced program is the
 * test itself, a dynamically linked PIE with libc, ld.so and the vdso),
 * and reading the recording's files.
 *
 * Child modes (argv[1]):
 *   maps DIR [fork]  write /proc/self/maps to DIR/maps.PID (what the
 *                    kernel mapped: the ground truth for the sideband);
 *                    with "fork", also fork a child that execs "maps DIR"
 *   spin SECONDS     a busy loop (for -p and -S)
 *   stopper          work, then ptt_stop_here(), then more work
 */
#ifndef FOLLOW_RECORD_H
#define FOLLOW_RECORD_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "perfsb.h"
#include "ptt_test.h"

static char fw_self[PATH_MAX];
static unsigned long fw_sink;

/* The pt-trace binary, as tools_record.sh finds it. */
static inline const char *fw_pt(void)
{
	static const char *const cand[] = { "/ptt/bin/pt-trace",
					    "./tools/build/pt-trace" };
	const char *env = getenv("PT_TRACE");
	size_t i;

	if (env && !access(env, X_OK))
		return env;
	for (i = 0; i < ARRAY_SIZE(cand); i++)
		if (!access(cand[i], X_OK))
			return cand[i];
	SKIP("pt-trace not found (the VM installs tools/build/* in /ptt/bin)");
	return NULL;
}

static inline double fw_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline void fw_work(double seconds)
{
	double end = fw_now() + seconds;
	unsigned long i;

	while (fw_now() < end)
		for (i = 0; i < 10000; i++) {
			fw_sink += i;
			__asm__ __volatile__("" : : "r"(fw_sink) : "memory");
		}
}

/*
 * libc's random_r in a loop for @seconds (most of the time inside it,
 * where the sampled model's tick sees it), with @between(sink) after
 * each call when given: the tests of --stop-at and --filter on a
 * library function.
 */
static inline void fw_random_r(double seconds,
			       unsigned long (*between)(unsigned long))
{
	struct random_data rd = { 0 };
	char state[64] = { 0 };
	double end = fw_now() + seconds;
	__s32 r;
	int i;

	initstate_r(1, state, sizeof(state), &rd);
	while (fw_now() < end)
		for (i = 0; i < 100000; i++) {
			random_r(&rd, &r);
			fw_sink += (unsigned long)r;
			if (between)
				fw_sink = between(fw_sink);
		}
}

static inline void fw_dump_maps(const char *dir)
{
	char path[PATH_MAX], buf[4096];
	int in = open("/proc/self/maps", O_RDONLY), out;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/maps.%d", dir, (int)getpid());
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			break;
	close(in);
	close(out);
}

/* The child modes; returns only when argv asks for none. */
static inline void fw_child_modes(int argc, char **argv)
{
	ssize_t n = readlink("/proc/self/exe", fw_self, sizeof(fw_self) - 1);

	if (n > 0)
		fw_self[n] = 0;
	if (argc >= 3 && !strcmp(argv[1], "maps")) {
		fw_dump_maps(argv[2]);
		if (argc >= 4 && !strcmp(argv[3], "fork")) {
			pid_t pid = fork();

			if (pid == 0) {
				execl(fw_self, fw_self, "maps", argv[2],
				      (char *)NULL);
				_exit(127);
			}
			waitpid(pid, NULL, 0);
		}
		exit(0);
	}
	if (argc >= 3 && !strcmp(argv[1], "spin")) {
		fw_work(atof(argv[2]));
		exit(0);
	}
}

/* @av = { NULL, args..., NULL } from the NULL-terminated arguments. */
static inline void fw_args(char **av, int max, ...)
{
	va_list ap;
	int i = 0;
	char *a;

	av[i++] = NULL;
	va_start(ap, max);
	while (i < max - 1 && (a = va_arg(ap, char *)))
		av[i++] = a;
	va_end(ap);
	av[i] = NULL;
}

/*
 * Start pt-trace with @argv (NULL-terminated, argv[0] ignored), stderr
 * to @errpath; its pid, or -1.
 */
static inline pid_t fw_start(char **argv, const char *errpath)
{
	pid_t pid;

	argv[0] = (char *)fw_pt();
	pid = fork();
	if (pid == 0) {
		int fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd >= 0)
			dup2(fd, 2);
		execv(argv[0], argv);
		_exit(126);
	}
	return pid;
}

/* A status of waitpid() as an exit status (128 + signal when killed). */
static inline int fw_status(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Run pt-trace as fw_start(); its exit status, or -1. */
static inline int fw_run(char **argv, const char *errpath)
{
	pid_t pid = fw_start(argv, errpath);
	int st;

	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return fw_status(st);
}

/* Print a file's lines with a prefix (the recorder's messages). */
static inline void fw_show(const char *path, const char *prefix)
{
	char line[1024];
	FILE *f = fopen(path, "r");

	while (f && fgets(line, sizeof(line), f))
		fprintf(stderr, "%s%s", prefix, line);
	if (f)
		fclose(f);
}

/* 1 when the file @path contains @needle. */
static inline int fw_grep(const char *path, const char *needle)
{
	char line[4096];
	FILE *f = fopen(path, "r");
	int found = 0;

	while (f && !found && fgets(line, sizeof(line), f))
		found = !!strstr(line, needle);
	if (f)
		fclose(f);
	return found;
}

/*
 * Poll @ready(@arg) every @step_us until it holds (1), @seconds pass or
 * the process @pid has exited (0; left unreaped for the caller's wait).
 */
static inline int fw_poll(pid_t pid, double seconds, useconds_t step_us,
			  int (*ready)(const void *arg), const void *arg)
{
	double end = fw_now() + seconds;
	siginfo_t si;

	while (fw_now() < end) {
		if (ready(arg))
			return 1;
		si.si_pid = 0;
		if (!waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) &&
		    si.si_pid == pid)
			return 0;
		usleep(step_us);
	}
	return 0;
}

struct fw_grep_arg {
	const char *path, *needle;
};

static inline int fw_grep_ready(const void *arg)
{
	const struct fw_grep_arg *g = arg;

	return fw_grep(g->path, g->needle);
}

/*
 * Wait until the file @path has a line with @needle (the recorder @rec
 * still running): 1, or 0 after @seconds or once @rec has exited.
 */
static inline int fw_wait_grep(const char *path, const char *needle,
			       pid_t rec, double seconds)
{
	struct fw_grep_arg g = { path, needle };

	return fw_poll(rec, seconds, 20000, fw_grep_ready, &g);
}

/*
 * 1 when the process @pid runs "fw_self spin ..." (its exec is done:
 * before it, the forked child's command line is its parent's) with
 * libc mapped (ld.so has loaded it).
 */
static inline int fw_spin_loaded(pid_t pid)
{
	char path[64], cmd[PATH_MAX + 16];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	f = fopen(path, "r");
	if (f) {
		n = fread(cmd, 1, sizeof(cmd) - 1, f);
		fclose(f);
	}
	cmd[n] = 0;
	if (strlen(cmd) + 1 >= n || strcmp(cmd + strlen(cmd) + 1, "spin"))
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	return fw_grep(path, "libc");
}

static inline int fw_spin_ready(const void *arg)
{
	return fw_spin_loaded(*(const pid_t *)arg);
}

/*
 * Wait until the child @pid, forked to exec "fw_self spin ...", is past
 * its exec and ld.so's loading (polled, not a fixed wait): 1, or 0 after
 * @seconds or once it has exited.
 */
static inline int fw_wait_spin(pid_t pid, double seconds)
{
	return fw_poll(pid, seconds, 5000, fw_spin_ready, &pid);
}

/* The size of a file, or -1. */
static inline long long fw_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (long long)st.st_size;
}

#endif /* FOLLOW_RECORD_H */
