// SPDX-License-Identifier: GPL-2.0
/*
 * ptt-timeout: 60
 * sideband.txt is written as the recording goes, not only at its end: a
 * reader of the recording directory during 'record -u -p PID' finds the
 * header and the process's maps once tracing has started, and after the
 * recorder is killed (SIGKILL: no end, no flush) the directory still has
 * them, with sideband.perf readable and holding the process's comm and
 * mmap records (made at the start) and trace data in cpuN.pt (stream
 * mode writes as it drains).  Before, sideband.txt stayed in stdio's
 * buffer until the end, and a killed recorder left it empty or cut.
 * Icl only: the recorder's files are profile-independent.
 */
#include <signal.h>
#include <stdio.h>

#include "follow_record.h"

#define OUT "/tmp/follow_sideband_live"

/* The trace bytes in the recording's cpuN.pt files so far. */
static long long trace_bytes(void)
{
	char path[256];
	long long bytes = 0, n;
	int cpu;

	for (cpu = 0; cpu < 64; cpu++) {
		snprintf(path, sizeof(path), "%s/rec/cpu%d.pt", OUT, cpu);
		n = fw_size(path);
		if (n > 0)
			bytes += n;
	}
	return bytes;
}

int main(int argc, char **argv)
{
	static const char *const keys[] = {
		"pt-trace-sideband=", "pid=", "perf=", "caps.flags=", "mode=",
		"buffer_size=",
	};
	const char *prof = getenv("PTT_PROFILE");
	char pidarg[16], path[256], *av[16];
	int rc, st, comm = 0, maps = 0, started;
	struct ptpsb_event ev;
	struct ptpsb_file f;
	long long bytes = 0;
	size_t pos = 0, i;
	pid_t spin, rec;

	fw_child_modes(argc, argv);
	if (prof && strcmp(prof, "icl"))
		SKIP("the recorder's files are profile-independent: icl only");
	REQUIRE(!system("rm -rf " OUT " && mkdir -p " OUT), "mkdir %s", OUT);
	spin = fork();
	if (spin == 0) {
		execl(fw_self, fw_self, "spin", "30", (char *)NULL);
		_exit(127);
	}
	REQUIRE(spin > 0, "fork: %s", strerror(errno));
	REQUIRE(fw_wait_spin(spin, 10), "pid %d never ran spin with libc mapped", (int)spin);
	snprintf(pidarg, sizeof(pidarg), "%d", (int)spin);
	fw_args(av, (int)ARRAY_SIZE(av), "record", "-u", "-p", pidarg, "-o",
		OUT "/rec", NULL);
	rec = fw_start(av, OUT "/rec.err");
	REQUIRE(rec > 0, "fork: %s", strerror(errno));
	/* The header's last line, written just before START. */
	started = fw_wait_grep(OUT "/rec/sideband.txt", "buffer_size=", rec,
			       30);
	/* Until some trace is drained (10 s at most: a loaded host is slow). */
	for (i = 0; started && i < 500 && trace_bytes() <= 0; i++)
		usleep(20000);
	kill(rec, SIGKILL);
	waitpid(rec, &st, 0);
	kill(spin, SIGKILL);
	waitpid(spin, NULL, 0);
	fw_show(OUT "/rec.err", "record: ");
	CHECK(started, "sideband.txt had no buffer_size= while recording");
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
	      "the recorder ended before SIGKILL (status 0x%x)", st);

	snprintf(path, sizeof(path), "%s/rec/sideband.txt", OUT);
	for (i = 0; i < ARRAY_SIZE(keys); i++)
		CHECK(fw_grep(path, keys[i]),
		      "sideband.txt left by a killed recorder has no %s line",
		      keys[i]);
	CHECK(fw_grep(path, fw_self), "sideband.txt has no map of %s",
	      fw_self);

	snprintf(path, sizeof(path), "%s/rec/%s", OUT, PTPSB_FILE_NAME);
	rc = ptpsb_load(path, &f);
	REQUIRE(rc == 0, "%s: %s", path, strerror(-rc));
	while (ptpsb_next(&f, &pos, &ev) == 1) {
		if (ev.bpid != (__u32)spin)
			continue;
		maps += ev.type == 10;
		comm += ev.type == 3;
	}
	ptpsb_free(&f);
	CHECK(comm >= 1 && maps >= 4,
	      "sideband.perf of a killed recorder: %d comm, %d mmap2 records of pid %d",
	      comm, maps, (int)spin);
	bytes = trace_bytes();
	fprintf(stderr, "PTT-INFO %lld bytes of trace before the kill\n", bytes);
	CHECK(bytes > 0, "no trace data written before the kill");
	if (!ptt_failures && system("rm -rf " OUT))
		fprintf(stderr, "cleanup failed\n");
	return ptt_done();
}
