// SPDX-License-Identifier: GPL-2.0
/*
 * decode's instruction lines: address, raw bytes or disassembly
 * (capstone, AT&T syntax as objdump and perf print it), symbol+offset,
 * and the source line with the function inlined there (libdw).
 */
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>

#include "decode_out.h"
#include "dump_format.h"

/*
 * The lines of recent instructions, from the IP on (the part that depends
 * only on the instruction and its address space), by IP: a trace repeats
 * its hot code, and symbolizing, disassembling and formatting the same
 * instruction again is most of a listing's time.  An entry is used only
 * for the same symbol table (address space), address, bytes and mode, so
 * the line is the one formatting would give: the tables do not change
 * once decoding starts (elf_symtab_finish()).
 */
#define DL_SLOTS	1024u
#define DL_TEXT		192	/* longer lines are formatted every time */

struct dl_slot {
	alignas(32) char text[DL_TEXT];	/* aligned: copied in 64-byte steps */
	const struct elf_symtab *st;	/* NULL: empty */
	uint64_t ip;
	uint64_t raw[2];		/* the bytes, zero past the size */
	uint8_t size, mode;
	uint8_t len;
};

struct decode_lcache {
	struct dl_slot slot[DL_SLOTS];
};

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

/*
 * @insn's bytes as two words, zero past its size: two loads, not a
 * copy through memory (a store the loads overlap cannot be forwarded).
 */
static inline void dl_raw(uint64_t k[2], const struct pt_insn *insn)
{
	unsigned int n = insn->size < 16 ? insn->size : 15;
	uint64_t lo, hi;

	memcpy(&lo, insn->raw, 8);
	memcpy(&hi, insn->raw + 7, 8);	/* bytes 7..14 */
	hi >>= 8;
	if (n < 8) {
		lo &= n ? ~0ULL >> (64 - 8 * n) : 0;
		hi = 0;
	} else {
		hi &= n > 8 ? ~0ULL >> (64 - 8 * (n - 8)) : 0;
	}
	k[0] = lo;
	k[1] = hi;
}

/*
 * A kept line into the output, in 64-byte steps: a copy of fixed size
 * is a few moves, where one of the line's own length would start a
 * string instruction (ob_reserve() leaves room for the overshoot).
 */
static inline char *dl_copy(char *p, const struct dl_slot *d)
{
	memcpy(p, d->text, 64);
	if (d->len > 64) {
		memcpy(p + 64, d->text + 64, 64);
		if (d->len > 128)
			memcpy(p + 128, d->text + 128, 64);
	}
	return p + d->len;
}

/*
 * The slot for @insn in @st, and whether it holds its line.  Mode
 * ptem_unknown is never kept: its disassembly follows the mode before.
 */
static inline struct dl_slot *dl_find(struct decode_fmt *f,
				      const struct elf_symtab *st,
				      const struct pt_insn *insn,
				      const uint64_t raw[2], int *hit)
{
	struct dl_slot *d;

	*hit = 0;
	if (!f->lc || insn->mode == ptem_unknown)
		return NULL;
	d = &f->lc->slot[(insn->ip ^ (insn->ip >> 10)) & (DL_SLOTS - 1)];
	*hit = d->st == st && d->ip == insn->ip && d->size == insn->size &&
	       d->mode == insn->mode && d->raw[0] == raw[0] &&
	       d->raw[1] == raw[1];
	return d;
}

/* Keep the text [@from, @to) of @insn's line in slot @d (may be NULL). */
static inline void dl_keep(struct dl_slot *d, const struct elf_symtab *st,
			   const struct pt_insn *insn, const uint64_t raw[2],
			   const char *from, const char *to)
{
	size_t n = (size_t)(to - from);

	if (!d || n > DL_TEXT)
		return;
	d->st = st;
	d->ip = insn->ip;
	d->size = insn->size;
	d->mode = (uint8_t)insn->mode;
	d->raw[0] = raw[0];
	d->raw[1] = raw[1];
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
 * perf script's line (its default fields for an instruction trace, with
 * nanoseconds): "comm pid/tid [cpu] sec.nsec: ip sym+off (dso)", then
 * the disassembly (--insn) and FILE:LINE (--lines).  The columns from
 * the IP on are kept for the next time the instruction runs.
 */
static void decode_print_perf(struct outbuf *ob, struct decode_fmt *f,
			      const struct elf_symtab *st,
			      const struct pt_insn *insn,
			      const struct decode_who *w)
{
	const struct elf_sym *s;
	char *p = ob_reserve(ob), *from;
	struct dl_slot *d;
	uint64_t raw[2];
	int n, hit;

	p = decode_who_cols(p, f, w);
	if (w->have_time)
		p = decode_sec(p, f, w->ns);
	*p++ = ':';
	*p++ = ' ';
	dl_raw(raw, insn);
	d = dl_find(f, st, insn, raw, &hit);
	if (hit) {
		p = dl_copy(p, d);
		*p++ = '\n';
		ob_commit(ob, p);
		return;
	}
	from = p;
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
		memcpy(p, "[unknown] ([unknown])", 21);
		p += 21;
	}
	if (f->ci) {
		*p++ = ' ';
		*p++ = ' ';
		p = decode_disasm(p, f, insn);
	}
	if (f->lines)
		p = decode_line(p, st, insn->ip);
	dl_keep(d, st, insn, raw, from, p);
	*p++ = '\n';
	ob_commit(ob, p);
}

/*
 * The listing's own line: "IP  bytes-or-disassembly  <sym+off>", then
 * FILE:LINE (--lines); the columns from the IP on are kept as in
 * decode_print_perf().
 */
static void decode_print_plain(struct outbuf *ob, struct decode_fmt *f,
			       const struct elf_symtab *st,
			       const struct pt_insn *insn, uint64_t tsc)
{
	static const char digits[] = "0123456789abcdef";
	char *p = ob_reserve(ob), *start, *from;
	struct dl_slot *d;
	uint64_t raw[2];
	uint8_t i;
	int hit;

	if (f->show_time)
		p += sprintf(p, "%016llx  ", (unsigned long long)tsc);
	dl_raw(raw, insn);
	d = dl_find(f, st, insn, raw, &hit);
	if (hit) {
		p = dl_copy(p, d);
		*p++ = '\n';
		ob_commit(ob, p);
		return;
	}
	from = p;
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
	dl_keep(d, st, insn, raw, from, p);
	*p++ = '\n';
	ob_commit(ob, p);
}

void decode_print_insn(struct outbuf *ob, struct decode_fmt *f,
		       const struct elf_symtab *st,
		       const struct pt_insn *insn, uint64_t tsc,
		       const struct decode_who *who)
{
	char *p;

	if (f->ip_only) {
		p = pd_hex16(ob_reserve(ob), insn->ip);
		*p++ = '\n';
		ob_commit(ob, p);
	} else if (f->perf && who) {
		decode_print_perf(ob, f, st, insn, who);
	} else {
		decode_print_plain(ob, f, st, insn, tsc);
	}
}

void decode_print_call(struct outbuf *ob, const struct elf_symtab *st,
		       uint64_t ip, int depth)
{
	char sym[256];

	decode_symbolize(st, ip, sym, sizeof(sym));
	ob_printf(ob, "%*s%016llx %s\n", 2 * (depth > 64 ? 64 : depth),
		  "", (unsigned long long)ip, sym);
}
