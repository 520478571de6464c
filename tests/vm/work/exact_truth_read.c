// SPDX-License-Identifier: GPL-2.0
/*
 * The exact model's ground truth read while a test records (not traced),
 * for the exact_* tests (exact_lib.sh's exact_truth_start):
 *   exact_truth_read DIR
 * appends what each CPU's ring (debugfs pt_trace/model/exact/truth_cpuN,
 * consumed as read) holds to DIR/truth.N, every 20 ms, so that a program
 * of any length fits: a ring holds 2^18 lines, a few seconds of
 * stepping.  On SIGTERM it reads every ring once more, to its end, and
 * exits 0; 1 on an error (named on stderr).
 *
 *   exact_truth_read -m DIR
 * prints the instruction lines of DIR/truth.* merged by their TSC (the
 * first field; the CPUs' TSCs agree), a tie in the order of the files:
 * what 'cat DIR/truth.* | grep -v "^#" | sort -s -n -k1,1' prints, in
 * a second where busybox sort took 18 for 430,000 lines under TCG.
 *
 * In C, one process: a shell loop of cat and sleep forks and execs
 * busybox twice a round, milliseconds each under TCG.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TRUTH_GLOB "/sys/kernel/debug/pt_trace/model/exact/truth_cpu*"
#define MAX_CPUS 64

/* Everything @in holds now, appended to @out; -1 on an error. */
static int drain(int in, int out, const char *name)
{
	static char buf[1 << 16];
	ssize_t n, w, off;

	for (;;) {
		n = read(in, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "exact_truth_read: %s: %s\n", name, strerror(errno));
			return -1;
		}
		if (n == 0)
			return 0;
		for (off = 0; off < n; off += w) {
			w = write(out, buf + off, (size_t)(n - off));
			if (w < 0 && errno == EINTR) {
				w = 0;
				continue;
			}
			if (w < 0) {
				perror("exact_truth_read: write");
				return -1;
			}
		}
	}
}

struct merge_in {
	FILE *f;
	char *line;
	size_t cap;
	unsigned long long tsc;
	int live;
};

/* The next instruction line of @in (not a '#' one), or live = 0. */
static void merge_next(struct merge_in *in)
{
	while (getline(&in->line, &in->cap, in->f) > 0) {
		if (in->line[0] == '#')
			continue;
		in->tsc = strtoull(in->line, NULL, 10);
		return;
	}
	in->live = 0;
}

static int merge(const char *dir)
{
	struct merge_in in[MAX_CPUS];
	char pat[4096];
	size_t i, n, best;
	glob_t g;

	snprintf(pat, sizeof(pat), "%s/truth.*", dir);
	if (glob(pat, 0, NULL, &g) || !g.gl_pathc) {
		fprintf(stderr, "exact_truth_read: no %s\n", pat);
		return 1;
	}
	n = g.gl_pathc < MAX_CPUS ? g.gl_pathc : MAX_CPUS;
	for (i = 0; i < n; i++) {
		memset(&in[i], 0, sizeof(in[i]));
		in[i].f = fopen(g.gl_pathv[i], "r");
		if (!in[i].f) {
			perror(g.gl_pathv[i]);
			return 1;
		}
		in[i].live = 1;
		merge_next(&in[i]);
	}
	for (;;) {
		best = n;
		for (i = 0; i < n; i++)
			if (in[i].live && (best == n || in[i].tsc < in[best].tsc))
				best = i;
		if (best == n)
			break;
		fputs(in[best].line, stdout);
		merge_next(&in[best]);
	}
	return fflush(stdout) || ferror(stdout) ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	int in[MAX_CPUS], out[MAX_CPUS];
	glob_t g;
	size_t i, n;
	sigset_t term;
	int last = 0;

	if (argc == 3 && !strcmp(argv[1], "-m"))
		return merge(argv[2]);
	if (argc != 2) {
		fprintf(stderr, "usage: exact_truth_read [-m] DIR\n");
		return 2;
	}
	/* SIGTERM is waited for, as the sleep between rounds. */
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_BLOCK, &term, NULL);
	if (glob(TRUTH_GLOB, 0, NULL, &g) || !g.gl_pathc) {
		fprintf(stderr, "exact_truth_read: no %s\n", TRUTH_GLOB);
		return 1;
	}
	n = g.gl_pathc < MAX_CPUS ? g.gl_pathc : MAX_CPUS;
	for (i = 0; i < n; i++) {
		const char *p = g.gl_pathv[i];
		char name[4096];

		snprintf(name, sizeof(name), "%s/truth.%s", argv[1],
			 strrchr(p, 'u') + 1);	/* truth_cpuN: N */
		in[i] = open(p, O_RDONLY);
		out[i] = open(name, O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (in[i] < 0 || out[i] < 0) {
			fprintf(stderr, "exact_truth_read: %s: %s\n",
				in[i] < 0 ? p : name, strerror(errno));
			return 1;
		}
	}
	/* A round after SIGTERM reads what was left, then it ends. */
	for (;;) {
		for (i = 0; i < n; i++)
			if (drain(in[i], out[i], g.gl_pathv[i]))
				return 1;
		if (last)
			return 0;
		last = sigtimedwait(&term, NULL, &tick) == SIGTERM;
	}
}
