// SPDX-License-Identifier: GPL-2.0
/*
 * ptt-timeout: 60
 * Ctrl-C at any moment of 'record -- COMMAND' ends it cleanly.  The
 * recorder is interrupted (SIGINT) in each phase of its run: at once
 * (before it has the devices), as soon as the command exists (its exec
 * stop) and 10 ms later (inside --stop-at's ptrace walk through the
 * loader), as soon as the trace has started (sideband.txt's
 * buffer_size=) and 200 ms later.  With and without --stop-at, some
 * rounds as a terminal sends it (to the recorder's process group: the
 * command gets it too), some to the recorder alone (kill PID: the
 * command does not).  Each time:
 *  - the recorder ends within 15 s with status 0 (a recording as at the
 *    end) or 130 (interrupted before it started); 0 once the trace had
 *    started; it never hangs, crashes or leaves another status;
 *  - the command (a 20 s busy loop; this test is the child subreaper, so
 *    it sees it orphaned) ends within 5 s of the recorder, as perf record
 *    ends its workload: nothing is left running untraced;
 *  - no device is left running or following a process, and the next
 *    round's recorder gets the devices.
 * Icl only (the recorder's part is profile-independent), and on
 * Debian's 6.1 only (about 2 s a round under TCG, make check's time
 * budget; the recorder is the same on every kernel, and the driver's
 * release paths run in many tests there).
 */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <linux/pt_trace.h>

#include "follow_record.h"

#define OUT	"/tmp/tools_record_sigint"
#define ERR	"/tmp/tools_record_sigint.err"

/* pt-trace with @argv in its own process group (a terminal's job). */
static pid_t trs_start(char **argv)
{
	pid_t pid;

	argv[0] = (char *)fw_pt();
	pid = fork();
	if (pid == 0) {
		int fd = open(ERR, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		setpgid(0, 0);
		if (fd >= 0)
			dup2(fd, 2);
		execv(argv[0], argv);
		_exit(126);
	}
	if (pid > 0)
		setpgid(pid, pid);	/* whichever runs first */
	return pid;
}

/* Wait up to @secs for @pid: its exit status, or -1 (then killed). */
static int trs_wait(pid_t pid, double secs)
{
	double end = fw_now() + secs;
	int st;

	while (fw_now() < end) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return fw_status(st);
		usleep(10000);
	}
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return -1;
}

/* Reap the orphaned command for up to @secs: 1 when none is left. */
static int trs_reap_rest(double secs)
{
	double end = fw_now() + secs;

	for (;;) {
		pid_t w = waitpid(-1, NULL, WNOHANG);

		if (w < 0 && errno == ECHILD)
			return 1;
		if (w > 0)
			continue;
		if (fw_now() >= end)
			return 0;
		usleep(10000);
	}
}

/* No device traces or follows anything now. */
static void trs_devices_idle(int round)
{
	int cpu, n = (int)sysconf(_SC_NPROCESSORS_ONLN);

	for (cpu = 0; cpu < n; cpu++) {
		struct pt_trace_follow_status fs = { .size = sizeof(fs) };
		struct pt_trace_status st = { .size = sizeof(st) };
		int fd = ptt_open_cpu(cpu, O_RDONLY);

		if (fd < 0)
			continue;	/* offline */
		CHECK(!ioctl(fd, PT_TRACE_IOC_GET_STATUS, &st),
		      "round %d: GET_STATUS cpu%d: %s", round, cpu,
		      strerror(errno));
		CHECK(!(st.flags & PT_STATUS_RUNNING),
		      "round %d: cpu%d still running after the recorder ended",
		      round, cpu);
		if (!ioctl(fd, PT_TRACE_IOC_GET_FOLLOW, &fs))
			CHECK(!(fs.state & PT_FOLLOW_ACTIVE),
			      "round %d: cpu%d still follows pid %d", round,
			      cpu, (int)fs.pid);
		close(fd);
	}
}

