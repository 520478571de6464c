/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What bts_exact.c, bts_exact_exc.c, bts_exact_signal.c and
 * bts_exact_irq.c share: each records a program with 'pt-trace record
 * --bts -C 0 -u' under the exact model (icl only; under PTI the refusal
 * alone), so they need the same checks, the model_exact switch and its
 * counters, the recorder off CPU 0, the recording itself
 * (bts_exact_record()), the same file and kallsyms readers, and the
 * records silicon stores for the model's ground truth (bts_expect()).
 */
#ifndef PTT_BTS_EXACT_COMMON_H
#define PTT_BTS_EXACT_COMMON_H

#include <capstone/capstone.h>
#include <linux/elf.h>
#include <sys/wait.h>
#include <stdlib.h>

#include "bts_common.h"

#define BTS_EXACT_PARAM "/sys/module/pt_trace_model/parameters/model_exact"
#define BTS_EXACT_STATS "/sys/kernel/debug/pt_trace/model/exact/stats"

/* The whole of @path, NUL-terminated, its length in *@len; NULL. */
static inline void *bts_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	size_t cap = 1 << 16, n = 0, r;
	char *buf;

	if (!f)
		return NULL;
	buf = malloc(cap + 1);
	while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap)
			buf = realloc(buf, (cap *= 2) + 1);
	}
	fclose(f);
	if (buf)
		buf[n] = 0;
	*len = n;
	return buf;
}

/* The traced process in a recording's sideband.txt (pid=), -1: none. */
static inline long bts_sideband_pid(const char *path)
{
	size_t len;
	char *sb = bts_slurp(path, &len), *s;
	long pid = -1;

	s = sb && !strncmp(sb, "pid=", 4) ? sb - 1 :
	    sb ? strstr(sb, "\npid=") : NULL;
	if (s)
		pid = strtol(s + 5, NULL, 10);
	free(sb);
	return pid;
}

/* A kernel symbol's address from /proc/kallsyms, 0 when absent. */
static inline __u64 bts_kallsym(const char *name)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[256], sym[200];
	unsigned long long a;
	char t;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %199s", &a, &t, sym) == 3 &&
		    !strcmp(sym, name)) {
			fclose(f);
			return a;
		}
	if (f)
		fclose(f);
	return 0;
}

/*
 * Under PTI (the 6.12 boot) BTS is refused: the test's record must fail
 * with exit 3 and say why and what to do, and that is all @name can
 * check there; it ends here.
 */
static inline void bts_exact_pti(const char *name, const char *pt,
				 const char *prog)
{
	char cmd[512];
	int rc;

	snprintf(cmd, sizeof(cmd),
		 "rm -rf /tmp/%s.pti; %s record --bts -C 0 -u -o /tmp/%s.pti -- %s >/tmp/%s.pti.log 2>&1",
		 name, pt, name, prog, name);
	rc = system(cmd);
	CHECK(rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 3,
	      "user BTS under PTI: record's status %#x, want exit 3", rc);
	snprintf(cmd, sizeof(cmd),
		 "grep -q 'page table isolation is on.*pti=off' /tmp/%s.pti.log || cat /tmp/%s.pti.log",
		 name, name);
	CHECK(system(cmd) == 0,
	      "BTS under PTI: no message naming PTI and pti=off");
	snprintf(cmd, sizeof(cmd), "rm -rf /tmp/%s.pti /tmp/%s.pti.log",
		 name, name);
	CHECK(system(cmd) == 0, "cleanup");
	printf("PTT-INFO PTI: BTS refused; %s needs a boot without PTI (6.1, debug)\n",
	       name);
	exit(ptt_done());
}

/*
 * Skip where test @name does not apply (not icl, no BTS, no pt-trace or
 * @prog); under PTI check the refusal alone (bts_exact_pti()); the
 * pt-trace to run.
 */
static inline const char *bts_exact_check(const char *name, const char *prog)
{
	const char *prof = getenv("PTT_PROFILE") ? getenv("PTT_PROFILE") : "icl";
	const char *pt = getenv("PT_TRACE");

	if (strcmp(prof, "icl"))
		SKIP("%s runs on icl", name);
	bts_require_model();
	if (!pt || access(pt, X_OK))
		pt = "/ptt/bin/pt-trace";
	if (access(pt, X_OK) || access(prog, X_OK))
		SKIP("pt-trace or %s missing", prog);
	if (bts_pti())
		bts_exact_pti(name, pt, prog);
	return pt;
}

