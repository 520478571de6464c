// SPDX-License-Identifier: GPL-2.0
/*
 * ptt-timeout: 60
 * bts_exec (issue 15): 'pt-trace record --bts -C 0 -u' of a program that
 * execs another in the same process, under the exact model:
 * /ptt/work/bts_exec_prog (tests/vm/work/bts_exec_prog.c) runs code of
 * its own on cpu0 and execs /ptt/work/exact_nolibc_exec, linked at the
 * same addresses with other code.  Required: cpu0.bts has the exec's
 * return to user mode (a record from the kernel to the new program's
 * entry); every record of the program's text before it is a branch
 * instruction of bts_exec_prog and every one after it one of
 * exact_nolibc_exec (capstone, from the files), at least 20 each; and
 * 'pt-trace decode' names the run before the exec by its comm
 * ("[thread bts_exec_prog PID/PID, cpu 0]") with the first program's
 * symbols, and after it ("[thread exact_nolibc_ex ...]") with the
 * second's, never the other's.  BTS needs a boot without PTI (6.1,
 * debug); under PTI (6.12) it checks record's refusal message instead
 * (bts_exact_pti()).  icl only.  Exit 0 pass, 77 skip, 1 fail.
 */
#define _GNU_SOURCE

#include "bts_exact_common.h"

#define PROG "/ptt/work/bts_exec_prog"
#define NEXT "/ptt/work/exact_nolibc_exec"
#define OUT "/tmp/bts_exec"

/* Is the instruction at @ip in @p's file a branch (capstone groups)? */
static int is_branch(const struct bts_prog *p, csh cs, __u64 ip)
{
	size_t off = ip - p->lo + p->off;
	cs_insn *in;
	int ret = 0;

	if (!bts_in_prog(p, ip) || off >= p->len ||
	    cs_disasm(cs, p->img + off, p->len - off, ip, 1, &in) != 1)
		return 0;
	ret = cs_insn_group(cs, in, CS_GRP_JUMP) ||
	      cs_insn_group(cs, in, CS_GRP_CALL) ||
	      cs_insn_group(cs, in, CS_GRP_RET) ||
	      cs_insn_group(cs, in, CS_GRP_INT) ||
	      !strcmp(in->mnemonic, "syscall");
	cs_free(in, 1);
	return ret;
}

/*
 * decode's lines, by run: those after a thread line of @pid named
 * @comm must name @dso for the program's addresses, never @other.
 * Returns how many lines of that run name @dso; *@at: the run's first
 * line number (0: none).
 */
static size_t decoded_run(const char *dec, long pid, const char *comm,
			  const char *dso, const char *other, size_t *at)
{
	char want[96], line[512];
	size_t n = 0, ln = 0, wrong = 0;
	FILE *f = fopen(dec, "r");
	int in = 0;

	*at = 0;
	REQUIRE(f, "no decode output");
	snprintf(want, sizeof(want), "[thread %s %ld/%ld, cpu 0]", comm, pid,
		 pid);
	while (fgets(line, sizeof(line), f)) {
		ln++;
		if (line[0] == '[' && !strncmp(line, "[thread ", 8)) {
			in = !strncmp(line, want, strlen(want));
			if (in && !*at)
				*at = ln;
			continue;
		}
		if (!in)
			continue;
		if (strstr(line, dso))
			n++;
		if (strstr(line, other) && wrong++ < 3)
			printf("PTT-INFO %s run, line %zu: %s", comm, ln, line);
	}
	fclose(f);
	CHECK(!wrong, "decode named %zu branches of the %s run in %s", wrong,
	      comm, other);
	return n;
}

