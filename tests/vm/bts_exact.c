// SPDX-License-Identifier: GPL-2.0
/*
 * bts_exact (issue 15): BTS fed by the exact model (model_exact=1,
 * Documentation/model.rst "Exact mode", model/bts_exact.c).  Records
 * /ptt/work/bts_exact_prog (static, no libc: a few hundred
 * instructions; it moves itself to cpu0) with
 * 'pt-trace record --bts -C 0 -u', in flight and in stream mode (-m),
 * and requires the records of cpu0.bts whose source is in the
 * program's text to be exactly, in order, the taken branches of the
 * model's ground truth (exact/truth_cpu0) for that process: each pair of
 * consecutive instructions where the second is not the one after the
 * first in memory (lengths from the program's ELF file, capstone), and
 * for each SYSCALL a record to the kernel's entry_SYSCALL_64; and
 * 'pt-trace decode' of cpu0.bts prints a line per record, naming the
 * program's functions.
 * icl only (the model's profiles do not change BTS in exact mode).
 * Exit 0 pass, 77 skip, 1 fail.
 */
#define _GNU_SOURCE
#include <capstone/capstone.h>
#include <linux/elf.h>
#include <sys/stat.h>

#include "bts_exact_common.h"

#define PROG "/ptt/work/bts_exact_prog"
#define TRUTH "/sys/kernel/debug/pt_trace/model/exact/truth_cpu0"
#define OUT "/tmp/bts_exact"

struct branch {
	__u64 from, to;
};

static unsigned char *img;	/* the program's file */
static size_t img_len;
static __u64 text_lo, text_hi, text_off;

/* The executable PT_LOAD of the program: its addresses and file offset. */
static void load_prog(void)
{
	const struct elf64_hdr *eh;
	int i;

	img = bts_slurp(PROG, &img_len);
	REQUIRE(img && img_len > sizeof(*eh), "cannot read %s", PROG);
	eh = (const struct elf64_hdr *)img;
	for (i = 0; i < eh->e_phnum; i++) {
		const struct elf64_phdr *ph = (const struct elf64_phdr *)
			(img + eh->e_phoff + (size_t)i * eh->e_phentsize);

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			text_lo = ph->p_vaddr;
			text_hi = ph->p_vaddr + ph->p_filesz;
			text_off = ph->p_offset;
		}
	}
	REQUIRE(text_hi > text_lo, "%s has no executable segment", PROG);
}

/* The expected records: the taken branches of the truth of @pid. */
static size_t truth_branches(const char *truth, long pid, csh cs,
			     __u64 entry, struct branch *out, size_t max,
			     size_t *ninsn)
{
	__u64 prev = 0, ip;
	const char *p = truth;
	int have = 0, is_sys = 0, len = 0;
	size_t n = 0;

	*ninsn = 0;
	while (*p) {
		unsigned long long tsc, cr3, v;
		long cpu, lpid, tid;
		int used;

		if (*p != '#' &&
		    sscanf(p, "%llu %ld %ld %ld %llx %llx%n", &tsc, &cpu, &lpid,
			   &tid, &cr3, &v, &used) == 6 && tid == pid) {
			ip = v;
			if (have && !is_sys && ip != prev + len && n < max)
				out[n++] = (struct branch){ prev, ip };
			CHECK(ip >= text_lo && ip < text_hi,
			      "truth IP %llx outside the program's text", v);
			if (ip >= text_lo && ip < text_hi) {
				cs_insn *in;
				size_t off = text_off + (ip - text_lo);

				REQUIRE(cs_disasm(cs, img + off,
						  img_len - off < 16 ? img_len - off : 16,
						  ip, 1, &in) == 1,
					"capstone cannot decode %llx", v);
				len = in->size;
				is_sys = in->id == X86_INS_SYSCALL;
				cs_free(in, 1);
			}
			if (is_sys && n < max)
				out[n++] = (struct branch){ ip, entry };
			prev = ip;
			have = 1;
			(*ninsn)++;
		}
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
	}
	return n;
}

/*
 * pt-trace decode of the recording: a line per record, the program's
 * branches named from its symbols through the sideband (libdwfl).
 */
static void decoded(const char *pt, size_t nrec)
{
	char cmd[256], *out, *p;
	size_t len, lines = 0;

	snprintf(cmd, sizeof(cmd), "%s decode " OUT "/cpu0.bts >" OUT ".dec 2>&1",
		 pt);
	CHECK(system(cmd) == 0, "decode of cpu0.bts failed");
	out = bts_slurp(OUT ".dec", &len);
	REQUIRE(out, "no decode output");
	for (p = out; (p = strchr(p, '\n')); p++)
		lines++;
	CHECK(lines == nrec, "decode printed %zu lines for %zu records", lines, nrec);
	CHECK(strstr(out, " fib+") && strstr(out, " table+") &&
	      strstr(out, "(bts_exact_prog) =>"),
	      "decode did not name the program's functions: %.300s", out);
	free(out);
}

