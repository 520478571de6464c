// SPDX-License-Identifier: GPL-2.0
/*
 * decode's instruction lines: address, raw bytes or disassembly
 * (capstone, AT&T syntax as objdump and perf print it), symbol+offset,
 * and the source line with the function inlined there (libdw).
 */
#include <stdio.h>
#include <string.h>

#include <capstone/capstone.h>

#include "decode_out.h"
#include "dump_format.h"

int decode_fmt_init(struct decode_fmt *f)
{
	csh cs;

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

	if (!f->ci)
		return;
	cs_free(f->ci, 1);
	cs_close(&cs);
	f->ci = NULL;
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
 * perf script's line (its default fields for an instruction trace, with
 * nanoseconds): "comm pid/tid [cpu] sec.nsec: ip sym+off (dso)", then
 * the disassembly (--insn) and FILE:LINE (--lines).
 */
static void decode_print_perf(struct outbuf *ob, struct decode_fmt *f,
			      const struct elf_symtab *st,
			      const struct pt_insn *insn,
			      const struct decode_who *w)
{
	const struct elf_sym *s = elf_symtab_lookup(st, insn->ip);
	char *p = ob_reserve(ob);
	int n;

	/* At most 16 + 24 + 8 + 22 + 18 columns before the symbol. */
	n = snprintf(p, 100, "%16.16s %5d/%-5d ", w->comm ? w->comm : ":-1",
		     w->pid, w->tid);
	p += n < 100 ? n : 99;
	if (w->cpu >= 0)
		p += sprintf(p, "[%03d] ", w->cpu > 999 ? 999 : w->cpu);
	else
		p += sprintf(p, "[???] ");
	if (w->have_time)
		p += sprintf(p, "%5llu.%09llu",
			     (unsigned long long)(w->ns / 1000000000),
			     (unsigned long long)(w->ns % 1000000000));
	p += sprintf(p, ": %16llx ", (unsigned long long)insn->ip);
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
	*p++ = '\n';
	ob_commit(ob, p);
}

void decode_print_insn(struct outbuf *ob, struct decode_fmt *f,
		       const struct elf_symtab *st,
		       const struct pt_insn *insn, uint64_t tsc,
		       const struct decode_who *who)
{
	static const char digits[] = "0123456789abcdef";
	char *p = ob_reserve(ob), *start;
	uint8_t i;

	if (f->ip_only) {
		p = pd_hex16(p, insn->ip);
		*p++ = '\n';
		ob_commit(ob, p);
		return;
	}
	if (f->perf && who) {
		decode_print_perf(ob, f, st, insn, who);
		return;
	}
	if (f->show_time)
		p += sprintf(p, "%016llx  ", (unsigned long long)tsc);
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
	*p++ = '\n';
	ob_commit(ob, p);
}

void decode_print_call(struct outbuf *ob, const struct elf_symtab *st,
		       uint64_t ip, int depth)
{
	char sym[256];

	decode_symbolize(st, ip, sym, sizeof(sym));
	ob_printf(ob, "%*s%016llx %s\n", 2 * (depth > 64 ? 64 : depth),
		  "", (unsigned long long)ip, sym);
}