/* A counter of exact/stats, -1 if absent. */
static inline long long bts_exact_stat(const char *name)
{
	FILE *f = fopen(BTS_EXACT_STATS, "r");
	char line[128], n[64];
	long long v, ret = -1;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %lld", n, &v) == 2 && !strcmp(n, name))
			ret = v;
	if (f)
		fclose(f);
	return ret;
}

/*
 * model_exact=1 (its old value in @old), and this process off CPU 0,
 * where only the program is stepped.
 */
static inline void bts_exact_on(char *old, size_t size)
{
	FILE *f;

	ptt_read_str(BTS_EXACT_PARAM, old, size);
	f = fopen(BTS_EXACT_PARAM, "w");
	REQUIRE(f && fputs("1", f) >= 0 && !fclose(f), "cannot set model_exact=1");
	ptt_pin_cpu(sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 1 : 0);
}

/* model_exact back to @old. */
static inline void bts_exact_off(const char *old)
{
	FILE *f = fopen(BTS_EXACT_PARAM, "w");

	if (f) {
		fputs(old, f);
		fclose(f);
	}
}

#define BTS_EXACT_TRUTH "/sys/kernel/debug/pt_trace/model/exact/truth_cpu0"
#define BTS_EXACT_TRAP_IRQ "/sys/kernel/debug/pt_trace/model/exact/trap_irq"

/* One recording of a program under the exact model (bts_exact_record()). */
struct bts_run {
	char *truth;		/* the model's truth of CPU 0 */
	size_t tlen;
	char *log;		/* record's and the program's output */
	long pid;		/* the program's, from the sideband */
	struct bts_rec *rec;	/* cpu0.bts */
	size_t nrec;
	double secs;		/* record's run time */
};

/*
 * With model_exact on (bts_exact_on()): 'pt-trace record --bts -C 0 -u'
 * of @prog into @out with record's further options @opts, the model's
 * exact/trap_irq set around it when @trap_irq (an irq_work at each trap,
 * exact_step.c); the truth the model wrote meanwhile, record's output,
 * the program's pid and its records into @r.  The callers read the
 * model's counters around it and check the output for their program.
 */
static inline void bts_exact_record(struct bts_run *r, const char *pt,
				    const char *prog, const char *out,
				    const char *opts, int trap_irq)
{
	struct timespec t0, t1;
	char cmd[512], path[256];
	size_t blen;

	memset(r, 0, sizeof(*r));
	free(bts_slurp(BTS_EXACT_TRUTH, &r->tlen));	/* what earlier runs left */
	if (trap_irq)
		REQUIRE(!ptt_write_str(BTS_EXACT_TRAP_IRQ, "1"),
			"cannot set " BTS_EXACT_TRAP_IRQ);
	snprintf(cmd, sizeof(cmd),
		 "rm -rf %s; %s record --bts %s -C 0 -u -o %s -- %s >%s.log 2>&1",
		 out, pt, opts, out, prog, out);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK(system(cmd) == 0, "record failed: %s", cmd);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	r->secs = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	r->truth = bts_slurp(BTS_EXACT_TRUTH, &r->tlen);
	if (trap_irq)
		ptt_write_str(BTS_EXACT_TRAP_IRQ, "0");
	snprintf(path, sizeof(path), "%s.log", out);
	r->log = bts_slurp(path, &blen);
	REQUIRE(r->log && r->truth, "no %s or no truth (" BTS_EXACT_TRUTH ")", path);
	snprintf(path, sizeof(path), "%s/sideband.txt", out);
	r->pid = bts_sideband_pid(path);
	REQUIRE(r->pid != -1, "no pid= in %s: %.300s", path, r->log);
	snprintf(path, sizeof(path), "%s/cpu0.bts", out);
	r->rec = bts_slurp(path, &blen);
	REQUIRE(r->rec, "no %s: %.300s", path, r->log);
	CHECK(blen % BTS_REC == 0, "%s has %zu bytes", path, blen);
	r->nrec = blen / BTS_REC;
}

/*
 * A failed run's recording @out, its log, the truth it was compared
 * with and the model's counters, kept as @name in the test's PTT_OUT
 * directory (they come back with the results): the records on both
 * sides of a mismatch, and the truth's kernel entries around it, are
 * what tells a model's bug from the expectation's.
 */
static inline void bts_exact_keep(const struct bts_run *r, const char *out,
				  const char *name)
{
	const char *dir = getenv("PTT_OUT");
	char cmd[512], path[256];
	FILE *f;

	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/truth", out);
	f = fopen(path, "w");
	if (f) {
		fwrite(r->truth, 1, r->tlen, f);
		fclose(f);
	}
	snprintf(cmd, sizeof(cmd),
		 "cp " BTS_EXACT_STATS " %s/stats; rm -rf %s/%s; "
		 "cp -r %s %s/%s && cp %s.log %s/%s/",
		 out, dir, name, out, dir, name, out, dir, name);
	CHECK(system(cmd) == 0, "cannot keep %s in %s", out, dir);
}