/*
 * Record the program with BTS in @mode and compare its records with the
 * truth.  With a command, record starts BTS before its first
 * instruction, in stream mode too.
 */
static void run(const char *pt, const char *mode, csh cs, __u64 entry)
{
	static const char differ[] =
		"%s: record %zu: %llx -> %llx, the truth's branch %zu is %llx -> %llx";
	size_t tlen, blen, nrec, nexp, ninsn, i, got = 0;
	char cmd[512], *truth, *log, *sb, *s;
	struct timespec t0, t1;
	struct bts_rec *rec;
	struct branch *exp;
	double secs;
	long pid;

	free(bts_slurp(TRUTH, &tlen));	/* drain what earlier runs left */
	snprintf(cmd, sizeof(cmd),
		 "rm -rf " OUT "; %s record --bts -m %s -C 0 -u -o " OUT " -- "
		 PROG " >" OUT ".log 2>&1", pt, mode);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK(system(cmd) == 0, "%s: record failed", mode);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	truth = bts_slurp(TRUTH, &tlen);
	log = bts_slurp(OUT ".log", &blen);
	REQUIRE(log, "no log");
	CHECK(strstr(log, "bts_exact_prog done"), "%s: the program did not run: %s",
	      mode, log);
	sb = bts_slurp(OUT "/sideband.txt", &blen);
	s = sb && !strncmp(sb, "pid=", 4) ? sb - 1 :
	    sb ? strstr(sb, "\npid=") : NULL;
	REQUIRE(s, "no pid= in the sideband");
	pid = strtol(s + 5, NULL, 10);
	rec = bts_slurp(OUT "/cpu0.bts", &blen);
	REQUIRE(rec, "no cpu0.bts: %s", log);
	CHECK(blen % BTS_REC == 0, "cpu0.bts has %zu bytes", blen);
	nrec = blen / BTS_REC;
	REQUIRE(truth, "cannot read " TRUTH);
	exp = calloc(tlen / 16 + 1, sizeof(*exp));
	nexp = truth_branches(truth, pid, cs, entry, exp, tlen / 16 + 1, &ninsn);
	for (i = 0; i < nrec; i++) {
		if (rec[i].from < text_lo || rec[i].from >= text_hi)
			continue;	/* another task's (none expected) */
		if (got < nexp && (rec[i].from != exp[got].from ||
				   rec[i].to != exp[got].to)) {
			CHECK(0, differ, mode, i, (unsigned long long)rec[i].from,
			      (unsigned long long)rec[i].to, got,
			      (unsigned long long)exp[got].from,
			      (unsigned long long)exp[got].to);
			break;
		}
		got++;
	}
	printf("PTT-INFO %s: truth %zu instructions of pid %ld, %zu taken branches; ",
	       mode, ninsn, pid, nexp);
	printf("cpu0.bts %zu records, %zu of the program; record %.1f s\n",
	       nrec, got, secs);
	CHECK(ninsn > 100, "%s: only %zu instructions in the truth", mode, ninsn);
	CHECK(got == nexp, "%s: %zu of the program's records for %zu branches",
	      mode, got, nexp);
	decoded(pt, nrec);
	for (i = 0; ptt_failures && i < nrec && i < 8; i++)
		printf("PTT-INFO record %zu: %llx -> %llx\n", i,
		       (unsigned long long)rec[i].from,
		       (unsigned long long)rec[i].to);
	free(exp);
	free(rec);
	free(sb);
	free(log);
	free(truth);
}

int main(void)
{
	const char *pt = bts_exact_check("bts_exact", PROG);
	char old[8] = "0";
	__u64 entry;
	csh cs;

	load_prog();
	entry = bts_kallsym("entry_SYSCALL_64");
	REQUIRE(entry, "no entry_SYSCALL_64 in /proc/kallsyms");
	REQUIRE(cs_open(CS_ARCH_X86, CS_MODE_64, &cs) == CS_ERR_OK, "capstone");

	/* The recorder elsewhere: only the program is stepped on cpu0. */
	bts_exact_on(old, sizeof(old));
	run(pt, "flight", cs, entry);
	run(pt, "stream", cs, entry);
	bts_exact_off(old);
	CHECK(bts_model("bts_exact_busy") == 0, "stepped branches lost: bts_exact_busy %lld",
	      bts_model("bts_exact_busy"));
	cs_close(&cs);
	if (!ptt_failures)
		system("rm -rf " OUT " " OUT ".log");
	return ptt_done();
}