int main(void)
{
	const char *pt = bts_exact_check("bts_exec", PROG);
	size_t blen, nrec, i, x, npre = 0, npost = 0, bad = 0, at1, at2, d1, d2;
	struct bts_prog a, b;
	struct bts_kret kret;
	struct bts_rec *rec;
	char old[8] = "0", cmd[512], *log;
	__u64 entry;
	long pid;
	csh cs;

	if (access(NEXT, X_OK))
		SKIP("no " NEXT);
	bts_load_prog(&a, PROG);
	bts_load_prog(&b, NEXT);
	entry = ((const struct elf64_hdr *)b.img)->e_entry;
	bts_kret_syms(&kret);
	REQUIRE(cs_open(CS_ARCH_X86, CS_MODE_64, &cs) == CS_ERR_OK, "capstone");
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);

	/* The recorder elsewhere: only the program is stepped on cpu0. */
	bts_exact_on(old, sizeof(old));
	snprintf(cmd, sizeof(cmd),
		 "rm -rf " OUT "; %s record --bts -C 0 -u -o " OUT " -- " PROG
		 " >" OUT ".log 2>&1", pt);
	CHECK(system(cmd) == 0, "record failed");
	bts_exact_off(old);
	log = bts_slurp(OUT ".log", &blen);
	REQUIRE(log, "no log");
	CHECK(strstr(log, "bts_exec_prog exec") &&
	      strstr(log, "exact_nolibc_exec done"),
	      "the programs did not run: %s", log);
	pid = bts_sideband_pid(OUT "/sideband.txt");
	REQUIRE(pid != -1, "no pid= in the sideband");
	rec = bts_slurp(OUT "/cpu0.bts", &blen);
	REQUIRE(rec, "no cpu0.bts: %s", log);
	nrec = blen / BTS_REC;

	/*
	 * The exec's return to user mode: kernel -> the new entry, and not
	 * an interrupt's return to where the last branch went (the first
	 * program has code at the second's entry too).
	 */
	for (x = 0; x < nrec; x++)
		if (bts_kernel_addr(rec[x].from) && rec[x].to == entry &&
		    (!x || rec[x - 1].to != entry))
			break;
	REQUIRE(x < nrec, "no record of the return to %llx (exec) in %zu records",
		(unsigned long long)entry, nrec);
	for (i = 0; i < nrec; i++) {
		const struct bts_prog *p = i < x ? &a : &b;

		if (i == x || !bts_in_prog(p, rec[i].from))
			continue;
		if (i < x)
			npre++;
		else
			npost++;
		if (!is_branch(p, cs, rec[i].from) && bad++ < 5)
			printf("PTT-INFO record %zu (%s exec): %llx -> %llx: no branch of %s\n",
			       i, i < x ? "before" : "after",
			       (unsigned long long)rec[i].from,
			       (unsigned long long)rec[i].to,
			       i < x ? PROG : NEXT);
	}
	CHECK(!bad, "%zu records are no branch of the program that ran", bad);
	CHECK(npre >= 20 && npost >= 20,
	      "%zu records of bts_exec_prog, %zu of exact_nolibc_exec: want 20 each",
	      npre, npost);

	snprintf(cmd, sizeof(cmd), "%s decode " OUT "/cpu0.bts >" OUT ".dec 2>&1",
		 pt);
	CHECK(system(cmd) == 0, "decode of cpu0.bts failed");
	d1 = decoded_run(OUT ".dec", pid, "bts_exec_prog", "(bts_exec_prog)",
			 "(exact_nolibc_exec)", &at1);
	d2 = decoded_run(OUT ".dec", pid, "exact_nolibc_ex",
			 "(exact_nolibc_exec)", "(bts_exec_prog)", &at2);
	printf("PTT-INFO pid %ld: %zu records, exec at %zu; %zu branches before, %zu after; ",
	       pid, nrec, x, npre, npost);
	printf("decode: %zu lines of bts_exec_prog from line %zu, %zu exact_nolibc_exec from %zu\n",
	       d1, at1, d2, at2);
	CHECK(at1 && d1 >= 20, "decode: no bts_exec_prog run of pid %ld", pid);
	CHECK(at2 && d2 >= 20, "decode: no exact_nolibc_ex run of pid %ld", pid);
	CHECK(at1 < at2, "decode: the exec's run (line %zu) before the first (line %zu)",
	      at2, at1);
	free(rec);
	free(log);
	cs_close(&cs);
	/* The recording and its decode beside the test's log to look at. */
	if (ptt_failures && getenv("PTT_OUT")) {
		snprintf(cmd, sizeof(cmd), "cp -r " OUT " " OUT ".log " OUT ".dec %s/",
			 getenv("PTT_OUT"));
		CHECK(system(cmd) == 0, "copy to PTT_OUT");
	}
	if (!ptt_failures)
		CHECK(system("rm -rf " OUT " " OUT ".log " OUT ".dec") == 0,
		      "cleanup");
	return ptt_done();
}
