// SPDX-License-Identifier: GPL-2.0
/*
 * ptt-timeout: 60
 * 'record -u --filter random_r -- PROG randomr', PROG calling libc's
 * random_r in a loop: libc is not mapped at PROG's exec stop, so the
 * recorder follows the loader's start-up (ptrace, syscall stops) until
 * it maps libc, finds the function there (filter= names that file),
 * programs the IP filter range and starts tracing; PROG runs to its end.
 * 'decode' with the recording's images (libc's from the sideband) gives
 * some instructions, and every one lies in random_r's range and is
 * symbolized as random_r.
 * Then two --filter symbols at once, one in PROG (ptt_filter_here) and
 * one in libc (random_r), which PROG calls in turns: both ranges
 * programmed, each in its file, and the decode has instructions in
 * both and none outside them.  The same two of a running process,
 * 'record -p PID' (a forked child of the test: the symbols are looked
 * up in the files it has mapped).  Last a --filter function in no file
 * PROG ever maps: the recorder waits for PROG to load it (dlopen) and,
 * when PROG has ended, fails with a usage error that says where it
 * looked.
 *
 * The sampled model's flow inside a range is synthetic (indirect
 * targets near the sampled IP, random TNT bits), so decoding it is
 * only safe where no walk can leave the range: both functions have
 * fewer than 6 conditional branches before their RET (random_r, a leaf)
 * or none (ptt_filter_here), so each walk from a sampled IP meets its
 * RET with TNT bits left (the model sends 6 after each PSB+ and
 * TIP.PGE), fails there and resumes at the next PSB, never reaching
 * the model's synthetic TIP.
 * On the debug kernel the first case only (time budget).
 * Skips on profiles with fewer than 2 address ranges.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "follow_record.h"

/*
 * One step of an LCG, then a direct jump to the next instruction: no
 * trace for a decoder, but it ends QEMU's translation block, and TCG
 * takes an interrupt only where a block starts: the model's tick then
 * samples IPs inside the function (a function of one block is sampled
 * only at its entry, and only when the tick came in the block before).
 */
static inline unsigned long fh_step(unsigned long x)
{
	x = x * 6364136223846793005UL + 1442695040888963407UL;
	__asm__ __volatile__("jmp 1f\n1:" : "+r"(x));
	return x;
}

/*
 * PROG's own filtered function: global (in the symbol table), no
 * conditional branch (see above), most of the mixed loop's time.
 */
__pt_attribute((noinline, used)) unsigned long ptt_filter_here(unsigned long x);
__pt_attribute((noinline, used)) unsigned long ptt_filter_here(unsigned long x)
{
	int i;

	/* unrolled: a loop would be a conditional branch */
#pragma GCC unroll 16
	for (i = 0; i < 16; i++)
		x = fh_step(x);
	return x;
}

#define MAX_SYMS 2

struct frange {
	const char *sym, *file;	/* in: the function and where it must be */
	unsigned long long a, b;
	long insns;
};

/*
 * The recording in @out has a filter= range for each of @r[0..@n) in a
 * file whose path contains its ->file; 'decode' of all its traces has
 * instructions in each range, none outside them, and each is
 * symbolized as its range's function.
 */
