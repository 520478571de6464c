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
 * BTS is refused under PTI: runs on the 6.1 and debug boots (no PTI),
 * checks the refusal on 6.12; icl only.  Exit 0 pass, 77 skip, 1 fail.
 */
#define _GNU_SOURCE

#include "bts_exact_common.h"

#define PROG "/ptt/work/exact_nolibc_exc"
#define OUT "/tmp/bts_exact_exc"
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
	size_t nexp, ninsn, nkentry, got, i;
	unsigned long long restorer;
	int nfpe = 0, nvec, nirq;
	char old[8] = "0", *s;
	struct bts_branch *exp;
	struct bts_prog prog;
	struct bts_kret kret;
	long long trap_irqs;
	struct bts_run r;
	csh cs;

	bts_load_prog(&prog, PROG);
	bts_kret_syms(&kret);
	REQUIRE(cs_open(CS_ARCH_X86, CS_MODE_64, &cs) == CS_ERR_OK, "capstone");

	bts_exact_on(old, sizeof(old));
	trap_irqs = bts_exact_stat("trap_irqs");
	bts_exact_record(&r, pt, PROG, OUT, "", 1);
	bts_exact_off(old);
	restorer = addr(r.log, "restorer");
	REQUIRE(strstr(r.log, "exact_nolibc_exc ") && restorer,
		"the program did not run: %.300s", r.log);
	s = strstr(r.log, "nfpe=");
	if (s)
		sscanf(s, "nfpe=%d", &nfpe);
	exp = calloc(r.tlen / 16 + 1, sizeof(*exp));
	REQUIRE(exp, "memory");
	nexp = bts_expect(r.truth, r.pid, &prog, cs, &kret, restorer + 5, exp,
			  r.tlen / 16 + 1, &ninsn, &nkentry);
	printf("PTT-INFO truth %zu instructions of pid %ld, %zu kernel entries; ",
	       ninsn, r.pid, nkentry);
	printf("%zu records due; cpu0.bts %zu records; irq_works queued %lld\n",
	       nexp, r.nrec, bts_exact_stat("trap_irqs") - trap_irqs);
	CHECK(ninsn > 100, "only %zu instructions in the truth", ninsn);
	got = bts_compare("exc", &prog, &kret, r.rec, r.nrec, exp, nexp);
	for (i = 0; kinds[i].key; i++) {
		unsigned long long ip = addr(r.log, kinds[i].key);

		nvec = entries(r.truth, r.pid, ip, kinds[i].vec);
		nirq = entries(r.truth, r.pid, ip, IRQ_WORK_VECTOR);
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
	bts_run_free(&r);
	cs_close(&cs);
	if (!ptt_failures)
		system("rm -rf " OUT " " OUT ".log");
	return ptt_done();
}