/* 1 when the process @arg (a pid_t) has a child (/proc/N/stat's ppid). */
static int trs_has_child(const void *arg)
{
	pid_t pid = *(const pid_t *)arg;
	struct dirent *de;
	char path[300], buf[512], *p;
	int found = 0, ppid;
	DIR *d = opendir("/proc");

	while (d && !found && (de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		if (ptt_read_str(path, buf, sizeof(buf)))
			continue;
		p = strrchr(buf, ')');	/* after the comm, which may hold ')' */
		found = p && sscanf(p + 1, " %*c %d", &ppid) == 1 &&
			ppid == pid;
	}
	if (d)
		closedir(d);
	return found;
}

enum trs_phase { AT_START, AT_COMMAND, AT_TRACE };

static const struct trs_round {
	enum trs_phase phase;
	int ms;		/* after the phase began */
	int stopat;	/* --stop-at random_r */
	int group;	/* to the process group, as a terminal */
} rounds[] = {
	{ AT_START, 0, 0, 0 },		{ AT_COMMAND, 0, 0, 1 },
	{ AT_COMMAND, 10, 1, 1 },	{ AT_COMMAND, 0, 1, 0 },
	{ AT_TRACE, 0, 0, 0 },		{ AT_TRACE, 200, 1, 1 },
};

int main(int argc, char **argv)
{
	static const char *const phase_name[] = {
		"the start", "the command's exec", "the trace's start" };
	const char *prof = getenv("PTT_PROFILE");
	int i, st, by_status[2] = { 0, 0 };
	struct utsname u;
	char *av[16];
	pid_t rec;

	fw_child_modes(argc, argv);
	if (prof && strcmp(prof, "icl"))
		SKIP("the recorder's part is profile-independent: icl only");
	if (uname(&u) || strncmp(u.release, "6.1.0-", 6))
		SKIP("Debian's 6.1 only (time budget; the recorder is the same on every kernel)");
	REQUIRE(!prctl(PR_SET_CHILD_SUBREAPER, 1), "PR_SET_CHILD_SUBREAPER: %s",
		strerror(errno));
	for (i = 0; i < (int)ARRAY_SIZE(rounds); i++) {
		const struct trs_round *r = &rounds[i];
		int reached = 1;

		if (system("rm -rf " OUT))
			fprintf(stderr, "rm %s failed\n", OUT);
		if (r->stopat)
			fw_args(av, (int)ARRAY_SIZE(av), "record", "-u", "-o",
				OUT, "--stop-at", "random_r", "--", fw_self,
				"spin", "20", NULL);
		else
			fw_args(av, (int)ARRAY_SIZE(av), "record", "-u", "-o",
				OUT, "--", fw_self, "spin", "20", NULL);
		rec = trs_start(av);
		REQUIRE(rec > 0, "fork: %s", strerror(errno));
		if (r->phase == AT_COMMAND)
			reached = fw_poll(rec, 10, 1000, trs_has_child, &rec);
		else if (r->phase == AT_TRACE)
			reached = fw_wait_grep(OUT "/sideband.txt",
					       "buffer_size=", rec, 10);
		usleep(r->ms * 1000);
		kill(r->group ? -rec : rec, SIGINT);
		st = trs_wait(rec, 15);
		fprintf(stderr,
			"PTT-INFO round %d: record -u%s, SIGINT %d ms after %s to the %s: status %d\n",
			i, r->stopat ? " --stop-at random_r" : "", r->ms,
			phase_name[r->phase],
			r->group ? "process group" : "recorder", st);
		if (st != 0 && st != 130)
			fw_show(ERR, "record: ");
		CHECK(reached, "round %d: the recorder never reached %s",
		      i, phase_name[r->phase]);
		CHECK(st == 0 || (st == 130 && r->phase != AT_TRACE),
		      "round %d: the recorder ended with %d (0%s expected; -1: still running after 15 s)",
		      i, st, r->phase != AT_TRACE ? " or 130" : "");
		if (st == 0 || st == 130)
			by_status[st != 0]++;
		CHECK(trs_reap_rest(5),
		      "round %d: the command still runs 5 s after the recorder ended",
		      i);
		trs_devices_idle(i);
	}
	fprintf(stderr, "PTT-INFO %d rounds recorded (status 0), %d interrupted early (130)\n",
		by_status[0], by_status[1]);
	if (!ptt_failures && system("rm -rf " OUT " " ERR))
		fprintf(stderr, "cleanup failed\n");
	return ptt_done();
}