static void check_filtered(const char *out, struct frange *r, int n,
			   bool command)
{
	char path[512], cmd[1200], line[1024], name[256], where[256];
	long outside = 0, lines = 0;
	unsigned long long a, b, ip;
	double t0;
	FILE *f;
	int i;

	for (i = 0; i < n; i++) {	/* what this recording gives */
		r[i].a = 0;
		r[i].b = 0;
		r[i].insns = 0;
	}
	snprintf(path, sizeof(path), "%s/sideband.txt", out);
	CHECK(!command || fw_grep(path, "exit_status=0"),
	      "the command did not run to its end");
	f = fopen(path, "r");
	REQUIRE(f, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "filter=%255s %llx %llx %255s", name, &a, &b,
			   where) != 4)
			continue;
		for (i = 0; i < n; i++) {
			if (strcmp(name, r[i].sym))
				continue;
			r[i].a = a;
			r[i].b = b;
			CHECK(strstr(where, r[i].file), "%s was found in %s, not in %s",
			      name, where, r[i].file);
			fprintf(stderr, "PTT-INFO filter %s: %#llx-%#llx in %s\n",
				name, a, b, where);
		}
	}
	fclose(f);
	for (i = 0; i < n; i++)
		REQUIRE(r[i].b > r[i].a, "no filter=%s range in the sideband", r[i].sym);

	snprintf(cmd, sizeof(cmd),
		 "%s decode --format=raw %s/cpu*.pt >%s/dec.txt 2>%s/dec.err",
		 fw_pt(), out, out, out);
	t0 = fw_now();
	i = system(cmd);
	fprintf(stderr, "PTT-INFO decode took %.1f s\n", fw_now() - t0);
	REQUIRE(i != -1 && WIFEXITED(i) && WEXITSTATUS(i) <= 2,
		"decode failed (status %#x)", i);
	snprintf(path, sizeof(path), "%s/dec.txt", out);
	f = fopen(path, "r");
	REQUIRE(f, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		const char *s;
		size_t len;

		/* an instruction: "IP  bytes  <SYM+0xOFF>" */
		if (strspn(line, "0123456789abcdef") != 16 ||
		    strncmp(line + 16, "  ", 2))
			continue;
		lines++;
		ip = strtoull(line, NULL, 16);
		s = strchr(line, '<');
		len = s ? strcspn(s + 1, "+>") : 0;
		for (i = 0; i < n; i++)
			if (ip >= r[i].a && ip <= r[i].b)
				break;
		if (i < n && s && len == strlen(r[i].sym) &&
		    !strncmp(s + 1, r[i].sym, len)) {
			r[i].insns++;
			continue;
		}
		if (outside++ < 5)
			fprintf(stderr, "FAIL-LINE %s", line);
	}
	fclose(f);
	fprintf(stderr, "PTT-INFO decode: %ld instructions, %ld outside the ranges or misnamed\n",
		lines, outside);
	CHECK(!outside, "%ld decoded instructions are not inside a filter range (as its function)",
	      outside);
	for (i = 0; i < n; i++) {
		fprintf(stderr, "PTT-INFO %s: %ld instructions\n", r[i].sym,
			r[i].insns);
		CHECK(r[i].insns > 0, "no instruction decoded inside %s", r[i].sym);
	}
	if (ptt_failures) {
		snprintf(path, sizeof(path), "%s/dec.err", out);
		fw_show(path, "decode: ");
	}
}

