// SPDX-License-Identifier: GPL-2.0
/*
 * bts_exact_irq (issue 15): a timer interrupt right after a return to
 * user mode that the exact model did not step (a system call's), before
 * the task's next instruction, under BTS with user branches only (-u:
 * BTS_OFF_OS; model/bts_exact.c, Documentation/model.rst "BTS in exact
 * mode").  Silicon stores the return (SYSRET, CPL 3), not the interrupt
 * (CPL 0), then the interrupt's IRET back to the same instruction: two
 * records to one IP.  /ptt/work/bts_irq_prog makes 20000 getppid()
 * calls on cpu0; the model's exact/stats ret_irqs counts the interrupts
 * whose own frame (get_irq_regs(): the local timer's, devices') is the
 * stepped task's user frame at its pending instruction before its first
 * step after such a return.  Each must be a kernel entry of the truth
 * ("# kentry" right after the task's "# resume" at that IP), and
 * cpu0.bts must hold exactly the records silicon stores for the truth
 * (bts_expect()), so the SYSRET and the IRET to each such IP.  Fails on
 * a model that stores nothing for them (before session 22: only PT's
 * FUP + TIP.PGD were sent there): ret_irqs > 0, no entry in the truth.
 * How many come is chance (the timer's tick landing in the system
 * call's exit with IRQs off): a run with none checks only the records.
 * BTS is refused under PTI: runs on the 6.1 and debug boots (no PTI),
 * checks the refusal on 6.12; icl only.  Exit 0 pass, 77 skip, 1 fail.
 */
#define _GNU_SOURCE

#include "bts_exact_common.h"

#define PROG "/ptt/work/bts_irq_prog"
#define OUT "/tmp/bts_exact_irq"
#define NSYS 20000	/* bts_irq_prog's system calls */
/* arch/x86/include/asm/irq_vectors.h */
#define LOCAL_TIMER_VECTOR	0xec

/*
 * The truth's interrupt entries (the local timer's, a device's: vector
 * -1) right after a resume of the task at its IP.
 */
static size_t ret_entries(const char *truth)
{
	unsigned long long tsc, ip, rip = 0;
	long cpu, lpid, tid, rtid = -1;
	char line[128];
	const char *l;
	size_t n = 0;
	int v;

	for (l = truth; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
		bts_line(line, sizeof(line), l);
		if (sscanf(line, "# kentry %llu %ld %ld %ld %llx %d", &tsc, &cpu,
			   &lpid, &tid, &ip, &v) == 6 && tid == rtid &&
		    ip == rip && (v == LOCAL_TIMER_VECTOR || v == -1)) {
			if (n++ < 3)
				printf("PTT-INFO truth: %s\n", line);
		}
		rtid = -1;
		if (sscanf(line, "# resume %llu %ld %ld %ld %llx", &tsc, &cpu,
			   &lpid, &tid, &ip) == 5) {
			rtid = tid;
			rip = ip;
		}
	}
	return n;
}

int main(void)
{
	const char *pt = bts_exact_check("bts_exact_irq", PROG);
	size_t nexp, ninsn, nkentry, nret;
	char old[8] = "0";
	struct bts_branch *exp;
	struct bts_prog prog;
	struct bts_kret kret;
	struct bts_run r;
	long long irqs;
	csh cs;

	bts_load_prog(&prog, PROG);
	bts_kret_syms(&kret);
	REQUIRE(cs_open(CS_ARCH_X86, CS_MODE_64, &cs) == CS_ERR_OK, "capstone");

	bts_exact_on(old, sizeof(old));
	irqs = bts_exact_stat("ret_irqs");
	REQUIRE(irqs >= 0, "no ret_irqs in " BTS_EXACT_STATS);
	bts_exact_record(&r, pt, PROG, OUT, "-b 4M", 0);
	irqs = bts_exact_stat("ret_irqs") - irqs;
	bts_exact_off(old);
	CHECK(strstr(r.log, "bts_irq_prog done"), "the program did not run: %s", r.log);
	exp = calloc(r.tlen / 16 + 1, sizeof(*exp));
	REQUIRE(exp, "memory");
	nexp = bts_expect(r.truth, r.pid, &prog, cs, &kret, 0, exp, r.tlen / 16 + 1,
			  &ninsn, &nkentry);
	bts_compare("flight", &prog, &kret, r.rec, r.nrec, exp, nexp);
	nret = ret_entries(r.truth);
	printf("PTT-INFO truth %zu instructions of pid %ld, %zu kernel entries, ",
	       ninsn, r.pid, nkentry);
	printf("%zu right after a return; ret_irqs %lld; %zu records due, cpu0.bts %zu\n",
	       nret, irqs, nexp, r.nrec);
	/* 7 instructions a call (bts_irq_prog's loop). */
	CHECK(ninsn > 7 * NSYS, "only %zu instructions in the truth", ninsn);
	/*
	 * Each entry right after a resume is one of ret_irqs; ret_irqs may
	 * have more (a second interrupt before the instruction, or one after
	 * a page fault's return), whose entries follow another in the truth.
	 */
	CHECK(nret <= (size_t)irqs && (!irqs || nret),
	      "%lld interrupts right after a return to user code (ret_irqs), %zu kernel entries right after a resume in the truth",
	      irqs, nret);
	CHECK(bts_model("bts_exact_busy") == 0, "stepped branches lost: bts_exact_busy %lld",
	      bts_model("bts_exact_busy"));
	cs_close(&cs);
	if (!ptt_failures)
		CHECK(system("rm -rf " OUT " " OUT ".log") == 0, "cleanup");
	free(exp);
	bts_run_free(&r);
	return ptt_done();
}
