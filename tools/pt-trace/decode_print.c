// SPDX-License-Identifier: GPL-2.0
/*
 * decode's instruction lines: address, raw bytes or disassembly
 * (capstone, AT&T syntax as objdump and perf print it), symbol+offset,
 * and the source line with the function inlined there (libdw).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>

#include "decode_lcache.h"
#include "decode_out.h"
#include "dump_format.h"

int decode_fmt_init(struct decode_fmt *f)
{
	csh cs;

	f->lc = calloc(1, sizeof(*f->lc));
	if (!f->lc)
		return -1;
	f->who_len = 0;
	f->sec_len = 0;
	if (!f->insn)
		return 0;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return -1;
	cs_option(cs, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	f->ci = cs_malloc(cs);
	if (!f->ci) {
		cs_close(&cs);
		return -1;
	}
	f->cs = cs;
	f->cs_mode = ptem_64bit;
	return 0;
}

void decode_fmt_free(struct decode_fmt *f)
{
	csh cs = f->cs;

	free(f->lc);
	f->lc = NULL;
	if (!f->ci)
		return;
	cs_free(f->ci, 1);
	cs_close(&cs);
	f->ci = NULL;
}

/* Keep the text [@from, @to) of @k's line in slot @d (may be NULL). */
static void dl_keep(struct dl_slot *d, const struct elf_symtab *st,
		    const struct dl_key *k, const char *from, const char *to)
{
	size_t n = (size_t)(to - from);

	if (!d || n > DL_TEXT)
		return;
	d->st = st;
	d->k = *k;
	d->len = (uint8_t)n;
	memcpy(d->text, from, n);
}

/* "mnemonic operands" of @insn, in its execution mode. */
static char *decode_disasm(char *p, struct decode_fmt *f,
			   const struct pt_insn *insn)
{
	const uint8_t *code = insn->raw;
	size_t size = insn->size;
	uint64_t ip = insn->ip;

	if (insn->mode != f->cs_mode && insn->mode != ptem_unknown) {
		cs_option(f->cs, CS_OPT_MODE, insn->mode == ptem_16bit ?
			  CS_MODE_16 : insn->mode == ptem_32bit ? CS_MODE_32 :
			  CS_MODE_64);
		f->cs_mode = insn->mode;
	}
	if (!cs_disasm_iter(f->cs, &code, &size, &ip, f->ci))
		return p + sprintf(p, "(bad)");
	if (f->ci->op_str[0])
		return p + sprintf(p, "%s %s", f->ci->mnemonic, f->ci->op_str);
	return p + sprintf(p, "%s", f->ci->mnemonic);
}

/*
 * "<sym+0xoff>" without printf: one formatted line per instruction is
 * where a listing spends its time.
 */
static char *decode_sym(char *p, const struct elf_symtab *st, uint64_t ip)
{
	const struct elf_sym *s = elf_symtab_lookup(st, ip);
	size_t n;

	if (!s)
		return p;
	n = s->namelen < 250 ? s->namelen : 250;
	*p++ = '<';
	memcpy(p, s->name, n);
	p += n;
	if (ip != s->addr) {
		memcpy(p, "+0x", 3);
		p = pd_hex(p + 3, ip - s->addr);
	}
	*p++ = '>';
	return p;
}

/* "  FILE:LINE" and " (inlined NAME)" for --lines. */
static char *decode_line(char *p, const struct elf_symtab *st, uint64_t ip)
{
	const char *file, *inl;
	int line;

	int n;

	/*
	 * Within OB_LINE_MAX with the rest of the line (at most 18 + 18 +
	 * 193 + 46 + 254 bytes): snprintf says what it would have written.
	 */
	if (elf_symtab_line(st, ip, &file, &line, &inl))
		return p;
	n = snprintf(p, 300, "  %s:%d", file, line);
	p += n < 300 ? n : 299;
	if (inl) {
		n = snprintf(p, 150, " (inlined %s)", inl);
		p += n < 150 ? n : 149;
	}
	return p;
}

/*
 * "%5llu.%09llu" of @ns as seconds: the time column, without printf.
 * The seconds are formatted when they change, the nanoseconds a digit at
 * a time.
 */
