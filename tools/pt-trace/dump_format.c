// SPDX-License-Identifier: GPL-2.0
/*
 * ptdump's text format, rebuilt from its documented column rules:
 *
 *   offset   16 hex digits, then two spaces
 *   name     padded to 10 columns and a space when a payload follows,
 *            else printed bare (no trailing blanks)
 *   payload  packet specific; PIP and VMCS add, after the payload padded
 *            to 25 columns and a space, a 5-column id ("cr3", "vmcs")
 *            and the value as 16 hex digits
 *
 * Hand-rolled hex instead of printf: this runs once per packet and is
 * what makes the dump an order of magnitude faster than ptdump.
 */
#include <string.h>

#include "compiler.h"
#include "dump_format.h"

static const char pd_digits[] = "0123456789abcdef";

static const char *const pd_names[PD_NR_KINDS] = {
	[PD_PAD] = "pad", [PD_PSB] = "psb", [PD_PSBEND] = "psbend",
	[PD_FUP] = "fup", [PD_TIP] = "tip", [PD_TIP_PGE] = "tip.pge",
	[PD_TIP_PGD] = "tip.pgd", [PD_TNT_8] = "tnt.8",
	[PD_TNT_64] = "tnt.64", [PD_MODE_EXEC] = "mode.exec",
	[PD_MODE_TSX] = "mode.tsx", [PD_MODE_OTHER] = "mode",
	[PD_PIP] = "pip", [PD_VMCS] = "vmcs", [PD_CBR] = "cbr",
	[PD_TSC] = "tsc", [PD_TMA] = "tma", [PD_MTC] = "mtc",
	[PD_CYC] = "cyc", [PD_STOP] = "stop", [PD_OVF] = "ovf",
	[PD_MNT] = "mnt", [PD_EXSTOP] = "exstop", [PD_MWAIT] = "mwait",
	[PD_PWRE] = "pwre", [PD_PWRX] = "pwrx", [PD_PTW] = "ptw",
	[PD_UNKNOWN] = "<unknown>", [PD_INVALID] = "<invalid>",
};

enum pd_kind pd_kind_of(const struct pt_packet *pkt)
{
	switch (pkt->type) {
	case ppt_pad:
		return PD_PAD;
	case ppt_psb:
		return PD_PSB;
	case ppt_psbend:
		return PD_PSBEND;
	case ppt_fup:
		return PD_FUP;
	case ppt_tip:
		return PD_TIP;
	case ppt_tip_pge:
		return PD_TIP_PGE;
	case ppt_tip_pgd:
		return PD_TIP_PGD;
	case ppt_tnt_8:
		return PD_TNT_8;
	case ppt_tnt_64:
		return PD_TNT_64;
	case ppt_mode:
		if (pkt->payload.mode.leaf == pt_mol_exec)
			return PD_MODE_EXEC;
		if (pkt->payload.mode.leaf == pt_mol_tsx)
			return PD_MODE_TSX;
		return PD_MODE_OTHER;
	case ppt_pip:
		return PD_PIP;
	case ppt_vmcs:
		return PD_VMCS;
	case ppt_cbr:
		return PD_CBR;
	case ppt_tsc:
		return PD_TSC;
	case ppt_tma:
		return PD_TMA;
	case ppt_mtc:
		return PD_MTC;
	case ppt_cyc:
		return PD_CYC;
	case ppt_stop:
		return PD_STOP;
	case ppt_ovf:
		return PD_OVF;
	case ppt_mnt:
		return PD_MNT;
	case ppt_exstop:
		return PD_EXSTOP;
	case ppt_mwait:
		return PD_MWAIT;
	case ppt_pwre:
		return PD_PWRE;
	case ppt_pwrx:
		return PD_PWRX;
	case ppt_ptw:
		return PD_PTW;
	case ppt_unknown:
		return PD_UNKNOWN;
	case ppt_invalid:
	default:
		return PD_INVALID;
	}
}

const char *pd_kind_name(enum pd_kind kind)
{
	return kind < PD_NR_KINDS ? pd_names[kind] : "?";
}

