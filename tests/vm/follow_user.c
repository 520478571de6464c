// SPDX-License-Identifier: GPL-2.0
/*
 * ptt-timeout: 60
 * The recorder as an unprivileged user (uid 65534, /dev/ptN widened to
 * 0666 for the test, as the pttrace group would): 'record -u -- PROG'
 * of its own command works (the trace of its own process, its perf
 * sideband), and 'record -u -p 1' of another user's process is refused
 * with exit 3 and the message naming the privilege it lacks.
 */
#include "follow_record.h"

static int widen(mode_t mode)
{
	char path[32];
	int cpu, n = 0;

	for (cpu = 0; cpu < 64; cpu++) {
		snprintf(path, sizeof(path), "/dev/pt%d", cpu);
		if (!chmod(path, mode))
			n++;
	}
	return n;
}

/* In a child as nobody: run pt-trace, the exit status. */
static int run_as_nobody(char **av, const char *err)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(100);
		_exit(fw_run(av, err));
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int main(int argc, char **argv)
{
	const char *dir = "/tmp/follow_user";
	char out[128], err[128], path[256], *av[16];
	long long bytes = 0, n, paranoid;
	int rc, cpu;

	fw_child_modes(argc, argv);
	REQUIRE(getuid() == 0, "must start as root");
	mkdir(dir, 0777);
	chmod(dir, 0777);
	REQUIRE(widen(0666) > 0, "no /dev/ptN to widen");

	/* its own command */
	snprintf(out, sizeof(out), "%s/own", dir);
	snprintf(err, sizeof(err), "%s/own.err", dir);
	/* -b 1M: the buffers are charged to RLIMIT_MEMLOCK (8 MiB) */
	fw_args(av, (int)ARRAY_SIZE(av), "record", "-u", "-b", "1M", "-o", out, "--",
		fw_self, "spin", "0.3", NULL);
	rc = run_as_nobody(av, err);
	fw_show(err, "own: ");
	CHECK(rc == 0, "record of its own command as nobody exited %d", rc);
	for (cpu = 0; cpu < 64; cpu++) {
		snprintf(path, sizeof(path), "%s/cpu%d.pt", out, cpu);
		n = fw_size(path);
		bytes += n > 0 ? n : 0;
	}
	CHECK(bytes > 0, "no trace of its own command");
	/*
	 * perf lets a user watch its own processes up to paranoid 2;
	 * Debian's kernels default to 3 (no perf for users at all): then
	 * the recorder must say so and go on.
	 */
	paranoid = ptt_read_ll("/proc/sys/kernel/perf_event_paranoid");
	snprintf(path, sizeof(path), "%s/sideband.perf", out);
	if (paranoid <= 2) {
		CHECK(fw_size(path) > 64, "no perf sideband for its own command");
	} else {
		snprintf(path, sizeof(path), "%s/sideband.txt", out);
		CHECK(fw_grep(path, "perf=unavailable: ") &&
		      fw_grep(path, "perf_event_paranoid is"),
		      "perf_event_paranoid %lld: the sideband does not say why there are no perf records",
		      paranoid);
	}
	fprintf(stderr, "PTT-INFO own command: %lld bytes of trace, perf_event_paranoid %lld\n",
		bytes, paranoid);

	/* another user's process */
	snprintf(out, sizeof(out), "%s/other", dir);
	snprintf(err, sizeof(err), "%s/other.err", dir);
	fw_args(av, (int)ARRAY_SIZE(av), "record", "-u", "-p", "1", "-d",
		"0.2", "-o", out, NULL);
	rc = run_as_nobody(av, err);
	fw_show(err, "other: ");
	CHECK(rc == 3, "record -p 1 as nobody exited %d, want 3", rc);
	CHECK(fw_grep(err, "permission denied") &&
	      fw_grep(err, "CAP_PERFMON"),
	      "the refusal does not say what is missing");

	widen(0600);
	if (!ptt_failures && system("rm -rf /tmp/follow_user"))
		fprintf(stderr, "cleanup failed\n");
	return ptt_done();
}
