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

/* Fixed-width and minimal lower-case hex, the building blocks. */
char *pd_hex_fixed(char *p, uint64_t val, int digits);
char *pd_hex(char *p, uint64_t val);

#endif /* PT_TRACE_DUMP_FORMAT_H */
