// SPDX-License-Identifier: GPL-2.0
/*
 * Intel PT packet encoder: the byte layouts of SDM Vol. 3C, 36.4.2
 * (Tables 36-13 ff.).  Pure: no kernel state, so KUnit checks the bytes.
 */
#include <linux/string.h>

#include "packets.h"

void pt_pkt_init(struct pt_pkt_buf *b, u8 *buf, u32 cap)
{
	b->buf = buf;
	b->len = 0;
	b->cap = cap;
	b->last_ip = 0;
	b->packets = 0;
}

/* Append n bytes; all or nothing. */
static u32 pt_put(struct pt_pkt_buf *b, const u8 *p, u32 n)
{
	if (b->cap - b->len < n)
		return 0;
	memcpy(b->buf + b->len, p, n);
	b->len += n;
	b->packets++;
	return n;
}

static void pt_le(u8 *p, u64 v, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		p[i] = v >> (8 * i);
}

u32 pt_pkt_pad(struct pt_pkt_buf *b)
{
	static const u8 p[] = { 0x00 };

	return pt_put(b, p, sizeof(p));
}

/* PSB: 02 82 repeated eight times; the decoder's sync point. */
u32 pt_pkt_psb(struct pt_pkt_buf *b)
{
	u8 p[16];
	unsigned int i;
	u32 n;

	for (i = 0; i < 16; i += 2) {
		p[i] = 0x02;
		p[i + 1] = 0x82;
	}
	n = pt_put(b, p, sizeof(p));
	if (n)
		b->last_ip = 0;		/* PSB resets IP compression */
	return n;
}

u32 pt_pkt_psbend(struct pt_pkt_buf *b)
{
	static const u8 p[] = { 0x02, 0x23 };

	return pt_put(b, p, sizeof(p));
}

u32 pt_pkt_ovf(struct pt_pkt_buf *b)
{
	static const u8 p[] = { 0x02, 0xf3 };

	return pt_put(b, p, sizeof(p));
}

/* TraceStop: 02 83 (Table 36-28). */
u32 pt_pkt_stop(struct pt_pkt_buf *b)
{
	static const u8 p[] = { 0x02, 0x83 };

	return pt_put(b, p, sizeof(p));
}

/* TSC: 19, then TSC[55:0]. */
u32 pt_pkt_tsc(struct pt_pkt_buf *b, u64 tsc)
{
	u8 p[8] = { 0x19 };

	pt_le(p + 1, tsc, 7);
	return pt_put(b, p, sizeof(p));
}

/* TMA: 02 73, CTC[15:0], reserved, FastCounter[7:0], FC[8] in bit 0. */
u32 pt_pkt_tma(struct pt_pkt_buf *b, u16 ctc, u16 fc)
{
	u8 p[7] = { 0x02, 0x73 };

	pt_le(p + 2, ctc, 2);
	p[4] = 0;
	p[5] = fc & 0xff;
	p[6] = (fc >> 8) & 1;
	return pt_put(b, p, sizeof(p));
}

/* CBR: 02 03, core:bus ratio, reserved. */
u32 pt_pkt_cbr(struct pt_pkt_buf *b, u8 ratio)
{
	u8 p[4] = { 0x02, 0x03, ratio, 0 };

	return pt_put(b, p, sizeof(p));
}

/* MTC: 59, CTC[MTCFreq+7:MTCFreq]. */
u32 pt_pkt_mtc(struct pt_pkt_buf *b, u8 ctc)
{
	u8 p[2] = { 0x59, ctc };

	return pt_put(b, p, sizeof(p));
}

/*
 * CYC: bits 1:0 = 11b, bit 2 = Exp, bits 7:3 = cycles[4:0]; each
 * extension byte has Exp in bit 0 and the next seven bits above it.
 */
u32 pt_pkt_cyc(struct pt_pkt_buf *b, u64 cycles)
{
	u8 p[10];
	unsigned int n = 0;

	p[n] = 0x03 | (cycles & 0x1f) << 3;
	cycles >>= 5;
	while (cycles && n < 9) {
		p[n] |= n == 0 ? 0x04 : 0x01;	/* Exp: another byte follows */
		n++;
		p[n] = (cycles & 0x7f) << 1;
		cycles >>= 7;
	}
	return pt_put(b, p, n + 1);
}

/* MODE: 99, leaf in bits 7:5 (000 Exec, 001 TSX). */
u32 pt_pkt_mode_exec(struct pt_pkt_buf *b, bool csl, bool csd)
{
	u8 p[2] = { 0x99, (csl ? 0x01 : 0) | (csd ? 0x02 : 0) };

	return pt_put(b, p, sizeof(p));
}

u32 pt_pkt_mode_tsx(struct pt_pkt_buf *b, bool intx, bool abrt)
{
	u8 p[2] = { 0x99, 0x20 | (intx ? 0x01 : 0) | (abrt ? 0x02 : 0) };

	return pt_put(b, p, sizeof(p));
}

static bool pt_sext48(u64 ip)
{
	return (u64)((s64)(ip << 16) >> 16) == ip;
}