int main(int argc, char **argv)
{
	const char *out = "/tmp/follow_filterlib", *err = "/tmp/follow_filterlib.err";
	const char *out_mixed = "/tmp/follow_filterlib_mixed";
	const char *out_pid = "/tmp/follow_filterlib_pid";
	char pidarg[16];
	pid_t child;
	struct frange lib[1] = { { "random_r", "libc", 0, 0, 0 } };
	struct frange mixed[MAX_SYMS] = {
		{ "ptt_filter_here", NULL, 0, 0, 0 },
		{ "random_r", "libc", 0, 0, 0 },
	};
	char *av[20];
	double t0;
	int rc;

	if (argc >= 2 && !strcmp(argv[1], "randomr")) {
		fw_work(0.05);	/* the trace on, outside the range */
		fw_random_r(0.25, NULL);
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "mixed")) {
		fw_random_r(0.25, ptt_filter_here);
		return 0;
	}
	fw_child_modes(argc, argv);
	if (ptt_read_ll("/sys/kernel/pt_trace/caps/num_address_ranges") < MAX_SYMS)
		SKIP("fewer than %d address ranges in this profile", MAX_SYMS);
	mixed[0].file = fw_self;

	/* A function of a library the loader maps at start (libc). */
	fw_args(av, (int)ARRAY_SIZE(av), "record", "-u", "--filter",
		"random_r", "-o", out, "--", fw_self, "randomr", NULL);
	t0 = fw_now();
	rc = fw_run(av, err);
	fprintf(stderr, "PTT-INFO record (lib) took %.1f s\n", fw_now() - t0);
	fw_show(err, "record (lib): ");
	REQUIRE(rc == 0, "record --filter random_r -- PROG exited %d", rc);
	CHECK(fw_grep(err, "filter random_r: in a library the loader mapped at start"),
	      "the recorder did not say it found random_r as the loader mapped it");
	check_filtered(out, lib, 1, true);
	/*
	 * The rest checks the recorder's own logic, the same on every
	 * kernel: not on the debug kernel (lockdep, KASAN), where each
	 * record and decode takes 5-10 s (make check's time budget).
	 */
	if (!access("/proc/lockdep", F_OK)) {
		fprintf(stderr, "PTT-INFO debug kernel: the lib case only\n");
		goto out;
	}

	/* One in PROG, found at the exec stop, one in libc. */
	fw_args(av, (int)ARRAY_SIZE(av), "record", "-u", "--filter",
		"ptt_filter_here", "--filter", "random_r", "-o", out_mixed, "--",
		fw_self, "mixed", NULL);
	t0 = fw_now();
	rc = fw_run(av, err);
	fprintf(stderr, "PTT-INFO record (mixed) took %.1f s\n", fw_now() - t0);
	fw_show(err, "record (mixed): ");
	REQUIRE(rc == 0, "record --filter ptt_filter_here --filter random_r exited %d", rc);
	check_filtered(out_mixed, mixed, MAX_SYMS, true);

	/* The same two in a running process (-p), found in its mappings. */
	child = fork();
	REQUIRE(child >= 0, "fork: %s", strerror(errno));
	if (!child) {
		fw_random_r(20, ptt_filter_here);
		_exit(0);
	}
	snprintf(pidarg, sizeof(pidarg), "%d", (int)child);
	fw_args(av, (int)ARRAY_SIZE(av), "record", "-u", "-p", pidarg,
		"--filter", "ptt_filter_here", "--filter", "random_r", "-d",
		"0.5", "-o", out_pid, NULL);
	t0 = fw_now();
	rc = fw_run(av, err);
	fprintf(stderr, "PTT-INFO record -p (mixed) took %.1f s\n", fw_now() - t0);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	fw_show(err, "record -p (mixed): ");
	REQUIRE(rc == 0, "record -p PID --filter ptt_filter_here --filter random_r exited %d", rc);
	check_filtered(out_pid, mixed, MAX_SYMS, false);

	/* In no file PROG maps: a usage error once it ends, which says so. */
	fw_args(av, (int)ARRAY_SIZE(av), "record", "-u", "--filter",
		"ptt_no_such_function", "-o", out, "--", fw_self, "randomr",
		NULL);
	t0 = fw_now();
	rc = fw_run(av, err);
	fprintf(stderr, "PTT-INFO record (none) took %.1f s\n", fw_now() - t0);
	fw_show(err, "record (none): ");
	CHECK(rc == 1, "record --filter ptt_no_such_function exited %d, not 1", rc);
	CHECK(fw_grep(err, "--filter ptt_no_such_function: not in "),
	      "the recorder did not say it waits for a library with the function");
	CHECK(fw_grep(err, "ended without loading a library with that function"),
	      "the recorder did not name the function it did not find");
	CHECK(fw_grep(err, "the libraries its loader mapped at start and those it loaded later"),
	      "the recorder did not say where it looked for the function");
out:
	if (!ptt_failures &&
	    system("rm -rf /tmp/follow_filterlib*"))
		fprintf(stderr, "cleanup failed\n");
	return ptt_done();
}
