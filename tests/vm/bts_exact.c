// SPDX-License-Identifier: GPL-2.0
/*
 * bts_exact (issue 15): BTS fed by the exact model (model_exact=1,
 * Documentation/model.rst "Exact mode", model/bts_exact.c).  Records
 * /ptt/work/bts_exact_prog (static, no libc: a few hundred
 * instructions; it moves itself to cpu0) with
 * 'pt-trace record --bts -C 0 -u', in flight and in stream mode (-m;
 * with an 8 KiB ring, so a 2 KiB DS buffer whose threshold PMIs come
 * while the program runs: at least one is required), and requires the
 * records of cpu0.bts whose source is in the program's text, and the
 * kernel's returns into it, to be exactly, in order, what silicon
 * stores for the model's ground truth (exact/truth_cpu0) of that
 * process (bts_expect()): the return that brought it to cpu0 (the
 * SYSRET of its sched_setaffinity()), each pair of consecutive
 * instructions where the second is not the one after the first in
 * memory (lengths from the program's ELF file, capstone), no record of
 * a SYSCALL (it lands at
 * CPL 0) and one of its return, from the kernel's SYSRET
 * (entry_SYSRETQ_end - 3) to the next instruction.  A threshold PMI's
 * drain (BTS off and on in its NMI) adds nothing: the NMI came in the
 * kernel, mostly right after the step whose record reached the
 * threshold, and returns there (a model that made a return due at the
 * BTS re-enable stored an IRET to the next instruction).  And
 * 'pt-trace decode' of cpu0.bts prints a line per record (and one per
 * loss record), naming the program's functions.
 * icl only (the model's profiles do not change BTS in exact mode).
 * Exit 0 pass, 77 skip, 1 fail.
 */
#define _GNU_SOURCE
#include <sys/stat.h>

#include "bts_exact_common.h"

#define PROG "/ptt/work/bts_exact_prog"
#define OUT "/tmp/bts_exact"

static struct bts_prog prog;
static struct bts_kret kret;

/*
 * pt-trace decode of the recording: a line per record, the program's
 * branches named from its symbols through the sideband (libdwfl), and
 * a line per loss record (stream mode's small ring may lose other
 * tasks' records; the program's are all compared with the truth).
 */
static void decoded(const char *pt, size_t nrec)
{
	size_t len, lines = 0, losses = 0;
	char cmd[256], *out, *p, *l;

	snprintf(cmd, sizeof(cmd), "%s decode " OUT "/cpu0.bts >" OUT ".dec 2>&1",
		 pt);
	CHECK(system(cmd) == 0, "decode of cpu0.bts failed");
	out = bts_slurp(OUT ".dec", &len);
	REQUIRE(out, "no decode output");
	for (l = out; (p = strchr(l, '\n')); l = p + 1) {
		if (strstr(l, "]  [lost ") && strstr(l, "]  [lost ") < p)
			losses++;
		else
			lines++;
	}
	if (losses)
		printf("PTT-INFO decode: %zu loss lines\n", losses);
	CHECK(lines == nrec, "decode printed %zu lines for %zu records", lines, nrec);
	CHECK(strstr(out, " fib+") && strstr(out, " table+") &&
	      strstr(out, "(bts_exact_prog) =>"),
	      "decode did not name the program's functions: %.300s", out);
	free(out);
}

/*
 * The session's threshold PMIs on CPU 0, as the recorder read them before
 * its close (its sideband's bts.cpu0.pmis, stream mode; -1 in flight
 * mode): the driver's counters start again at each open, so debugfs bts
 * shows none once the recorder has closed the device.
 */
static long long pmis0(void)
{
	size_t len;
	char *sb = bts_slurp(OUT "/sideband.txt", &len), *s;
	long long ret = -1;

	s = sb ? strstr(sb, "\nbts.cpu0.pmis=") : NULL;
	if (s)
		ret = strtoll(s + 15, NULL, 10);
	free(sb);
	return ret;
}

/*
 * Record the program with BTS in @mode (record's further options @opt)
 * and compare its records with the truth.  With a command, record
 * starts BTS before its first instruction, in stream mode too.
 */
static void run(const char *pt, const char *mode, const char *opt, csh cs)
{
	size_t nexp, ninsn, nkentry, i, got;
	struct bts_branch *exp;
	struct bts_run r;
	char opts[128];

	snprintf(opts, sizeof(opts), "-m %s %s", mode, opt);
	bts_exact_record(&r, pt, PROG, OUT, opts, 0);
	CHECK(strstr(r.log, "bts_exact_prog done"), "%s: the program did not run: %s",
	      mode, r.log);
	exp = calloc(r.tlen / 16 + 1, sizeof(*exp));
	REQUIRE(exp, "memory");
	nexp = bts_expect(r.truth, r.pid, &prog, cs, &kret, 0, exp, r.tlen / 16 + 1,
			  &ninsn, &nkentry);
	got = bts_compare(mode, &prog, &kret, r.rec, r.nrec, exp, nexp);
	printf("PTT-INFO %s: truth %zu instructions of pid %ld, ", mode, ninsn, r.pid);
	printf("%zu kernel entries, %zu records due; ", nkentry, nexp);
	printf("cpu0.bts %zu records, %zu of the program; %lld PMIs; record %.1f s\n",
	       r.nrec, got, pmis0(), r.secs);
	if (!strcmp(mode, "stream"))
		CHECK(pmis0() > 0, "%s: no threshold PMI while the program ran",
		      mode);
	CHECK(ninsn > 100, "%s: only %zu instructions in the truth", mode, ninsn);
	decoded(pt, r.nrec);
	for (i = 0; ptt_failures && i < r.nrec && i < 8; i++)
		printf("PTT-INFO record %zu: %llx -> %llx\n", i,
		       (unsigned long long)r.rec[i].from,
		       (unsigned long long)r.rec[i].to);
	free(exp);
	bts_run_free(&r);
}

int main(void)
{
	const char *pt = bts_exact_check("bts_exact", PROG);
	char old[8] = "0";
	csh cs;

	bts_load_prog(&prog, PROG);
	bts_kret_syms(&kret);
	REQUIRE(cs_open(CS_ARCH_X86, CS_MODE_64, &cs) == CS_ERR_OK, "capstone");

	/* The recorder elsewhere: only the program is stepped on cpu0. */
	bts_exact_on(old, sizeof(old));
	run(pt, "flight", "", cs);
	run(pt, "stream", "-b 8K", cs);
	bts_exact_off(old);
	CHECK(bts_model("bts_exact_busy") == 0, "stepped branches lost: bts_exact_busy %lld",
	      bts_model("bts_exact_busy"));
	cs_close(&cs);
	if (!ptt_failures)
		system("rm -rf " OUT " " OUT ".log");
	return ptt_done();
}