/* What bts_exact_record() read. */
static inline void bts_run_free(struct bts_run *r)
{
	free(r->truth);
	free(r->log);
	free(r->rec);
}

struct bts_branch {
	__u64 from, to;
};

/* The traced program's file and its executable PT_LOAD. */
struct bts_prog {
	unsigned char *img;
	size_t len;
	__u64 lo, hi, off;
};

static inline void bts_load_prog(struct bts_prog *p, const char *path)
{
	const struct elf64_hdr *eh;
	int i;

	p->img = bts_slurp(path, &p->len);
	REQUIRE(p->img && p->len > sizeof(*eh), "cannot read %s", path);
	eh = (const struct elf64_hdr *)p->img;
	for (i = 0; i < eh->e_phnum; i++) {
		const struct elf64_phdr *ph = (const struct elf64_phdr *)
			(p->img + eh->e_phoff + (size_t)i * eh->e_phentsize);

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			p->lo = ph->p_vaddr;
			p->hi = ph->p_vaddr + ph->p_filesz;
			p->off = ph->p_offset;
		}
	}
	REQUIRE(p->hi > p->lo, "%s has no executable segment", path);
}

static inline int bts_in_prog(const struct bts_prog *p, __u64 ip)
{
	return ip >= p->lo && ip < p->hi;
}

/* The kernel's returns to user mode that BTS stores (kallsyms). */
struct bts_kret {
	__u64 sysret, iret;
};

static inline void bts_kret_syms(struct bts_kret *k)
{
	/* entry_SYSRETQ_end follows the 3-byte SYSRETQ (48 0f 07). */
	k->sysret = bts_kallsym("entry_SYSRETQ_end");
	k->iret = bts_kallsym("native_irq_return_iret");
	REQUIRE(k->sysret && k->iret,
		"no entry_SYSRETQ_end or native_irq_return_iret in /proc/kallsyms");
	k->sysret -= 3;
}

/* A record of the program: from its text, or a return into it. */
static inline int bts_prog_rec(const struct bts_prog *p,
			       const struct bts_kret *k, const struct bts_rec *r)
{
	return bts_in_prog(p, r->from) ||
	       ((r->from == k->sysret || r->from == k->iret) &&
		bts_in_prog(p, r->to));
}

/* Is the instruction at @ip right after a SYSCALL (0f 05) of @p? */
static inline int bts_after_syscall(const struct bts_prog *p, __u64 ip)
{
	size_t off = p->off + (ip - p->lo);

	return bts_in_prog(p, ip) && ip - 2 >= p->lo && off < p->len &&
	       p->img[off - 2] == 0x0f && p->img[off - 1] == 0x05;
}

/* The line at @l, without its newline, in @buf (cut to @size - 1). */
static inline void bts_line(char *buf, size_t size, const char *l)
{
	const char *e = strchr(l, '\n');
	size_t n = e ? (size_t)(e - l) : strlen(l);

	if (n >= size)
		n = size - 1;
	memcpy(buf, l, n);
	buf[n] = 0;
}

/*
 * The records silicon stores with -u (BTS_OFF_OS, Documentation/model.rst
 * "BTS in exact mode") for the truth of process @pid (its lines of
 * exact/truth_cpuN, @p's instructions decoded by capstone): each taken
 * branch (from, where it went); no record of a SYSCALL, interrupt or
 * exception (they land at CPL 0); each return to user mode (they land at
 * CPL 3): from the kernel's SYSRET after a system call that returns to the
 * next instruction (but rt_sigreturn, the SYSCALL at @sigreturn: IRET),
 * from its IRET otherwise (a signal delivered at the call's return), and
 * from its IRET after each "# kentry" line (an interrupt or exception at
 * that IP: back to it, or into a signal's handler).  Consecutive kernel
 * entries are at one IP (the task did not run in between): each but the
 * last returns there.  First, the return that brought the task to its
 * first instruction on the CPU (after sched_setaffinity() moved it
 * there, or the exec, or the interrupt that started BTS under it): from
 * SYSRET right after a SYSCALL, the kernel's rule (bts_exact.c), else
 * from IRET.  Returns the number of records in @out.
 */
