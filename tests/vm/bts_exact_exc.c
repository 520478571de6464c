// SPDX-License-Identifier: GPL-2.0
/*
 * bts_exact_exc (issue 15): BTS of user-mode exceptions with the exact
 * model, user branches only (-u: BTS_OFF_OS; Documentation/model.rst,
 * "BTS in exact mode").  /ptt/work/exact_nolibc_exc (no libc) raises
 * #GP (hlt), #DE, #UD, #XM (if QEMU raises it) and #BP (int3) 4 times
 * each, its handlers stepping over the faulting instruction.  Recorded
 * with 'pt-trace record --bts -C 0 -u' and the model's exact/trap_irq
 * knob on (an irq_work queued where the model learns of each exception,
 * taken when the kernel enables IRQs in its kernel visit):
 *  - cpu0.bts holds exactly the records silicon stores for the truth
 *    (bts_expect(): taken branches, the kernel's SYSRET/IRET returns,
 *    none for the exceptions, which land at CPL 0);
 *  - the truth has a kernel entry of the exception's vector (#GP 13,
 *    #DE 0, #UD 6, #XM 19, #BP 3) at each faulting instruction (the
 *    int3 for #BP, a trap) once a round, and an IRET after it: for the
 *    int3 whether or not its SIGTRAP is delivered (failed before: no
 *    entry, no IRET due in the truth, while the model stored the IRET
 *    back after record's ptrace stop, which swallowed the SIGTRAP),
 *    and none of the irq_work's vector (0xf6) there: that interrupt came
 *    in the kernel, and silicon stores no IRET back to the faulting
 *    instruction for it.  Fails on a model that takes it for one of
 *    user code at the #GP's hlt (no die event reports a user #GP).
 * User-mode BTS is refused under PTI: runs on the 6.1 boot, skips on the
 * others; icl only.  Exit 0 pass, 77 skip, 1 fail.
 */
#define _GNU_SOURCE

#include "bts_exact_common.h"

#define PROG "/ptt/work/exact_nolibc_exc"
#define TRUTH "/sys/kernel/debug/pt_trace/model/exact/truth_cpu0"
#define OUT "/tmp/bts_exact_exc"
#define TRAP_IRQ "/sys/kernel/debug/pt_trace/model/exact/trap_irq"
#define IRQ_WORK_VECTOR	0xf6	/* arch/x86/include/asm/irq_vectors.h */
#define ROUNDS		4

/* The truth's kernel entries of @pid at @ip of vector @vec. */
static int entries(const char *truth, long pid, unsigned long long at, int vec)
{
	unsigned long long tsc, ip;
	long cpu, lpid, tid;
	const char *l;
	int v, n = 0;

	for (l = truth; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "")
		if (sscanf(l, "# kentry %llu %ld %ld %ld %llx %d", &tsc, &cpu,
			   &lpid, &tid, &ip, &v) == 6 && tid == pid &&
		    ip == at && v == vec)
			n++;
	return n;
}

/* The address after "@key=0x" in @log (0: none). */
static unsigned long long addr(const char *log, const char *key)
{
	char k[16];
	const char *s;
	unsigned long long v;

	snprintf(k, sizeof(k), " %s=", key);
	s = strstr(log, k);
	return s && sscanf(s + strlen(k), "%llx", &v) == 1 ? v : 0;
}

