/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Text of one decoded packet in the format of libipt's reference ptdump
 * (default options): the columns, the payload notation, the padding.
 * The packets come from libipt's packet decoder; nothing here parses
 * the trace except one bit ptdump 2.0.5's library does not report
 * (MODE.Exec IF, shown by newer ptdump as "if").
 */
#ifndef PT_TRACE_DUMP_FORMAT_H
#define PT_TRACE_DUMP_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <intel-pt.h>

/* One entry per packet name ptdump prints; MODE split by leaf. */
enum pd_kind {
	PD_PAD, PD_PSB, PD_PSBEND, PD_FUP, PD_TIP, PD_TIP_PGE, PD_TIP_PGD,
	PD_TNT_8, PD_TNT_64, PD_MODE_EXEC, PD_MODE_TSX, PD_MODE_OTHER,
	PD_PIP, PD_VMCS, PD_CBR, PD_TSC, PD_TMA, PD_MTC, PD_CYC, PD_STOP,
	PD_OVF, PD_MNT, PD_EXSTOP, PD_MWAIT, PD_PWRE, PD_PWRX, PD_PTW,
	PD_UNKNOWN, PD_INVALID,
	PD_NR_KINDS
};

enum pd_kind pd_kind_of(const struct pt_packet *pkt);
const char *pd_kind_name(enum pd_kind kind);

/*
 * Write the packet's payload in ptdump notation at @out (no NUL) and
 * return the end.  @raw points at the packet's bytes in the trace.
 * Whole words are stored: up to 16 bytes past the end may be scribbled
 * on, which the PD_LINE_MAX (and OB_LINE_MAX) room allows for.
 */
char *pd_format_payload(char *out, const struct pt_packet *pkt,
			const uint8_t *raw);

/*
 * Write the whole ptdump line for the packet at @offset, without the
 * newline, and return the end.  Needs at most PD_LINE_MAX bytes; any
 * diagnostic ptdump prints before the line is written first, with its
 * own newline.
 */
#define PD_LINE_MAX	256
char *pd_format_line(char *out, uint64_t offset, const struct pt_packet *pkt,
		     const uint8_t *raw);

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the hex and TNT writers below assume a little-endian host"
#endif

/*
 * Eight hex digits of @v as the eight bytes of a word, most significant
 * digit in the lowest byte: the nibbles are spread one per byte, then
 * 0..9 become '0'..'9' and 10..15 'a'..'f' in all bytes at once.
 */
static inline uint64_t pd_hex8_word(uint32_t v)
{
	uint64_t x = v, alpha;

	x = (x | (x << 16)) & 0x0000ffff0000ffffULL;
	x = (x | (x << 8)) & 0x00ff00ff00ff00ffULL;
	x = (x | (x << 4)) & 0x0f0f0f0f0f0f0f0fULL;
	alpha = ((x + 0x0606060606060606ULL) >> 4) & 0x0101010101010101ULL;
	x += 0x3030303030303030ULL + alpha * ('a' - '0' - 10);
	return __builtin_bswap64(x);
}

/* Exactly 16 digits, two stores. */
static inline char *pd_hex16(char *p, uint64_t val)
{
	uint64_t hi = pd_hex8_word((uint32_t)(val >> 32));
	uint64_t lo = pd_hex8_word((uint32_t)val);

	memcpy(p, &hi, sizeof(hi));
	memcpy(p + 8, &lo, sizeof(lo));
	return p + 16;
}

/* Fixed-width and minimal lower-case hex, the building blocks. */
char *pd_hex_fixed(char *p, uint64_t val, int digits);
char *pd_hex(char *p, uint64_t val);
/* Decimal, no padding. */
char *pd_dec(char *p, uint64_t val);

#endif /* PT_TRACE_DUMP_FORMAT_H */