/* The shortest IPBytes encoding that reconstructs ip from last_ip. */
unsigned int pt_ipc_choose(u64 last_ip, u64 ip)
{
	u64 diff = ip ^ last_ip;

	if (!(diff & ~0xffffULL))
		return PT_IPC_UPDATE_16;
	if (!(diff & ~0xffffffffULL))
		return PT_IPC_UPDATE_32;
	if (pt_sext48(ip))
		return PT_IPC_SEXT_48;
	if (!(diff & ~0xffffffffffffULL))
		return PT_IPC_UPDATE_48;
	return PT_IPC_FULL;
}

static unsigned int pt_ipc_bytes(unsigned int ipc)
{
	switch (ipc) {
	case PT_IPC_UPDATE_16:
		return 2;
	case PT_IPC_UPDATE_32:
		return 4;
	case PT_IPC_SEXT_48:
	case PT_IPC_UPDATE_48:
		return 6;
	case PT_IPC_FULL:
		return 8;
	}
	return 0;
}

u32 pt_pkt_ip_ipc(struct pt_pkt_buf *b, u8 type, u64 ip, unsigned int ipc)
{
	unsigned int nb = pt_ipc_bytes(ipc);
	u8 p[9];
	u32 n;

	p[0] = (ipc << 5) | type;
	pt_le(p + 1, ip, nb);
	n = pt_put(b, p, 1 + nb);
	if (n && ipc != PT_IPC_SUPPRESSED)
		b->last_ip = ip;
	return n;
}

u32 pt_pkt_ip(struct pt_pkt_buf *b, u8 type, u64 ip, bool suppress)
{
	unsigned int ipc = suppress ? PT_IPC_SUPPRESSED :
				      pt_ipc_choose(b->last_ip, ip);

	return pt_pkt_ip_ipc(b, type, ip, ipc);
}

/*
 * Short TNT: bit 0 = 0, a stop bit above the n branch bits, the oldest
 * branch just below the stop bit (SDM Table 36-14).
 */
u32 pt_pkt_tnt8(struct pt_pkt_buf *b, u8 bits, unsigned int n)
{
	u8 p[1];

	if (n < 1 || n > 6)
		return 0;
	p[0] = ((1u << n) | (bits & ((1u << n) - 1))) << 1;
	return pt_put(b, p, sizeof(p));
}

/*
 * Long TNT: 02 a3, then six bytes holding the n branch bits below a stop
 * bit, the oldest just below it (SDM Table 36-15).
 */
u32 pt_pkt_tnt64(struct pt_pkt_buf *b, u64 bits, unsigned int n)
{
	u8 p[8] = { 0x02, 0xa3 };

	if (n < 1 || n > 47)
		return 0;
	pt_le(p + 2, (1ULL << n) | (bits & ((1ULL << n) - 1)), 6);
	return pt_put(b, p, sizeof(p));
}

/* PIP: 02 43, then CR3[51:5] << 1 | NR over six bytes. */
u32 pt_pkt_pip(struct pt_pkt_buf *b, u64 cr3, bool nr)
{
	u8 p[8] = { 0x02, 0x43 };

	pt_le(p + 2, ((cr3 >> 5) << 1) | (nr ? 1 : 0), 6);
	return pt_put(b, p, sizeof(p));
}

/* VMCS: 02 c8, then VMCS base[51:12] over five bytes. */
u32 pt_pkt_vmcs(struct pt_pkt_buf *b, u64 vmcs)
{
	u8 p[7] = { 0x02, 0xc8 };

	pt_le(p + 2, vmcs >> 12, 5);
	return pt_put(b, p, sizeof(p));
}

/* PTW: 02, IP<<7 | PayloadBytes<<5 | 10010b, then 4 or 8 bytes. */
u32 pt_pkt_ptw(struct pt_pkt_buf *b, u64 payload, bool wide, bool ip)
{
	u8 p[10] = { 0x02, (ip ? 0x80 : 0) | (wide ? 0x20 : 0) | 0x12 };
	unsigned int nb = wide ? 8 : 4;

	pt_le(p + 2, payload, nb);
	return pt_put(b, p, 2 + nb);
}

/* PWRE: 02 22, HW in bit 7 of byte 2, C-state:sub-C-state in byte 3. */
u32 pt_pkt_pwre(struct pt_pkt_buf *b, u8 cstate, u8 substate, bool hw)
{
	u8 p[4] = { 0x02, 0x22, hw ? 0x80 : 0,
		    (u8)((cstate & 0xf) << 4 | (substate & 0xf)) };

	return pt_put(b, p, sizeof(p));
}

/* PWRX: 02 a2, deepest:last core C-state, wake reason, 3 reserved. */
u32 pt_pkt_pwrx(struct pt_pkt_buf *b, u8 last, u8 deepest, u8 wake)
{
	u8 p[7] = { 0x02, 0xa2, (u8)((deepest & 0xf) << 4 | (last & 0xf)),
		    (u8)(wake & 0xf), 0, 0, 0 };

	return pt_put(b, p, sizeof(p));
}
