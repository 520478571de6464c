// SPDX-License-Identifier: GPL-2.0
/*
 * ptt-timeout: 60
 * 'record -u -p PID -d 1' of a running process (this test, spinning in
 * a child): the recording has trace data with packets, sideband.txt has
 * pid= and the process's map= lines, and sideband.perf begins with its
 * comm and executable mappings as /proc has them (the recorder makes
 * those records; perf only reports what happens after the start), so a
 * decoder has the PIE, libc, ld.so and vdso of a process that was already
 * running.
 */
#include <signal.h>

#include "follow_record.h"

int main(int argc, char **argv)
{
	const char *out = "/tmp/follow_pid", *err = "/tmp/follow_pid.err";
	char pidarg[16], path[256], *av[16];
	struct ptpsb_file f;
	struct ptpsb_event ev;
	int rc, maps = 0, comm = 0, cpu, files = 0;
	long long bytes = 0;
	size_t pos = 0;
	pid_t spin;

	fw_child_modes(argc, argv);
	spin = fork();
	if (spin == 0) {
		execl(fw_self, fw_self, "spin", "60", (char *)NULL);
		_exit(127);
	}
	REQUIRE(spin > 0, "fork: %s", strerror(errno));
	REQUIRE(fw_wait_spin(spin, 10), "pid %d never ran spin with libc mapped", (int)spin);
	snprintf(pidarg, sizeof(pidarg), "%d", (int)spin);
	fw_args(av, (int)ARRAY_SIZE(av), "record", "-u", "-p", pidarg, "-d",
		"1", "-o", out, NULL);
	rc = fw_run(av, err);
	fw_show(err, "record: ");
	kill(spin, SIGKILL);
	waitpid(spin, NULL, 0);
	REQUIRE(rc == 0, "record -p exited %d", rc);

	for (cpu = 0; cpu < 64; cpu++) {
		long long n;

		snprintf(path, sizeof(path), "%s/cpu%d.pt", out, cpu);
		n = fw_size(path);
		if (n < 0)
			continue;
		files++;
		bytes += n;
	}
	CHECK(files > 0, "no cpuN.pt");
	CHECK(bytes > 0, "no trace data of the spinning process");
	fprintf(stderr, "PTT-INFO %lld bytes of trace in %d files\n", bytes,
		files);
	snprintf(path, sizeof(path), "%s/sideband.txt", out);
	snprintf(pidarg, sizeof(pidarg), "pid=%d", (int)spin);
	CHECK(fw_grep(path, pidarg), "sideband.txt has no %s", pidarg);
	CHECK(fw_grep(path, fw_self), "sideband.txt has no map of %s", fw_self);

	snprintf(path, sizeof(path), "%s/%s", out, PTPSB_FILE_NAME);
	rc = ptpsb_load(path, &f);
	REQUIRE(rc == 0, "%s: %s", path, strerror(-rc));
	while (ptpsb_next(&f, &pos, &ev) == 1) {
		if (ev.bpid != (__u32)spin)
			continue;
		if (ev.type == 10 && ev.time == 0)
			maps++;
		if (ev.type == 3 && !strcmp(ev.name, strrchr(fw_self, '/') + 1))
			comm++;
	}
	CHECK(maps >= 4,
	      "%d mmap2 records made from /proc for pid %d (PIE, libc, ld.so, vdso expected)",
	      maps, (int)spin);
	CHECK(comm == 1, "%d comm records for pid %d", comm, (int)spin);
	ptpsb_free(&f);
	if (!ptt_failures && system("rm -rf /tmp/follow_pid /tmp/follow_pid.err"))
		fprintf(stderr, "cleanup failed\n");
	return ptt_done();
}