int main(void)
{
	static const struct { const char *key; int vec; } kinds[] = {
		{ "gp", 13 }, { "de", 0 }, { "ud", 6 }, { "xm", 19 }, { "bp", 3 },
		{ NULL, 0 }
	};
	const char *pt = bts_exact_check("bts_exact_exc", PROG);
	size_t tlen, blen, nrec, nexp, ninsn, nkentry, got, i;
	unsigned long long restorer;
	int nfpe = 0, nvec, nirq;
	char old[8] = "0", cmd[512], *truth, *log, *s;
	struct bts_branch *exp;
	struct bts_prog prog;
	struct bts_kret kret;
	struct bts_rec *rec;
	long long trap_irqs;
	long pid;
	csh cs;

	bts_load_prog(&prog, PROG);
	bts_kret_syms(&kret);
	REQUIRE(cs_open(CS_ARCH_X86, CS_MODE_64, &cs) == CS_ERR_OK, "capstone");

	bts_exact_on(old, sizeof(old));
	free(bts_slurp(TRUTH, &tlen));	/* drain what earlier runs left */
	trap_irqs = bts_exact_stat("trap_irqs");
	REQUIRE(!ptt_write_str(TRAP_IRQ, "1"), "cannot set " TRAP_IRQ);
	snprintf(cmd, sizeof(cmd),
		 "rm -rf " OUT "; %s record --bts -C 0 -u -o " OUT " -- " PROG
		 " >" OUT ".log 2>&1", pt);
	CHECK(system(cmd) == 0, "record failed");
	truth = bts_slurp(TRUTH, &tlen);
	ptt_write_str(TRAP_IRQ, "0");
	bts_exact_off(old);
	log = bts_slurp(OUT ".log", &blen);
	REQUIRE(log && truth, "no log or truth");
	restorer = addr(log, "restorer");
	REQUIRE(strstr(log, "exact_nolibc_exc ") && restorer,
		"the program did not run: %.300s", log);
	s = strstr(log, "nfpe=");
	if (s)
		sscanf(s, "nfpe=%d", &nfpe);
	pid = bts_sideband_pid(OUT "/sideband.txt");
	REQUIRE(pid != -1, "no pid= in the sideband");
	rec = bts_slurp(OUT "/cpu0.bts", &blen);
	REQUIRE(rec, "no cpu0.bts: %.300s", log);
	nrec = blen / BTS_REC;
	exp = calloc(tlen / 16 + 1, sizeof(*exp));
	nexp = bts_expect(truth, pid, &prog, cs, &kret, restorer + 5, exp,
			  tlen / 16 + 1, &ninsn, &nkentry);
	printf("PTT-INFO truth %zu instructions of pid %ld, %zu kernel entries; ",
	       ninsn, pid, nkentry);
	printf("%zu records due; cpu0.bts %zu records; irq_works queued %lld\n",
	       nexp, nrec, bts_exact_stat("trap_irqs") - trap_irqs);
	CHECK(ninsn > 100, "only %zu instructions in the truth", ninsn);
	got = bts_compare("exc", &prog, &kret, rec, nrec, exp, nexp);
	for (i = 0; kinds[i].key; i++) {
		unsigned long long ip = addr(log, kinds[i].key);

		nvec = entries(truth, pid, ip, kinds[i].vec);
		nirq = entries(truth, pid, ip, IRQ_WORK_VECTOR);
		printf("PTT-INFO %s at %llx: %d kernel entries of vector %d, %d of %#x\n",
		       kinds[i].key, ip, nvec, kinds[i].vec, nirq,
		       IRQ_WORK_VECTOR);
		/* #XM if QEMU raised it (SIGFPE twice a round). */
		if (!strcmp(kinds[i].key, "xm") && nfpe < 2 * ROUNDS)
			continue;
		CHECK(ip, "no %s= in the program's output", kinds[i].key);
		CHECK(nvec >= ROUNDS, "%s: %d kernel entries of vector %d at %llx (want %d)",
		      kinds[i].key, nvec, kinds[i].vec, ip, ROUNDS);
		CHECK(!nirq, "%s: %d interrupts of vector %#x (its kernel visit's) taken at %llx",
		      kinds[i].key, nirq, IRQ_WORK_VECTOR, ip);
	}
	CHECK(got, "no record compared");
	free(exp);
	free(rec);
	free(log);
	free(truth);
	cs_close(&cs);
	if (!ptt_failures)
		system("rm -rf " OUT " " OUT ".log");
	return ptt_done();
}
