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
 * BTS re-enable stored an IRET to the next instruction).  Nor does PT's
 * ToPA PMI (TraceEn off and on in its NMI), which a third run, stream
 * mode with PT's MTC at --mtc=0 and CYC, has while the program runs (required;
 * at the default the debug kernel's slower run had one, 6.1's none):
 * a model that made a return due at PT's restart stored an IRET to the
 * next instruction, or before the next interrupt's there.  A failed
 * run's recording and truth are kept in PTT_OUT (bts_exact_keep()).  And
 * 'pt-trace decode' of cpu0.bts prints a line per record (and one per
 * loss record), naming the program's functions.
 * icl only (the model's profiles do not change BTS in exact mode).
 * Exit 0 pass, 77 skip, 1 fail.
 */
#define _GNU_SOURCE
#include <stdbool.h>
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
 * A count of the session's on CPU 0 that the recorder wrote in its
 * sideband before its close, after @key: BTS's threshold PMIs
 * ("\nbts.cpu0.pmis="), PT's ToPA PMIs ("\ncpu.pmis=0 "); stream mode
 * only, -1 without (flight mode).  The driver's counters start again at
 * each open, so debugfs shows none once the recorder has closed the
 * device.
 */
static long long pmis0(const char *key)
{
	size_t len;
	char *sb = bts_slurp(OUT "/sideband.txt", &len), *s;
	long long ret = -1;

	s = sb ? strstr(sb, key) : NULL;
	if (s)
		ret = strtoll(s + strlen(key), NULL, 10);
	free(sb);
	return ret;
}

#define BTS_PMIS "\nbts.cpu0.pmis="
#define PT_PMIS "\ncpu.pmis=0 "

/*
 * Record the program with BTS in @mode (record's further options @opt)
 * and compare its records with the truth; @name is the run's in the
 * messages.  With a command, record starts BTS before its first
 * instruction, in stream mode too.  @pt_pmi: PT's own stream must have
 * had a ToPA PMI while the program ran too.
 */
static void run(const char *pt, const char *name, const char *mode,
		const char *opt, bool pt_pmi, csh cs)
{
	size_t nexp, ninsn, nkentry, i, got;
	int failed = ptt_failures;
	struct bts_branch *exp;
	struct bts_run r;
	char opts[128];

	snprintf(opts, sizeof(opts), "-m %s %s", mode, opt);
	bts_exact_record(&r, pt, PROG, OUT, opts, 0);
	CHECK(strstr(r.log, "bts_exact_prog done"), "%s: the program did not run: %s",
	      name, r.log);
	exp = calloc(r.tlen / 16 + 1, sizeof(*exp));
	REQUIRE(exp, "memory");
	nexp = bts_expect(r.truth, r.pid, &prog, cs, &kret, 0, exp, r.tlen / 16 + 1,
			  &ninsn, &nkentry);
	got = bts_compare(name, &prog, &kret, r.rec, r.nrec, exp, nexp);
	printf("PTT-INFO %s: truth %zu instructions of pid %ld, ", name, ninsn, r.pid);
	printf("%zu kernel entries, %zu records due; ", nkentry, nexp);
	printf("cpu0.bts %zu records, %zu of the program; %lld PMIs, PT's %lld; record %.1f s\n",
	       r.nrec, got, pmis0(BTS_PMIS), pmis0(PT_PMIS), r.secs);
	if (!strcmp(mode, "stream"))
		CHECK(pmis0(BTS_PMIS) > 0, "%s: no threshold PMI while the program ran",
		      name);
	if (pt_pmi)
		CHECK(pmis0(PT_PMIS) > 0, "%s: no PT PMI while the program ran",
		      name);
	CHECK(ninsn > 100, "%s: only %zu instructions in the truth", name, ninsn);
	decoded(pt, r.nrec);
	for (i = 0; ptt_failures && i < r.nrec && i < 8; i++)
		printf("PTT-INFO record %zu: %llx -> %llx\n", i,
		       (unsigned long long)r.rec[i].from,
		       (unsigned long long)r.rec[i].to);
	if (ptt_failures > failed)
		bts_exact_keep(&r, OUT, name);
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
	run(pt, "flight", "flight", "", false, cs);
	run(pt, "stream", "stream", "-b 8K", false, cs);
	/*
	 * PT's 8 KiB stream as well filled past its 4 KiB watermark while
	 * the program runs: MTC at --mtc=0, 8 times the default's rate
	 * (cpu0.pt on 6.1: 7.1 KB; 2.9 KB at the default, which reached
	 * 5.3 KB on the debug kernel, slower), and CYC: the exact model
	 * writes an MTC and a CYC at nearly every stepped instruction, so
	 * the bytes follow the instructions more than the host's speed.
	 * The ToPA PMI's NMI comes right after the step whose packets
	 * filled the region and restarts PT there.
	 */
	run(pt, "stream-pt-pmi", "stream", "-b 8K --mtc=0 --cyc", true, cs);
	bts_exact_off(old);
	CHECK(bts_model("bts_exact_busy") == 0, "stepped branches lost: bts_exact_busy %lld",
	      bts_model("bts_exact_busy"));
	cs_close(&cs);
	if (!ptt_failures)
		system("rm -rf " OUT " " OUT ".log");
	return ptt_done();
}
