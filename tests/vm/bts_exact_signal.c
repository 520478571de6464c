// SPDX-License-Identifier: GPL-2.0
/*
 * bts_exact_signal (issue 15): what BTS stores where user code and the
 * kernel meet, user branches only (-u: BTS_OFF_OS), with the exact model
 * (model/bts_exact.c).  /ptt/work/bts_signal_prog (no libc) makes system
 * calls, raises SIGILL with a ud2 (the handler steps over it), kill()s
 * itself with SIGUSR1 (delivered at that call's return), returns from
 * both handlers by rt_sigreturn, stores to pages not yet mapped (page
 * faults) and loops long enough for a timer interrupt or two.  The
 * rule (Documentation/model.rst, "BTS in exact mode"): the SDM's
 * DEBUGCTL BTS_OFF_OS skips a BTM "if CPL is 0" (Table 18-9: "store BTMs
 * with CPL > 0"), the CPL the BTM is made at, after the transfer: a
 * SYSCALL, interrupt or exception from user mode lands at CPL 0 and is
 * not stored; a SYSRET or IRET to user mode lands at CPL 3 and is
 * stored, its from the kernel's SYSRET or IRET (GDB's BTS reader, by
 * Intel: "the hardware may report branches from kernel into user space.
 * Branches from user into kernel space will be suppressed").  Those
 * returns are part of the exact list, not an allowance: cpu0.bts must
 * hold, in order and nothing else of the
 * program: its taken branches, no record of a SYSCALL, interrupt or
 * exception, and a record of each return to user mode, from the
 * kernel's SYSRET (entry_SYSRETQ_end - 3) after a system call that
 * returns to its next instruction, else from its IRET
 * (native_irq_return_iret): into each handler, after each rt_sigreturn,
 * and back to the instruction an interrupt or page fault (the truth's
 * "# kentry" lines) came at.  Fails on a model that stores the SYSCALL
 * and exception records (the earlier reading of BTS_OFF_OS) or no
 * return, or one that stores an IRET back to the ud2 after the ptrace
 * stop its SIGILL makes (record ptraces its command; the task does not
 * leave the kernel between the #UD and the handler).
 *
 * An interrupt in the #UD's kernel visit (do_error_trap() enables IRQs
 * before it raises the SIGILL) is the kernel's, not the program's: no
 * record, and no IRET back to the ud2, which never runs again.  A
 * timer's comes there by chance only, so the model's exact/trap_irq
 * knob queues an irq_work at each trap of the program (DIE_TRAP): the
 * truth must have the #UD's kernel entry (vector 6) at the ud2 and no
 * entry of that irq_work's interrupt (IRQ_WORK_VECTOR) there.  Fails on
 * a model that takes any interrupt after its last step at the pending
 * IP for one of user code (no probe tells it the task is in the kernel).
 * BTS is refused under PTI: runs on the 6.1 and debug boots (no PTI),
 * checks the refusal on 6.12; icl only.  Exit 0 pass, 77 skip, 1 fail.
 */
#define _GNU_SOURCE

#include "bts_exact_common.h"

#define PROG "/ptt/work/bts_signal_prog"
#define OUT "/tmp/bts_exact_signal"
/* arch/x86/include/asm/irq_vectors.h; the #UD's is X86_TRAP_UD. */
#define IRQ_WORK_VECTOR	0xf6
#define TRAP_UD		6

/*
 * The truth's kernel entries of @pid: the #UD's IP (0: none), and how
 * many entries of vector @vec lie there.
 */
static unsigned long long ud_entries(const char *truth, long pid, int vec,
				     int *nvec)
{
	unsigned long long tsc, ip, ud = 0;
	long cpu, lpid, tid;
	const char *l;
	int v;

	for (l = truth; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "")
		if (sscanf(l, "# kentry %llu %ld %ld %ld %llx %d", &tsc, &cpu,
			   &lpid, &tid, &ip, &v) == 6 && tid == pid &&
		    v == TRAP_UD)
			ud = ip;
	*nvec = 0;
	for (l = truth; ud && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "")
		if (sscanf(l, "# kentry %llu %ld %ld %ld %llx %d", &tsc, &cpu,
			   &lpid, &tid, &ip, &v) == 6 && tid == pid &&
		    ip == ud && v == vec) {
			printf("PTT-INFO truth: %.*s\n",
			       (int)(strchr(l, '\n') ? strchr(l, '\n') - l : 80), l);
			(*nvec)++;
		}
	return ud;
}

