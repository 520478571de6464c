// SPDX-License-Identifier: GPL-2.0
/*
 * Host test of the recorder's build-ids on a kernel that gives none
 * (Linux before 5.12 refuses perf_event_attr.build_id with EINVAL): the
 * collector (perf_collect.c) is linked with -Wl,--wrap=syscall, and
 * __wrap_syscall() refuses such an event as that kernel does.  Then
 * every executable mmap2 record of a file must carry the build-id the
 * recorder read from it (build_id.c), as the kernel's would:
 *   - sh running a copy of true: ld.so, libc and the copy, each
 *     with the build-id elfutils reads from that file;
 *   - a copy of true replaced by a copy of false after it ran and
 *     before the records were read: no build-id (false's would hide
 *     the change from decode);
 *   - a copy of sleep replaced while it still runs: sleep's, read
 *     through /proc/PID/map_files (needs CAP_SYS_ADMIN or
 *     CAP_CHECKPOINT_RESTORE: else not checked, and said so).
 * Exit 0 pass, 77 skip (no perf events here), 1 fail.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <linux/types.h>

#include "build_id.h"
#include "expect.h"
#include "perf_collect.h"
#include "perfsb.h"

static int refused;

/*
 * The kernel before 5.12: an event asking for build-ids is EINVAL.
 * Every other call goes to libc's syscall() (-Wl,--wrap=syscall sends
 * this program's calls here, this one's too).
 */
long __wrap_syscall(long nr, ...)
{
	static long (*real)(long nr, ...);
	long a[6];
	va_list ap;
	int i;

	va_start(ap, nr);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == SYS_perf_event_open &&
	    ((const struct perf_event_attr *)a[0])->build_id) {
		refused++;
		errno = EINVAL;
		return -1;
	}
	if (!real)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	if (!real) {
		fprintf(stderr, "no syscall() in libc: %s\n", dlerror());
		exit(1);
	}
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

static int cpus[256], ncpus;

static void copy(const char *from, const char *to)
{
	char cmd[8400];

	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", from, to);
	if (system(cmd)) {
		fprintf(stderr, "%s failed\n", cmd);
		exit(1);
	}
}

/* @to replaced by a copy of @from: another file under the same name */
static void replace(const char *from, const char *to)
{
	char tmp[4200];

	snprintf(tmp, sizeof(tmp), "%s.new", to);
	copy(from, tmp);
	if (rename(tmp, to))
		exit(1);
}

/* The build-id elfutils reads from @path now, as hex; "" without. */
static void file_id(const char *path, char hex[41])
{
	__u8 id[20];
	int n = bid_read(0, 0, 0, path, 0, id), i;

	hex[0] = 0;
	for (i = 0; i < n; i++)
		sprintf(hex + 2 * i, "%02x", id[i]);
}

static void rec_id(const struct ptpsb_event *ev, char hex[41])
{
	int i;

	hex[0] = 0;
	for (i = 0; i < ev->build_id_size; i++)
		sprintf(hex + 2 * i, "%02x", ev->build_id[i]);
}

/* Until @pid maps @name executable (its exec has mapped it). */
static void wait_mapped(pid_t pid, const char *name)
{
	char path[64], line[4400];
	int i, found = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	for (i = 0; i < 500 && !found; i++) {
		FILE *f = fopen(path, "re");

		while (f && fgets(line, sizeof(line), f))
			found |= strstr(line, " r-xp ") && strstr(line, name);
		if (f)
			fclose(f);
		if (!found)
			usleep(10000);
	}
	EXPECT(found, "%s never mapped by %d", name, (int)pid);
}

/*
 * The collector on a child that runs @prog with up to two arguments
 * (NULL ends them) once the events are open:
 * @replace_from over @replace_to after it exited (@wait_for NULL) or
 * while it runs, once it maps @wait_for; the records into @f.
 */
static void collect(const char *dir, const char *prog, const char *arg0,
		    const char *arg1, const char *wait_for,
		    const char *replace_from, const char *replace_to,
		    struct ptpsb_file *f)
{
	char why[512], path[4200];
	struct pcol pc;
	int p[2], st;
	pid_t child;
	FILE *sb;

	mkdir(dir, 0755);
	if (pipe(p))
		exit(1);
	child = fork();
	if (child == 0) {
		char c;

		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(127);
		execl(prog, prog, arg0, arg1, (char *)NULL);
		_exit(127);
	}
	close(p[0]);
	if (pcol_open(&pc, cpus, ncpus, child, dir, why, sizeof(why))) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		printf("SKIP: %s\n", why);
		exit(77);
	}
	if (write(p[1], "g", 1) != 1)
		exit(1);
	close(p[1]);
	if (wait_for) {
		wait_mapped(child, wait_for);
		replace(replace_from, replace_to);
	} else {
		waitpid(child, &st, 0);
		EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: status %#x",
		       prog, st);
		if (replace_from)
			replace(replace_from, replace_to);
	}
	snprintf(path, sizeof(path), "%s/sb.txt", dir);
	sb = fopen(path, "w");
	/* the records are read here, after the file was replaced */
	EXPECT(sb && pcol_close(&pc, dir, sb) == 0, "pcol_close in %s", dir);
	if (sb)
		fclose(sb);
	if (wait_for) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	snprintf(path, sizeof(path), "%s/%s", dir, PTPSB_FILE_NAME);
	if (ptpsb_load(path, f)) {
		fprintf(stderr, "cannot load %s\n", path);
		exit(1);
	}
	EXPECT(!(f->hdr.flags & PTPSB_BUILD_ID),
	       "the header says the kernel gave build-ids (flags %#x)",
	       f->hdr.flags);
}

