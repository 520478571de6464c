// SPDX-License-Identifier: GPL-2.0
/*
 * bts_exact_fault (issue 15): what BTS stores for an exception in user
 * code, user branches only (-u: BTS_OFF_OS), with the exact model
 * (model/bts_exact.c).  /ptt/work/bts_fault_prog (no libc) executes a
 * ud2 whose SIGILL handler steps over it.  The SDM stores a BTM for
 * taken branches, interrupts and exceptions and skips those with CPL 0
 * under BTS_OFF_OS, so cpu0.bts must hold, consecutively:
 *
 *   ud2 -> asm_exc_invalid_op             the exception, from CPL 3
 *   handler's ret -> restorer             (no record into the handler:
 *                                          the kernel's return is CPL 0)
 *   restorer's syscall -> entry_SYSCALL_64  rt_sigreturn
 *   the ret after ud2 -> its caller       (again no record of the return)
 *
 * and no record from a kernel address or into the handler.
 * icl only.  Exit 0 pass, 77 skip, 1 fail.
 */
#define _GNU_SOURCE
#include <stdlib.h>

#include "bts_exact_common.h"

#define PROG "/ptt/work/bts_fault_prog"
#define OUT "/tmp/bts_exact_fault"

int main(void)
{
	const char *pt = bts_exact_check("bts_exact_fault", PROG);
	unsigned long long ud2, handler, restorer;
	__u64 exc, entry;
	char old[8] = "0", cmd[512], *log, *s;
	long long before;
	struct bts_rec *r;
	size_t len, n, i, at = 0, found = 0;

	exc = bts_kallsym("asm_exc_invalid_op");
	entry = bts_kallsym("entry_SYSCALL_64");
	REQUIRE(exc && entry, "no asm_exc_invalid_op or entry_SYSCALL_64 in /proc/kallsyms");

	bts_exact_on(old, sizeof(old));
	before = bts_model("bts_exact_exceptions");
	snprintf(cmd, sizeof(cmd),
		 "rm -rf " OUT "; %s record --bts -C 0 -u -o " OUT " -- " PROG
		 " >" OUT ".log 2>&1", pt);
	CHECK(system(cmd) == 0, "record failed");
	bts_exact_off(old);
	log = bts_slurp(OUT ".log", &len);
	REQUIRE(log, "no log");
	s = strstr(log, "ud2=");
	REQUIRE(s && strstr(log, "bts_fault_prog done") &&
		sscanf(s, "ud2=%llx handler=%llx restorer=%llx", &ud2, &handler,
		       &restorer) == 3, "the program did not run: %.300s", log);
	r = bts_slurp(OUT "/cpu0.bts", &len);
	REQUIRE(r, "no cpu0.bts: %.300s", log);
	n = len / BTS_REC;
	/* The driver's switch records (record asks for them) name tasks. */
	for (i = at = 0; i < n; i++)
		if (!(r[i].flags & PT_BTS_SWITCH) ||
		    r[i].from != PT_BTS_SWITCH_FROM)
			r[at++] = r[i];
	n = at;
	at = 0;
	for (i = 0; i < n; i++) {
		CHECK(!bts_kernel_addr(r[i].from),
		      "record %zu from the kernel (%llx -> %llx) with -u", i,
		      (unsigned long long)r[i].from, (unsigned long long)r[i].to);
		CHECK(r[i].to != handler,
		      "record %zu into the handler (%llx -> %llx): the return to user mode is CPL 0",
		      i, (unsigned long long)r[i].from, (unsigned long long)r[i].to);
		if (r[i].from == ud2) {
			found++;
			at = i;
		}
	}
	printf("PTT-INFO %zu records; ud2 %llx handler %llx restorer %llx; ",
	       n, ud2, handler, restorer);
	printf("asm_exc_invalid_op %llx\n", (unsigned long long)exc);
	REQUIRE(found == 1, "%zu records from the ud2 at %llx, expected 1 (to asm_exc_invalid_op)",
		found, ud2);
	CHECK(r[at].to == exc, "the ud2's record goes to %llx, not asm_exc_invalid_op %llx",
	      (unsigned long long)r[at].to, (unsigned long long)exc);
	REQUIRE(at + 3 < n, "only %zu records after the ud2's", n - at - 1);
	CHECK(r[at + 1].from >= handler && r[at + 1].from < handler + 32 &&
	      r[at + 1].to == restorer,
	      "after the exception: %llx -> %llx, not the handler's ret to the restorer",
	      (unsigned long long)r[at + 1].from, (unsigned long long)r[at + 1].to);
	CHECK(r[at + 2].from == restorer + 5 && r[at + 2].to == entry,
	      "then %llx -> %llx, not rt_sigreturn's syscall to entry_SYSCALL_64",
	      (unsigned long long)r[at + 2].from, (unsigned long long)r[at + 2].to);
	CHECK(r[at + 3].from == ud2 + 2,
	      "then %llx -> %llx, not the ret after the ud2 (no record of the return to user mode)",
	      (unsigned long long)r[at + 3].from, (unsigned long long)r[at + 3].to);
	CHECK(bts_model("bts_exact_exceptions") > before,
	      "the model counted no exception record");
	for (i = at > 2 ? at - 2 : 0; ptt_failures && i < n && i < at + 6; i++)
		printf("PTT-INFO record %zu: %llx -> %llx\n", i,
		       (unsigned long long)r[i].from, (unsigned long long)r[i].to);
	free(r);
	free(log);
	if (!ptt_failures)
		system("rm -rf " OUT " " OUT ".log");
	return ptt_done();
}