/* How many of @exp go from @from (to @to, if not 0). */
static size_t count(const struct bts_branch *exp, size_t n, __u64 from,
		    __u64 to)
{
	size_t i, c = 0;

	for (i = 0; i < n; i++)
		c += exp[i].from == from && (!to || exp[i].to == to);
	return c;
}

int main(void)
{
	const char *pt = bts_exact_check("bts_exact_signal", PROG);
	size_t nexp, ninsn, nkentry, got;
	unsigned long long restorer, ud;
	long long traps, trap_irqs;
	int nirq;
	char old[8] = "0", *s;
	struct bts_branch *exp;
	struct bts_prog prog;
	struct bts_kret kret;
	long long before;
	struct bts_run r;
	csh cs;

	bts_load_prog(&prog, PROG);
	bts_kret_syms(&kret);
	REQUIRE(cs_open(CS_ARCH_X86, CS_MODE_64, &cs) == CS_ERR_OK, "capstone");

	bts_exact_on(old, sizeof(old));
	before = bts_model("bts_exact_returns");
	traps = bts_exact_stat("traps");
	trap_irqs = bts_exact_stat("trap_irqs");
	bts_exact_record(&r, pt, PROG, OUT, "", 1);
	bts_exact_off(old);
	s = strstr(r.log, "restorer=");
	REQUIRE(s && strstr(r.log, "bts_signal_prog done") &&
		sscanf(s, "restorer=%llx", &restorer) == 1,
		"the program did not run: %.300s", r.log);
	exp = calloc(r.tlen / 16 + 1, sizeof(*exp));
	REQUIRE(exp, "memory");
	nexp = bts_expect(r.truth, r.pid, &prog, cs, &kret, restorer + 5, exp,
			  r.tlen / 16 + 1, &ninsn, &nkentry);
	printf("PTT-INFO truth %zu instructions of pid %ld, %zu kernel entries; %zu records due, ",
	       ninsn, r.pid, nkentry, nexp);
	printf("%zu SYSRET, %zu IRET; cpu0.bts %zu records\n",
	       count(exp, nexp, kret.sysret, 0), count(exp, nexp, kret.iret, 0),
	       r.nrec);
	/* The program's transfers are all there to be compared. */
	CHECK(ninsn > 100, "only %zu instructions in the truth", ninsn);
	CHECK(count(exp, nexp, kret.sysret, 0) >= 4, "fewer than 4 returns by SYSRET due");
	CHECK(count(exp, nexp, kret.iret, 0) >= 4 && nkentry >= 2,
	      "fewer than 4 returns by IRET (2 handlers, 2 rt_sigreturn) or 2 kernel entries due");
	got = bts_compare("signal", &prog, &kret, r.rec, r.nrec, exp, nexp);
	/* The interrupt in the #UD's kernel visit is none of the program's. */
	ud = ud_entries(r.truth, r.pid, IRQ_WORK_VECTOR, &nirq);
	printf("PTT-INFO traps %lld, irq_works queued at them %lld; ud2 at %llx\n",
	       bts_exact_stat("traps") - traps, bts_exact_stat("trap_irqs") - trap_irqs,
	       ud);
	CHECK(ud, "no kernel entry of vector %d (#UD) in the truth", TRAP_UD);
	CHECK(bts_exact_stat("trap_irqs") > trap_irqs,
	      "no irq_work queued at the ud2's trap (exact/trap_irq)");
	CHECK(!nirq, "%d interrupts of vector %#x (the irq_work's) at the ud2",
	      nirq, IRQ_WORK_VECTOR);
	if (ptt_failures) {
		/* The truth's events of the program, to tell why. */
		char *l = r.truth, *e;
		int shown = 0;

		for (; l && *l && shown < 60; l = e ? e + 1 : NULL) {
			e = strchr(l, '\n');
			if (*l == '#' && strncmp(l, "# psb", 5) && shown++ >= 0)
				printf("PTT-INFO truth: %.*s\n",
				       (int)(e ? e - l : (long)strlen(l)), l);
		}
	}
	CHECK(bts_model("bts_exact_returns") > before && got,
	      "the model counted no return to user mode");
	free(exp);
	bts_run_free(&r);
	cs_close(&cs);
	if (!ptt_failures)
		system("rm -rf " OUT " " OUT ".log");
	return ptt_done();
}