/* Whether we may open a mapping's file in /proc/PID/map_files. */
static int can_map_files(void)
{
	unsigned long long start, end;
	char path[96], line[4400];
	FILE *f = fopen("/proc/self/maps", "re");
	int ok = 0, fd;

	/* the first file mapping (ASan's shadow comes before ours) */
	while (f && fgets(line, sizeof(line), f))
		if (strchr(line, '/') &&
		    sscanf(line, "%llx-%llx", &start, &end) == 2)
			break;
	if (f && !feof(f)) {
		snprintf(path, sizeof(path), "/proc/self/map_files/%llx-%llx",
			 start, end);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		ok = fd >= 0;
		if (fd >= 0)
			close(fd);
	}
	if (f)
		fclose(f);
	return ok;
}

/* The executable mmap2 records of @name's file (a path ending so). */
static int find_maps(const struct ptpsb_file *f, const char *name,
		     struct ptpsb_event *out, int max)
{
	struct ptpsb_event ev;
	size_t pos = 0, nl = strlen(name), l;
	int n = 0;

	while (ptpsb_next(f, &pos, &ev) == 1) {
		if (ev.type != PERF_RECORD_MMAP2 || !(ev.prot & 4) ||
		    ev.name[0] != '/')
			continue;
		l = strlen(ev.name);
		if (l >= nl && !strcmp(ev.name + l - nl, name) && n < max)
			out[n++] = ev;
	}
	return n;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	char d[4096], prog[4200], cmd[4300], want[41], got[41], trueid[41];
	char sleepid[41], falseid[41];
	struct ptpsb_event ev[64];
	struct ptpsb_file f;
	int i, n, mapfiles = 0;
	static const char *const names[] = {
		"/all/prog", "/libc.so.6", "/ld-linux-x86-64.so.2",
		"",	/* every file: the shell's too, whatever its name */
	};

	ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpus > 256)
		ncpus = 256;
	for (i = 0; i < ncpus; i++)
		cpus[i] = i;
	file_id("/bin/true", trueid);
	file_id("/bin/false", falseid);
	file_id("/bin/sleep", sleepid);
	if (!trueid[0] || !sleepid[0] || !strcmp(trueid, falseid)) {
		printf("SKIP: %s\n",
		       "/bin/true, /bin/false and /bin/sleep need build-ids, true's not false's");
		return 77;
	}

	/* 1: every file sh and a copy of true map */
	snprintf(d, sizeof(d), "%.4000s/all", dir);
	mkdir(d, 0755);
	snprintf(prog, sizeof(prog), "%s/prog", d);
	copy("/bin/true", prog);
	snprintf(cmd, sizeof(cmd), "%s; exit 0", prog);
	collect(d, "/bin/sh", "-c", cmd, NULL, NULL, NULL, &f);
	EXPECT(refused > 0, "the events never asked for build-ids");
	for (n = 0; n < (int)ARRAY_SIZE(names); n++) {
		const char *name = names[n];
		int m = find_maps(&f, name, ev, 64);

		EXPECT(m >= 1, "no executable mmap2 of *%s", name);
		for (i = 0; i < m; i++) {
			file_id(ev[i].name, want);
			rec_id(&ev[i], got);
			EXPECT(want[0] && !strcmp(got, want),
			       "%s: build-id '%s', the file's '%s'",
			       ev[i].name, got, want);
		}
	}
	ptpsb_free(&f);

	/* 2: true replaced by false after it ran, before the records are read */
	snprintf(d, sizeof(d), "%.4000s/gone", dir);
	mkdir(d, 0755);
	snprintf(prog, sizeof(prog), "%s/prog", d);
	copy("/bin/true", prog);
	collect(d, prog, NULL, NULL, NULL, "/bin/false", prog, &f);
	n = find_maps(&f, "/gone/prog", ev, 64);
	EXPECT(n == 1, "%d executable mmap2 of %s", n, prog);
	rec_id(&ev[0], got);
	EXPECT(n < 1 || !got[0], "%s replaced: build-id '%s' (true's %s, false's %s)",
	       prog, got, trueid, falseid);
	ptpsb_free(&f);

	/* 3: sleep replaced while it runs: its own file, through map_files */
	snprintf(d, sizeof(d), "%.4000s/alive", dir);
	mkdir(d, 0755);
	snprintf(prog, sizeof(prog), "%s/sleeper", d);
	copy("/bin/sleep", prog);
	collect(d, prog, "30", NULL, "/alive/sleeper", "/bin/false", prog, &f);
	n = find_maps(&f, "/alive/sleeper", ev, 64);
	EXPECT(n == 1, "%d executable mmap2 of %s", n, prog);
	rec_id(&ev[0], got);
	mapfiles = can_map_files();
	if (mapfiles)
		EXPECT(n < 1 || !strcmp(got, sleepid),
		       "%s replaced while running: build-id '%s', sleep's %s",
		       prog, got, sleepid);
	else
		EXPECT(n < 1 || !got[0] || !strcmp(got, sleepid),
		       "%s: build-id '%s', sleep's %s", prog, got, sleepid);
	ptpsb_free(&f);
	printf("%s; while running: %s\n",
	       "build-ids read for sh, ld.so, libc and the programs; replaced after exit: none",
	       mapfiles ? "the mapped file's (map_files)" :
	       "not checked (no map_files here)");
	return fails ? 1 : 0;
}