static char *decode_sec(char *p, struct decode_fmt *f, uint64_t ns)
{
	uint64_t sec = ns / 1000000000;
	uint32_t frac = (uint32_t)(ns % 1000000000);
	int i;

	if (!f->sec_len || sec != f->sec_val) {
		int n = snprintf(f->sec_text, sizeof(f->sec_text), "%5llu.",
				 (unsigned long long)sec);

		f->sec_len = n < (int)sizeof(f->sec_text) ? (size_t)n :
			     sizeof(f->sec_text) - 1;
		f->sec_val = sec;
	}
	memcpy(p, f->sec_text, f->sec_len);
	p += f->sec_len;
	for (i = 8; i >= 0; i--) {	/* a multiply each, no division */
		p[i] = (char)('0' + frac % 10);
		frac /= 10;
	}
	return p + 9;
}

/* Whether @w is the task whose columns decode_fmt holds. */
static int decode_same_who(const struct decode_fmt *f,
			   const struct decode_who *w)
{
	const char *a = w->comm ? w->comm : ":-1", *b = f->who_name;

	if (!f->who_len || w->pid != f->who_pid || w->tid != f->who_tid ||
	    w->cpu != f->who_cpu)
		return 0;
	return !strncmp(a, b, 16);
}

/* "comm pid/tid [cpu] ", formatted when the task or CPU changes. */
static char *decode_who_cols(char *p, struct decode_fmt *f,
			     const struct decode_who *w)
{
	const char *comm = w->comm ? w->comm : ":-1";
	char *q = f->who_text;
	int n;

	if (!decode_same_who(f, w)) {
		/* At most 16 + 24 + 6 columns. */
		n = snprintf(q, 100, "%16.16s %5d/%-5d ", comm, w->pid,
			     w->tid);
		q += n < 100 ? n : 99;
		if (w->cpu >= 0)
			q += sprintf(q, "[%03d] ", w->cpu > 999 ? 999 : w->cpu);
		else
			q += sprintf(q, "[???] ");
		f->who_len = (size_t)(q - f->who_text);
		snprintf(f->who_name, sizeof(f->who_name), "%.16s", comm);
		f->who_pid = w->pid;
		f->who_tid = w->tid;
		f->who_cpu = w->cpu;
	}
	memcpy(p, f->who_text, f->who_len);
	return p + f->who_len;
}

/* "%16llx" of @ip: right-aligned, spaces before. */
static char *decode_ip16(char *p, uint64_t ip)
{
	int digits = ip ? (67 - __builtin_clzll(ip)) / 4 : 1;

	pd_hex16(p, ip);
	memset(p, ' ', (size_t)(16 - digits));
	return p + 16;
}

/*
 * perf script's columns from the IP on (its default fields for an
 * instruction trace): "ip sym+off (dso)", then the disassembly (--insn)
 * and FILE:LINE (--lines).
 */
static char *decode_perf_cols(char *p, struct decode_fmt *f,
			      const struct elf_symtab *st,
			      const struct pt_insn *insn)
{
	const struct elf_sym *s;
	int n;

	p = decode_ip16(p, insn->ip);
	*p++ = ' ';
	s = elf_symtab_lookup(st, insn->ip);
	if (s) {
		size_t len = s->namelen < 250 ? s->namelen : 250;
		const char *dso = s->dso ? s->dso : "[unknown]";

		memcpy(p, s->name, len);
		p += len;
		memcpy(p, "+0x", 3);
		p = pd_hex(p + 3, insn->ip - s->addr);
		n = snprintf(p, 150, " (%s)", dso);
		p += n < 150 ? n : 149;
	} else {
		/*
		 * No symbol, but a file: perf script's "[unknown] (DSO)",
		 * so that a stripped library's code (Debian's libc, ld.so)
		 * still says whose it is.
		 */
		const char *dso = elf_symtab_dso(st, insn->ip);

		n = snprintf(p, 170, "[unknown] (%s)", dso ? dso : "[unknown]");
		p += n < 170 ? n : 169;
	}
	if (f->ci) {
		*p++ = ' ';
		*p++ = ' ';
		p = decode_disasm(p, f, insn);
	}
	if (f->lines)
		p = decode_line(p, st, insn->ip);
	return p;
}

/*
 * The listing's own columns (ptxed's): "IP  bytes-or-disassembly
 * <sym+off>", then FILE:LINE (--lines).
 */
