// SPDX-License-Identifier: GPL-2.0
/*
 * The model's instruction decoder (drivers/pt_trace/model/insn_decode.c,
 * compiled here as it is) against objdump: reads `objdump -d -M intel64
 * --insn-width=16` on stdin and, for every line objdump decodes as an
 * instruction, decodes the bytes objdump printed and requires the same
 * length, the same class (from the mnemonic) and, for direct branches,
 * the same target.  Lines objdump calls "(bad)" are not compared.
 *
 *   insn_objdump NAME [--all-classes]  <objdump-output
 *
 * Prints "NAME: N instructions, M differ, B (bad) skipped" and the first
 * differences; exits 1 if any differ (or, with --all-classes, if some
 * class other than "invalid" never occurred).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "insn_decode.h"

/* Words objdump puts before a mnemonic. */
static int is_prefix_word(const char *w)
{
	static const char *const words[] = {
		"lock", "rep", "repz", "repnz", "repe", "repne", "data16",
		"data32", "addr32", "addr16", "cs", "ds", "es", "ss", "fs",
		"gs", "notrack", "bnd", "xacquire", "xrelease", "{vex}",
		"{vex3}", "{evex}", NULL
	};

	if (!strncmp(w, "rex", 3))
		return 1;
	for (int i = 0; words[i]; i++)
		if (!strcmp(w, words[i]))
			return 1;
	return 0;
}

static int is_one_of(const char *m, const char *const *list)
{
	for (int i = 0; list[i]; i++)
		if (!strcmp(m, list[i]))
			return 1;
	return 0;
}

/* The class objdump's mnemonic (and operand) says. */
static int objdump_class(const char *m, const char *ops)
{
	static const char *const loops[] = { "loop", "loope", "loopne",
		"loopz", "loopnz", "loopl", "loopq", NULL };
	static const char *const rets[] = { "ret", "retq", "retl", "retw",
		NULL };
	static const char *const lrets[] = { "lret", "lretq", "lretl",
		"lretw", NULL };
	static const char *const irets[] = { "iret", "iretq", "iretl",
		"iretw", NULL };
	int ind = ops[0] == '*';

	if (!strcmp(m, "jrcxz") || !strcmp(m, "jecxz"))
		return PT_INSN_JRCXZ;
	if (is_one_of(m, loops))
		return PT_INSN_LOOP;
	if (!strcmp(m, "jmp") || !strcmp(m, "jmpq") || !strcmp(m, "jmpw"))
		return ind ? PT_INSN_JMP_IND : PT_INSN_JMP;
	if (!strcmp(m, "call") || !strcmp(m, "callq") || !strcmp(m, "callw"))
		return ind ? PT_INSN_CALL_IND : PT_INSN_CALL;
	if (!strncmp(m, "ljmp", 4))
		return PT_INSN_JMP_FAR;
	if (!strncmp(m, "lcall", 5))
		return PT_INSN_CALL_FAR;
	if (m[0] == 'j')
		return PT_INSN_JCC;
	if (is_one_of(m, rets))
		return PT_INSN_RET;
	if (is_one_of(m, lrets))
		return PT_INSN_RET_FAR;
	if (is_one_of(m, irets))
		return PT_INSN_IRET;
	if (!strcmp(m, "syscall"))
		return PT_INSN_SYSCALL;
	if (!strncmp(m, "sysret", 6))
		return PT_INSN_SYSRET;
	if (!strcmp(m, "sysenter"))
		return PT_INSN_SYSENTER;
	if (!strncmp(m, "sysexit", 7))
		return PT_INSN_SYSEXIT;
	if (!strcmp(m, "int"))
		return PT_INSN_INT;
	if (!strcmp(m, "int3"))
		return PT_INSN_INT3;
	if (!strcmp(m, "int1") || !strcmp(m, "icebp"))
		return PT_INSN_INT1;
	if (!strncmp(m, "ud0", 3) || !strncmp(m, "ud1", 3) ||
	    !strcmp(m, "ud2"))
		return PT_INSN_UD;
	return PT_INSN_OTHER;
}

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : "stdin";
	int all = argc > 2 && !strcmp(argv[2], "--all-classes");
	unsigned long total = 0, differ = 0, bad = 0;
	unsigned long seen[PT_INSN_NR_CLASSES] = { 0 };
	char line[1024];

	while (fgets(line, sizeof(line), stdin)) {
		char *tab1 = strchr(line, '\t'), *tab2, *p, *m, *ops;
		unsigned char bytes[32];
		unsigned long long addr, want_target = 0;
		struct pt_insn in;
		int n = 0, len, cls, has_target = 0;

		tab2 = tab1 ? strchr(tab1 + 1, '\t') : NULL;
		if (!tab2)
			continue;
		*tab2++ = 0;
		if (sscanf(line, " %llx:", &addr) != 1)
			continue;
		for (p = tab1 + 1; *p;) {
			char *end;
			unsigned long v = strtoul(p, &end, 16);

			if (end == p || n == (int)sizeof(bytes))
				break;
			bytes[n++] = v;
			p = end;
		}
		tab2[strcspn(tab2, "\n")] = 0;
		/* the mnemonic: the first word that is not a prefix */
		for (m = strtok(tab2, " "); m && is_prefix_word(m);)
			m = strtok(NULL, " ");
		if (!m || !n)
			continue;
		if (!strcmp(m, "(bad)")) {
			bad++;
			continue;
		}
		ops = strtok(NULL, "");
		ops = ops ? ops + strspn(ops, " ") : "";
		m[strcspn(m, ",")] = 0;		/* je,pt */
		cls = objdump_class(m, ops);
		if (pt_insn_is_direct(cls) && isxdigit((unsigned char)ops[0])) {
			want_target = strtoull(ops, NULL, 16);
			has_target = 1;
		}
		total++;
		len = pt_insn_decode(bytes, n, &in);
		if (has_target && pt_insn_target(addr, &in) != want_target)
			len = -2;	/* same length, other target */
		if (len == n && in.cls == cls) {
			seen[cls]++;
			continue;
		}
		if (differ++ < 20)
			fprintf(stderr,
				"%s: %llx: objdump %d bytes %s (%s %s), decoder %d %s target %llx\n",
				name, addr, n, pt_insn_class_name(cls), m,
				ops, len, pt_insn_class_name(in.cls),
				(unsigned long long)pt_insn_target(addr,
								   &in));
	}
	printf("%s: %lu instructions, %lu differ, %lu (bad) skipped\n", name,
	       total, differ, bad);
	if (all) {
		for (int c = 0; c < PT_INSN_INVALID; c++) {
			if (seen[c])
				continue;
			printf("%s: class %s never seen\n", name,
			       pt_insn_class_name(c));
			differ++;
		}
	}
	return differ || !total;
}