static inline size_t bts_expect(const char *truth, long pid,
				const struct bts_prog *p, csh cs,
				const struct bts_kret *k, __u64 sigreturn,
				struct bts_branch *out, size_t max,
				size_t *ninsn, size_t *nkentry)
{
	__u64 prev = 0, kent[64];
	const char *l = truth;
	int have = 0, sys = 0, len = 0;
	size_t n = 0, nk = 0, i, nret;

	*ninsn = *nkentry = 0;
	for (; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
		unsigned long long tsc, cr3, v;
		long cpu, lpid, tid;
		char kind[16], line[128];
		__u64 ip, succ;

		/* sscanf() on the truth itself would scan all of it each time. */
		bts_line(line, sizeof(line), l);
		if (sscanf(line, "# %15s %llu %ld %ld %ld %llx", kind, &tsc, &cpu,
			   &lpid, &tid, &v) == 6) {
			if (tid == pid && !strcmp(kind, "kentry")) {
				/* More would be left out of the expectation. */
				REQUIRE(nk < 64, "truth: over 64 kernel entries in a row at %llx",
					v);
				kent[nk++] = v;
				(*nkentry)++;
			}
			continue;
		}
		if (*l == '#' ||
		    sscanf(line, "%llu %ld %ld %ld %llx %llx", &tsc, &cpu, &lpid,
			   &tid, &cr3, &v) != 6 || tid != pid)
			continue;
		ip = v;
		CHECK(bts_in_prog(p, ip), "truth IP %llx outside the program's text", v);
		succ = nk ? kent[0] : ip;
		if (!have && n < max)
			out[n++] = (struct bts_branch){
				bts_after_syscall(p, succ) ? k->sysret : k->iret,
				succ };
		if (have && !sys && succ != prev + len && n < max)
			out[n++] = (struct bts_branch){ prev, succ };
		nret = (sys ? 1 : 0) + nk;
		for (i = 0; i < nret && n < max; i++) {
			__u64 from = k->iret;

			if (sys && !i && succ == prev + 2 && prev != sigreturn)
				from = k->sysret;
			out[n++] = (struct bts_branch){
				from, i + 1 < nret ? kent[i + !sys] : ip };
		}
		nk = 0;
		sys = 0;
		if (bts_in_prog(p, ip)) {
			size_t off = p->off + (ip - p->lo);
			cs_insn *in;

			REQUIRE(cs_disasm(cs, p->img + off,
					  p->len - off < 16 ? p->len - off : 16,
					  ip, 1, &in) == 1,
				"capstone cannot decode %llx", v);
			len = in->size;
			sys = in->id == X86_INS_SYSCALL;
			cs_free(in, 1);
		}
		prev = ip;
		have = 1;
		(*ninsn)++;
	}
	return n;
}

/*
 * Compare @rec (@nrec records of cpu0.bts) with @exp: the program's
 * records (bts_prog_rec()) must be exactly @exp, in order, from the
 * return that brought it to cpu0 on.  Nothing else: in particular no
 * IRET back to the ud2 after the ptrace stop that pt-trace record's
 * ptrace makes of its SIGILL (a signal-delivery stop inside the #UD's
 * kernel visit, before the signal_deliver probe): the task does not
 * leave the kernel between the #UD and its handler, so silicon stores
 * one IRET, into the handler (bts_exact.c, pt_model_bts_exact_in()).
 * Returns how many matched.
 */
static inline size_t bts_compare(const char *what, const struct bts_prog *p,
				 const struct bts_kret *k,
				 const struct bts_rec *rec, size_t nrec,
				 const struct bts_branch *exp, size_t nexp)
{
	size_t i, got = 0;

	for (i = 0; i < nrec; i++) {
		if (!bts_prog_rec(p, k, &rec[i]))
			continue;	/* another task's, the driver's */
		if (got < nexp && (rec[i].from != exp[got].from ||
				   rec[i].to != exp[got].to)) {
			CHECK(0, "%s: record %zu: %llx -> %llx, the truth's %zu is %llx -> %llx",
			      what, i, (unsigned long long)rec[i].from,
			      (unsigned long long)rec[i].to, got,
			      (unsigned long long)exp[got].from,
			      (unsigned long long)exp[got].to);
			for (got = i > 3 ? i - 3 : 0; got < nrec && got < i + 5; got++)
				printf("PTT-INFO record %zu: %llx -> %llx\n", got,
				       (unsigned long long)rec[got].from,
				       (unsigned long long)rec[got].to);
			return 0;
		}
		if (got < nexp)
			got++;
		else
			CHECK(0, "%s: record %zu (%llx -> %llx) after the truth's last",
			      what, i, (unsigned long long)rec[i].from,
			      (unsigned long long)rec[i].to);
	}
	CHECK(got == nexp, "%s: %zu of the program's records for %zu expected",
	      what, got, nexp);
	return got;
}

#endif /* PTT_BTS_EXACT_COMMON_H */
