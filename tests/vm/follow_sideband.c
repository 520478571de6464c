// SPDX-License-Identifier: GPL-2.0
/*
 * ptt-timeout: 60
 * The recorder's perf sideband for 'record -u -- PROG maps DIR fork':
 * PROG (this test, a dynamically linked PIE) writes the maps the kernel
 * gave it, forks, and its child execs PROG again, which does the same.
 * For both processes, every executable mapping of /proc/PID/maps (the
 * PIE, libc, ld.so, the vdso) must be in DIR/sideband.perf as an mmap2
 * record of that pid with the same start, length, file offset and name;
 * each process has its exec comm record, the child its fork record from
 * the parent, and the text file has the same records.  sideband.txt
 * names the perf files and keeps its old keys (map=, pid=) for the
 * current decoder.
 */
#include "follow_record.h"

static struct ptpsb_file sbf;

/* Is there an mmap2 record of @pid for the /proc line's mapping? */
static int has_mmap(__u32 pid, unsigned long long a, unsigned long long b,
		    unsigned long long off, const char *name)
{
	struct ptpsb_event ev;
	size_t pos = 0;

	while (ptpsb_next(&sbf, &pos, &ev) == 1)
		if (ev.type == 10 /* MMAP2 */ && ev.bpid == pid &&
		    ev.addr == a && ev.len == b - a &&
		    (name[0] == '[' || ev.pgoff == off) &&
		    !strcmp(ev.name, name))
			return 1;
	return 0;
}

static int has_record(__u32 type, __u32 pid, __u32 ppid,
		      const char *comm)
{
	struct ptpsb_event ev;
	size_t pos = 0;

	while (ptpsb_next(&sbf, &pos, &ev) == 1)
		if (ev.type == type && ev.bpid == pid &&
		    (!ppid || ev.ppid == ppid) &&
		    (!comm || (ev.name && !strcmp(ev.name, comm))))
			return 1;
	return 0;
}

/* Check one process's maps file against the records; its exec mappings. */
static int check_maps(const char *path, __u32 pid)
{
	char line[4096];
	FILE *f = fopen(path, "r");
	int n = 0;

	REQUIRE(f, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, b, off;
		char perm[8];
		int k = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &a, &b, perm,
			   &off, &k) != 4 || !k || perm[2] != 'x')
			continue;
		line[strcspn(line, "\n")] = 0;
		if (line[k] != '/' && strcmp(line + k, "[vdso]"))
			continue;
		n++;
		CHECK(has_mmap(pid, a, b, off, line + k),
		      "pid %u: no mmap2 record for '%s'", pid, line);
	}
	fclose(f);
	return n;
}

int main(int argc, char **argv)
{
	const char *dir = "/tmp/follow_sideband";
	char out[256], err[256], path[512], *av[16];
	__u32 pids[2] = { 0, 0 };
	struct ptpsb_event ev;
	int rc, np = 0, i, n;
	size_t pos = 0;

	fw_child_modes(argc, argv);
	snprintf(out, sizeof(out), "%s/rec", dir);
	snprintf(err, sizeof(err), "%s/err", dir);
	mkdir(dir, 0755);
	fw_args(av, (int)ARRAY_SIZE(av), "record", "-u", "-o", out, "--",
		fw_self, "maps", dir, "fork", NULL);
	rc = fw_run(av, err);
	fw_show(err, "record: ");
	REQUIRE(rc == 0, "record exited %d", rc);

	snprintf(path, sizeof(path), "%s/%s", out, PTPSB_FILE_NAME);
	rc = ptpsb_load(path, &sbf);
	REQUIRE(rc == 0, "%s: %s", path, strerror(-rc));
	fprintf(stderr, "PTT-INFO sideband.perf: %zu bytes, clock %s%s%s\n",
		sbf.len, sbf.hdr.clock ? "monotonic" : "perf",
		sbf.hdr.flags & PTPSB_TIME_ZERO ? ", exact TSC" :
		", no cap_user_time_zero",
		sbf.hdr.flags & PTPSB_BUILD_ID ? ", build-ids" : "");
	/* every record parses; the processes are those that wrote maps */
	n = 0;
	while ((rc = ptpsb_next(&sbf, &pos, &ev)) == 1)
		n++;
	CHECK(rc == 0, "record at offset %zu does not parse", pos);
	CHECK(n > 0, "no records");
	snprintf(path, sizeof(path), "%s/%s", out, "sideband.txt");
	CHECK(fw_grep(path, "perf=sideband.perf"), "sideband.txt does not name sideband.perf");
	CHECK(fw_grep(path, "map=0x"), "sideband.txt lost its map= lines");
	snprintf(path, sizeof(path), "%s/%s", out, PTPSB_TEXT_NAME);
	CHECK(fw_grep(path, " mmap2 ") && fw_grep(path, " comm "),
	      "%s has no mmap2/comm lines", path);

	/* the maps files: maps.PID, written by the traced processes */
	{
		char cmd[600];
		FILE *ls;

		snprintf(cmd, sizeof(cmd), "ls %s", dir);
		ls = popen(cmd, "r");
		while (ls && fgets(cmd, sizeof(cmd), ls))
			if (!strncmp(cmd, "maps.", 5) && np < 2)
				pids[np++] = (__u32)atoi(cmd + 5);
		if (ls)
			pclose(ls);
	}
	REQUIRE(np == 2, "%d maps files, want 2 (parent and exec'd child)", np);
	for (i = 0; i < 2; i++) {
		const char *comm = strrchr(fw_self, '/') + 1;

		snprintf(path, sizeof(path), "%s/maps.%u", dir, pids[i]);
		n = check_maps(path, pids[i]);
		CHECK(n >= 4, "pid %u: %d executable mappings (PIE, libc, ld.so, vdso expected)",
		      pids[i], n);
		fprintf(stderr, "PTT-INFO pid %u: %d executable mappings checked\n",
			pids[i], n);
		CHECK(has_record(3 /* COMM */, pids[i], 0, comm),
		      "pid %u: no comm record '%s'", pids[i], comm);
	}
	/* the child came from a fork of the parent (either order in ls) */
	CHECK(has_record(7 /* FORK */, pids[0], pids[1], NULL) ||
	      has_record(7 /* FORK */, pids[1], pids[0], NULL),
	      "no fork record between %u and %u", pids[0], pids[1]);
	ptpsb_free(&sbf);
	if (!ptt_failures) {
		snprintf(path, sizeof(path), "rm -rf %s", dir);
		if (system(path))
			fprintf(stderr, "cleanup failed\n");
	}
	return ptt_done();
}