char *pd_hex_fixed(char *p, uint64_t val, int digits)
{
	int i;

	if (digits == 16)
		return pd_hex16(p, val);
	for (i = digits - 1; i >= 0; i--) {
		p[i] = pd_digits[val & 0xf];
		val >>= 4;
	}
	return p + digits;
}

/*
 * Minimal digits: the value is shifted so that its first significant
 * digit leads, all 16 are written and only the significant ones kept.
 * Writes up to 16 bytes past the returned end (see PD_LINE_MAX).
 */
static inline char *pd_hex_min(char *p, uint64_t val)
{
	int digits = val ? (67 - __builtin_clzll(val)) / 4 : 1;

	pd_hex16(p, val << (64 - 4 * digits));
	return p + digits;
}

char *pd_hex(char *p, uint64_t val)
{
	return pd_hex_min(p, val);
}

/* Inlined: with a literal, strlen folds and the copy is fixed. */
static inline char *pd_str(char *p, const char *s)
{
	size_t n = strlen(s);

	memcpy(p, s, n);
	return p + n;
}

char *pd_dec(char *p, uint64_t val)
{
	char tmp[24];	/* 20 digits at most */
	int n = 0;

	do {
		tmp[n++] = (char)('0' + val % 10);
		val /= 10;
	} while (val);
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* IP payloads show only the bytes the packet carries; '?' for the rest. */
static char *pd_ip_payload(char *p, const struct pt_packet_ip *ip)
{
	uint64_t val = ip->ip;

	*p++ = pd_digits[ip->ipc & 0xf];
	*p++ = ':';
	*p++ = ' ';
	switch (ip->ipc) {
	case pt_ipc_suppressed:
		return pd_str(p, "????????????????");
	case pt_ipc_update_16:
		pd_hex16(p, val);
		memcpy(p, "????????????", 12);
		return p + 16;
	case pt_ipc_update_32:
		pd_hex16(p, val);
		memcpy(p, "????????", 8);
		return p + 16;
	case pt_ipc_update_48:
		pd_hex16(p, val);
		memcpy(p, "????", 4);
		return p + 16;
	case pt_ipc_sext_48:
		/* Show the IP the packet means: bit 47 extended upwards. */
		val &= BIT_ULL(48) - 1;
		if (val & BIT_ULL(47))
			val |= ~(BIT_ULL(48) - 1);
		return pd_hex16(p, val);
	case pt_ipc_full:
	default:
		return pd_hex16(p, val);
	}
}

/*
 * Taken/not-taken bits, oldest first: '!' taken, '.' not taken.  Eight
 * bits at a time: the byte is copied into every byte of a word and each
 * byte keeps its own bit, most significant bit first.
 * Writes up to 7 bytes past the returned end.
 */
static char *pd_tnt_payload(char *p, const struct pt_packet_tnt *tnt)
{
	int bits = tnt->bit_size;
	uint64_t v;

	if (bits > 47)
		bits = 47;
	if (!bits)
		return p;
	v = tnt->payload << (64 - bits);
	for (;;) {
		uint64_t set = ((v >> 56) * 0x0101010101010101ULL) &
			       0x0102040810204080ULL;
		uint64_t taken = ((set + 0x7f7f7f7f7f7f7f7fULL) >> 7) &
				 0x0101010101010101ULL;
		uint64_t text = 0x2e2e2e2e2e2e2e2eULL - taken * ('.' - '!');

		memcpy(p, &text, sizeof(text));
		if (bits <= 8)
			return p + bits;
		p += 8;
		bits -= 8;
		v <<= 8;
	}
}

/* "a, b, c" of the parts that are set. */
static char *pd_flags(char *p, const char *const *names, const int *set,
		      int n)
{
	const char *sep = "";
	int i;

	for (i = 0; i < n; i++) {
		if (!set[i])
			continue;
		p = pd_str(pd_str(p, sep), names[i]);
		sep = ", ";
	}
	return p;
}

/*
 * MODE.Exec bit 2 is the interrupt flag (Event Trace); libipt 2.0.5 does
 * not report it, newer ptdump prints it as "if".  The packet is two
 * bytes, 0x99 and the mode byte, as the decoder already established.
 */
static int pd_mode_exec_if(const struct pt_packet *pkt, const uint8_t *raw)
{
	return raw && pkt->size == 2 && raw[0] == 0x99 && (raw[1] & 0x4);
}

static char *pd_pwrx_payload(char *p, const struct pt_packet_pwrx *pwrx)
{
	const char *wr;
	int n = pwrx->interrupt + pwrx->store + pwrx->autonomous;

	/* ptdump's wake reason column: exactly one reason, else "bad". */
	if (n != 1)
		wr = "bad";
	else if (pwrx->interrupt)
		wr = "int";
	else if (pwrx->store)
		wr = " st";
	else
		wr = " hw";
	p = pd_str(pd_str(p, wr), ": c");
	p = pd_dec(p, (pwrx->last + 1) & 0xf);
	p = pd_str(p, ", c");
	return pd_dec(p, (pwrx->deepest + 1) & 0xf);
}

char *pd_format_payload(char *p, const struct pt_packet *pkt,
			const uint8_t *raw)
{
	switch (pkt->type) {
	case ppt_fup:
	case ppt_tip:
	case ppt_tip_pge:
	case ppt_tip_pgd:
		return pd_ip_payload(p, &pkt->payload.ip);
	case ppt_tnt_8:
	case ppt_tnt_64:
		return pd_tnt_payload(p, &pkt->payload.tnt);
	case ppt_mode:
		if (pkt->payload.mode.leaf == pt_mol_exec) {
			static const char *const n[] = { "cs.d", "cs.l", "if" };
			int set[3] = {
				pkt->payload.mode.bits.exec.csd,
				pkt->payload.mode.bits.exec.csl,
				pd_mode_exec_if(pkt, raw),
			};

			return pd_flags(p, n, set, 3);
		}
		if (pkt->payload.mode.leaf == pt_mol_tsx) {
			static const char *const n[] = { "intx", "abrt" };
			int set[2] = {
				pkt->payload.mode.bits.tsx.intx,
				pkt->payload.mode.bits.tsx.abrt,
			};

			return pd_flags(p, n, set, 2);
		}
		return pd_hex_min(pd_str(p, "leaf: "), pkt->payload.mode.leaf);
	case ppt_pip:
		p = pd_hex_min(p, pkt->payload.pip.cr3);
		return pkt->payload.pip.nr ? pd_str(p, ", nr") : p;
	case ppt_vmcs:
		return pd_hex_min(p, pkt->payload.vmcs.base);
	case ppt_tsc:
		return pd_hex_min(p, pkt->payload.tsc.tsc);
	case ppt_cbr:
		return pd_hex_min(p, pkt->payload.cbr.ratio);
	case ppt_tma:
		p = pd_str(pd_hex_min(p, pkt->payload.tma.ctc), ", ");
		return pd_hex_min(p, pkt->payload.tma.fc);
	case ppt_mtc:
		return pd_hex_min(p, pkt->payload.mtc.ctc);
	case ppt_cyc:
		return pd_hex_min(p, pkt->payload.cyc.value);
	case ppt_mnt:
		return pd_hex_min(p, pkt->payload.mnt.payload);
	case ppt_exstop:
		return pkt->payload.exstop.ip ? pd_str(p, "ip") : p;
	case ppt_mwait:
		p = pd_str(pd_hex_fixed(p, pkt->payload.mwait.hints, 8), ", ");
		return pd_hex_fixed(p, pkt->payload.mwait.ext, 8);
	case ppt_pwre:
		p = pd_dec(pd_str(p, "c"), (pkt->payload.pwre.state + 1) & 0xf);
		p = pd_dec(pd_str(p, "."),
			   (pkt->payload.pwre.sub_state + 1) & 0xf);
		return pkt->payload.pwre.hw ? pd_str(p, ", hw") : p;
	case ppt_pwrx:
		return pd_pwrx_payload(p, &pkt->payload.pwrx);
	case ppt_ptw:
		p = pd_str(pd_hex_min(p, pkt->payload.ptw.plc), ": ");
		p = pd_hex_min(p, pkt->payload.ptw.payload);
		return pkt->payload.ptw.ip ? pd_str(p, ", ip") : p;
	default:
		return p;
	}
}

/*
 * The name column of every kind as one 16-byte copy: two blanks, the
 * name padded to 10 columns and the blank before the payload.  @len is
 * the length of the line up to the name, for a packet with no payload.
 */
struct pd_column {
	char text[16];
	uint8_t len;
};

static const struct pd_column pd_columns[PD_NR_KINDS] = {
	[PD_PAD] = { "  pad           ", 5 },
	[PD_PSB] = { "  psb           ", 5 },
	[PD_PSBEND] = { "  psbend        ", 8 },
	[PD_FUP] = { "  fup           ", 5 },
	[PD_TIP] = { "  tip           ", 5 },
	[PD_TIP_PGE] = { "  tip.pge       ", 9 },
	[PD_TIP_PGD] = { "  tip.pgd       ", 9 },
	[PD_TNT_8] = { "  tnt.8         ", 7 },
	[PD_TNT_64] = { "  tnt.64        ", 8 },
	[PD_MODE_EXEC] = { "  mode.exec     ", 11 },
	[PD_MODE_TSX] = { "  mode.tsx      ", 10 },
	[PD_MODE_OTHER] = { "  mode          ", 6 },
	[PD_PIP] = { "  pip           ", 5 },
	[PD_VMCS] = { "  vmcs          ", 6 },
	[PD_CBR] = { "  cbr           ", 5 },
	[PD_TSC] = { "  tsc           ", 5 },
	[PD_TMA] = { "  tma           ", 5 },
	[PD_MTC] = { "  mtc           ", 5 },
	[PD_CYC] = { "  cyc           ", 5 },
	[PD_STOP] = { "  stop          ", 6 },
	[PD_OVF] = { "  ovf           ", 5 },
	[PD_MNT] = { "  mnt           ", 5 },
	[PD_EXSTOP] = { "  exstop        ", 8 },
	[PD_MWAIT] = { "  mwait         ", 7 },
	[PD_PWRE] = { "  pwre          ", 6 },
	[PD_PWRX] = { "  pwrx          ", 6 },
	[PD_PTW] = { "  ptw           ", 5 },
	[PD_UNKNOWN] = { "  <unknown>     ", 11 },
	[PD_INVALID] = { "  <invalid>     ", 11 },
};

/* PIP and VMCS: payload padded to 25 columns, the id, the value again. */
static char *pd_track(char *p, char *payload, const char *id, uint64_t val)
{
	while (p - payload < 25)
		*p++ = ' ';
	memcpy(p, id, 6);
	return pd_hex16(p + 6, val);
}

char *pd_format_line(char *out, uint64_t offset, const struct pt_packet *pkt,
		     const uint8_t *raw)
{
	const struct pd_column *col;
	enum pd_kind kind;
	char *p = out, *payload, *end;

	/* The two packets of most lines first: no payload, or TNT bits. */
	if (pkt->type == ppt_pad) {
		p = pd_hex16(p, offset);
		memcpy(p, "  pad\0\0\0", 8);
		return p + 5;
	}
	if (pkt->type == ppt_tnt_8) {
		p = pd_hex16(p, offset);
		memcpy(p, pd_columns[PD_TNT_8].text, 16);
		end = pd_tnt_payload(p + 13, &pkt->payload.tnt);
		return end == p + 13 ? p + pd_columns[PD_TNT_8].len : end;
	}

	kind = pd_kind_of(pkt);
	/* ptdump reports a mode leaf it does not know before the line. */
	if (kind == PD_MODE_OTHER) {
		*p++ = '[';
		p = pd_str(pd_hex_min(p, offset), ": unknown mode leaf]\n");
	}
	col = &pd_columns[kind];
	p = pd_hex16(p, offset);
	memcpy(p, col->text, 16);
	payload = p + 13;
	end = pd_format_payload(payload, pkt, raw);
	if (end == payload)
		return p + col->len;
	if (pkt->type == ppt_pip)
		return pd_track(end, payload, " cr3  ", pkt->payload.pip.cr3);
	if (pkt->type == ppt_vmcs)
		return pd_track(end, payload, " vmcs ",
				pkt->payload.vmcs.base);
	return end;
}