static char *decode_plain_cols(char *p, struct decode_fmt *f,
			       const struct elf_symtab *st,
			       const struct pt_insn *insn)
{
	static const char digits[] = "0123456789abcdef";
	char *start;
	uint8_t i;

	p = pd_hex16(p, insn->ip);
	*p++ = ' ';
	*p++ = ' ';
	start = p;
	if (f->ci) {
		p = decode_disasm(p, f, insn);
		*p++ = ' ';
	} else {
		for (i = 0; i < insn->size && i < sizeof(insn->raw); i++) {
			*p++ = digits[insn->raw[i] >> 4];
			*p++ = digits[insn->raw[i] & 15];
			*p++ = ' ';
		}
	}
	if (p - start < 46) {
		memset(p, ' ', (size_t)(46 - (p - start)));
		p = start + 46;
	}
	p = decode_sym(p, st, insn->ip);
	if (f->lines)
		p = decode_line(p, st, insn->ip);
	while (p > start && p[-1] == ' ')
		p--;
	return p;
}

/*
 * The columns from the IP on, which depend only on the instruction and
 * its address space, formatted the first time (out of line: the hot
 * path is the copy of a kept line) and kept in slot @d.
 */
static __pt_attribute((__noinline__)) char *
decode_cols(char *p, struct decode_fmt *f, const struct elf_symtab *st,
	    const struct pt_insn *insn, int perf, struct dl_slot *d,
	    const struct dl_key *k)
{
	char *from = p;

	p = perf ? decode_perf_cols(p, f, st, insn) :
		   decode_plain_cols(p, f, st, insn);
	dl_keep(d, st, k, from, p);
	return p;
}

/*
 * What comes before the columns: perf script's "comm pid/tid [cpu]
 * sec.nsec: " (@perf), or the TSC (--time).  Out of line: the plain
 * listing's hot path does without.
 */
static __pt_attribute((__noinline__)) char *
decode_prefix(char *p, struct decode_fmt *f, int perf, uint64_t tsc,
	      const struct decode_who *who)
{
	if (!perf)
		return p + sprintf(p, "%016llx  ", (unsigned long long)tsc);
	p = decode_who_cols(p, f, who);
	if (who->have_time)
		p = decode_sec(p, f, who->ns);
	*p++ = ':';
	*p++ = ' ';
	return p;
}

/*
 * One instruction's line: perf script's (with nanoseconds) when @who is
 * given for --format=perf, else the listing's own.  Every instruction
 * comes here: the columns from the IP on are copied from the line kept
 * from the instruction's last run, the one cache-hit path of all the
 * formats.
 */
void decode_print_insn(struct outbuf *ob, struct decode_fmt *f,
		       const struct elf_symtab *st,
		       const struct pt_insn *insn, uint64_t tsc,
		       const struct decode_who *who)
{
	char *p = ob_reserve(ob), *from;
	int perf = f->perf && who;
	struct dl_slot *d;
	struct dl_key k;

	if (f->ip_only) {
		p = pd_hex16(p, insn->ip);
	} else {
		if (perf || f->show_time)
			p = decode_prefix(p, f, perf, tsc, who);
		/*
		 * ptxed's mark of an instruction inside a transaction (it
		 * is undone if the transaction aborts); not in perf's
		 * columns, which have no place for it.
		 */
		if (unlikely(insn->speculative) && !perf) {
			*p++ = '?';
			*p++ = ' ';
		}
		from = dl_line(f->lc, st, insn, p, &d, &k);
		p = from ? from : decode_cols(p, f, st, insn, perf, d, &k);
	}
	*p++ = '\n';
	ob_commit(ob, p);
}

void decode_print_call(struct outbuf *ob, const struct elf_symtab *st,
		       uint64_t ip, int depth)
{
	char sym[256];
	const char *dso;

	decode_symbolize(st, ip, sym, sizeof(sym));
	/* No symbol (a stripped file): its file, as the perf lines say it. */
	dso = !sym[0] && st ? elf_symtab_dso(st, ip) : NULL;
	if (dso)
		snprintf(sym, sizeof(sym), "[unknown] (%s)", dso);
	ob_printf(ob, "%*s%016llx%s%s\n", 2 * (depth > 64 ? 64 : depth),
		  "", (unsigned long long)ip, sym[0] ? " " : "", sym);
}
