// SPDX-License-Identifier: GPL-2.0
/*
 * ptt-timeout: 60
 * 'record -S -u -- PROG spin 1.5' with two SIGUSR2 while PROG runs:
 * snapshot.1 and snapshot.2 are written while it runs and snapshot.3 at
 * its end; each holds a cpuN.pt per CPU, with trace data (PSBs) in at
 * least one, and links to the recording's sideband.txt so that dump and
 * decode work there.  The recorder says so for each.
 */
#include <signal.h>

#include "follow_record.h"

int main(int argc, char **argv)
{
	const char *out = "/tmp/follow_snapshot", *err = "/tmp/follow_snapshot.err";
	const char *mark = "/tmp/follow_snapshot.running";
	char path[256], *av[16];
	int rc, k, st;
	pid_t rec;

	if (argc >= 2 && !strcmp(argv[1], "marked")) {
		close(open(mark, O_WRONLY | O_CREAT, 0644));
		fw_work(1.5);
		return 0;
	}
	fw_child_modes(argc, argv);
	unlink(mark);
	fw_args(av, (int)ARRAY_SIZE(av), "record", "-S", "-u", "-o", out,
		"--", fw_self, "marked", NULL);
	av[0] = (char *)fw_pt();
	rec = fork();
	if (rec == 0) {
		int fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(fd, 2);
		execv(av[0], av);
		_exit(126);
	}
	REQUIRE(rec > 0, "fork: %s", strerror(errno));
	/* the command runs: the recorder has its SIGUSR2 handler */
	for (k = 0; k < 200 && access(mark, F_OK); k++)
		usleep(20000);
	CHECK(!access(mark, F_OK), "the command never ran");
	usleep(200000);
	kill(rec, SIGUSR2);
	usleep(300000);
	kill(rec, SIGUSR2);
	REQUIRE(waitpid(rec, &st, 0) == rec, "waitpid");
	fw_show(err, "record: ");
	rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	REQUIRE(rc == 0, "record -S exited %d", rc);
	for (k = 1; k <= 3; k++) {
		long long bytes = 0, n;
		int files = 0, cpu;

		snprintf(path, sizeof(path), "snapshot %d", k);
		CHECK(fw_grep(err, path), "the recorder did not report %s", path);
		for (cpu = 0; cpu < 64; cpu++) {
			snprintf(path, sizeof(path), "%s/snapshot.%d/cpu%d.pt",
				 out, k, cpu);
			n = fw_size(path);
			if (n < 0)
				continue;
			files++;
			bytes += n;
		}
		fprintf(stderr, "PTT-INFO snapshot.%d: %d files, %lld bytes\n",
			k, files, bytes);
		CHECK(files > 0, "snapshot.%d has no cpuN.pt", k);
		CHECK(bytes > 0, "snapshot.%d has no trace data", k);
		snprintf(path, sizeof(path), "%s/snapshot.%d/sideband.txt", out, k);
		CHECK(fw_grep(path, "pt-trace-sideband=1"), "%s not readable", path);
	}
	snprintf(path, sizeof(path), "%s/snapshot.4", out);
	CHECK(access(path, F_OK), "a fourth snapshot");
	snprintf(path, sizeof(path), "%s/cpu0.pt", out);
	CHECK(access(path, F_OK), "-S wrote %s outside the snapshots", path);
	unlink(mark);
	if (!ptt_failures &&
	    system("rm -rf /tmp/follow_snapshot /tmp/follow_snapshot.err"))
		fprintf(stderr, "cleanup failed\n");
	return ptt_done();
}
