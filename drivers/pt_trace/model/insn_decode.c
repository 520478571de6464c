// SPDX-License-Identifier: GPL-2.0
/*
 * x86-64 instruction lengths and branch classes for the exact model; see
 * insn_decode.h.  The opcode maps are those of SDM Vol. 2D, Appendix A
 * (Tables ), read for 64-bit mode.  An instruction is
 *
 *   [legacy prefixes] [REX] opcode [ModRM [SIB] [disp]] [imm]
 *   [legacy prefixes] C4/C5/62 payload opcode ModRM [SIB] [disp] [imm]
 *
 * and its length only needs, per opcode, whether a ModRM byte follows
 * and what immediate does; those are the tables below.
 */
#include "insn_decode.h"

/* Per-opcode attributes. */
#define A_MODRM		0x01	/* a ModRM byte follows */
#define A_MODRM_REG	0x02	/* ModRM whose mod is ignored: no SIB/disp */
#define A_BAD		0x04	/* no such opcode in 64-bit mode */
#define A_PREFIX	0x08	/* a legacy prefix */
#define A_IMM		0x70	/* the immediate, one of: */
#define I_B		0x10	/* imm8 or rel8 */
#define I_W		0x20	/* imm16 */
#define I_Z		0x30	/* imm16 with 66 (and no REX.W), else imm32 */
#define I_V		0x40	/* imm16/32/64 by operand size (B8-BF) */
#define I_D		0x50	/* rel32: Intel ignores 66 on near branches */
#define I_WB		0x60	/* imm16 then imm8 (ENTER) */
#define I_O		0x70	/* moffs: 8 bytes, 4 with 67 (A0-A3) */

/* Short names for the tables only. */
#define NO	0
#define XX	A_BAD
#define PF	A_PREFIX
#define MR	A_MODRM
#define MG	A_MODRM_REG
#define MB	(A_MODRM | I_B)
#define MZ	(A_MODRM | I_Z)
#define IB	I_B
#define IW	I_W
#define IZ	I_Z
#define IV	I_V
#define ID	I_D
#define WB	I_WB
#define IO	I_O

/*
 * One-byte opcodes (Table A-2).  0F, 40-4F (REX), 62 (EVEX), C4/C5 (VEX)
 * are handled before the table is read.  F6/F7 /0-/1 take an immediate,
 * FE/FF/8F/C6/C7 have invalid /reg: see pt_insn_group().
 */
static const u8 pt_map1[256] = {
/*	 0   1   2   3   4   5   6   7   8   9   a   b   c   d   e   f */
/* 0 */	MR, MR, MR, MR, IB, IZ, XX, XX, MR, MR, MR, MR, IB, IZ, XX, NO,
/* 1 */	MR, MR, MR, MR, IB, IZ, XX, XX, MR, MR, MR, MR, IB, IZ, XX, XX,
/* 2 */	MR, MR, MR, MR, IB, IZ, PF, XX, MR, MR, MR, MR, IB, IZ, PF, XX,
/* 3 */	MR, MR, MR, MR, IB, IZ, PF, XX, MR, MR, MR, MR, IB, IZ, PF, XX,
/* 4 */	NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO,
/* 5 */	NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO,
/* 6 */	XX, XX, NO, MR, PF, PF, PF, PF, IZ, MZ, IB, MB, NO, NO, NO, NO,
/* 7 */	IB, IB, IB, IB, IB, IB, IB, IB, IB, IB, IB, IB, IB, IB, IB, IB,
/* 8 */	MB, MZ, XX, MB, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR,
/* 9 */	NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, XX, NO, NO, NO, NO, NO,
/* a */	IO, IO, IO, IO, NO, NO, NO, NO, IB, IZ, NO, NO, NO, NO, NO, NO,
/* b */	IB, IB, IB, IB, IB, IB, IB, IB, IV, IV, IV, IV, IV, IV, IV, IV,
/* c */	MB, MB, IW, NO, NO, NO, MB, MZ, WB, NO, IW, NO, NO, IB, XX, NO,
/* d */	MR, MR, MR, MR, XX, XX, XX, NO, MR, MR, MR, MR, MR, MR, MR, MR,
/* e */	IB, IB, IB, IB, IB, IB, IB, IB, ID, ID, XX, IB, NO, NO, NO, NO,
/* f */	PF, NO, PF, PF, NO, NO, MR, MR, NO, NO, NO, NO, NO, NO, MR, MR,
};

/*
 * Two-byte opcodes 0F xx (Table A-3).  0F 38 and 0F 3A escape to maps
 * whose every opcode has a ModRM (and, for 0F 3A, an imm8).  0F 0E/0F
 * (3DNow!) and the AMD-only SSE4a forms do not exist on Intel.
 */
static const u8 pt_map2[256] = {
/*	 0   1   2   3   4   5   6   7   8   9   a   b   c   d   e   f */
/* 0 */	MR, MR, MR, MR, XX, NO, NO, NO, NO, NO, XX, NO, XX, MR, XX, XX,
/* 1 */	MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR,
/* 2 */	MG, MG, MG, MG, XX, XX, XX, XX, MR, MR, MR, MR, MR, MR, MR, MR,
/* 3 */	NO, NO, NO, NO, NO, NO, XX, NO, NO, XX, NO, XX, XX, XX, XX, XX,
/* 4 */	MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR,
/* 5 */	MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR,
/* 6 */	MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR,
/* 7 */	MB, MB, MB, MB, MR, MR, MR, NO, MR, MR, XX, XX, MR, MR, MR, MR,
/* 8 */	ID, ID, ID, ID, ID, ID, ID, ID, ID, ID, ID, ID, ID, ID, ID, ID,
/* 9 */	MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR,
/* a */	NO, NO, NO, MR, MB, MR, XX, XX, NO, NO, NO, MR, MB, MR, MR, MR,
/* b */	MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MB, MR, MR, MR, MR, MR,
/* c */	MR, MR, MB, MR, MB, MB, MB, MR, NO, NO, NO, NO, NO, NO, NO, NO,
/* d */	MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR,
/* e */	MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR,
/* f */	MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR,
};

#undef NO
#undef XX
#undef PF
#undef MR
#undef MG
#undef MB
#undef MZ
#undef IB
#undef IW
#undef IZ
#undef IV
#undef ID
#undef WB
#undef IO

/* The opcode maps as VEX.mmmmm / EVEX.mmm number them, and VEX/EVEX. */
enum {
	PT_MAP_1BYTE,
	PT_MAP_0F,
	PT_MAP_0F38,
	PT_MAP_0F3A,
	PT_MAP_5 = 5,
	PT_MAP_6,
	PT_MAP_VEX,
};

/* The decoder's state while it walks one instruction. */
struct pt_dec {
	const u8 *buf;
	unsigned int avail;
	unsigned int n;		/* bytes consumed */
	int err;		/* 0, or how it failed */
	bool opsize16;		/* 66 */
	bool addr32;		/* 67 */
	bool rep;		/* F2 or F3 */
	bool vex_bad;		/* 66, F2, F3, F0 or REX before VEX/EVEX */
	u8 rex;
};

/*
 * Make n more bytes available, or say why not: past 15 bytes is no
 * instruction (#GP on silicon), past avail needs more bytes.
 */
static bool pt_need(struct pt_dec *d, unsigned int n)
{
	if (d->n + n > PT_INSN_MAX_LEN) {
		d->err = 0;
		return false;
	}
	if (d->n + n > d->avail) {
		d->err = PT_INSN_TRUNCATED;
		return false;
	}
	return true;
}

/* Legacy prefixes then REX; returns false at 15 bytes or the end. */
static bool pt_prefixes(struct pt_dec *d)
{
	for (;;) {
		u8 b;

		if (!pt_need(d, 1))
			return false;
		b = d->buf[d->n];
		if ((b & 0xf0) == 0x40) {
			d->rex = b;
		} else if (pt_map1[b] & A_PREFIX) {
			/* A REX not right before the opcode is ignored. */
			d->rex = 0;
			if (b == 0x66)
				d->opsize16 = true;
			else if (b == 0x67)
				d->addr32 = true;
			else if (b == 0xf2 || b == 0xf3)
				d->rep = true;
			if (b == 0x66 || b == 0xf0 || b == 0xf2 || b == 0xf3)
				d->vex_bad = true;
		} else {
			return true;
		}
		d->n++;
	}
}

/* VEX (C4, C5) or EVEX (62): returns the map, 0 if invalid. */
static unsigned int pt_vex(struct pt_dec *d, u8 esc)
{
	unsigned int map;

	if (d->vex_bad || d->rex)
		return 0;
	if (esc == 0xc5) {
		if (!pt_need(d, 1))
			return 0;
		d->n++;
		return PT_MAP_0F;
	}
	if (esc == 0xc4) {
		if (!pt_need(d, 2))
			return 0;
		map = d->buf[d->n] & 0x1f;
		d->n += 2;
		return map >= PT_MAP_0F && map <= PT_MAP_0F3A ? map : 0;
	}
	/* EVEX: P0 bit 3 must be 0 and P1 bit 2 must be 1 (no APX). */
	if (!pt_need(d, 3))
		return 0;
	map = d->buf[d->n] & 0x07;
	if ((d->buf[d->n] & 0x08) || !(d->buf[d->n + 1] & 0x04))
		return 0;
	d->n += 3;
	if (map == PT_MAP_0F || map == PT_MAP_0F38 || map == PT_MAP_0F3A ||
	    map == PT_MAP_5 || map == PT_MAP_6)
		return map;
	return 0;
}

/* Attributes of a VEX/EVEX opcode: all have ModRM but vzero{upper,all}. */
static u8 pt_vex_attr(unsigned int map, u8 op)
{
	if (map == PT_MAP_0F3A)
		return A_MODRM | I_B;
	if (map != PT_MAP_0F)
		return A_MODRM;
	if (op == 0x77)
		return 0;
	if ((op >= 0x70 && op <= 0x73) || op == 0xc2 ||
	    (op >= 0xc4 && op <= 0xc6))
		return A_MODRM | I_B;
	return A_MODRM;
}

/* ModRM, SIB and displacement; 64-bit mode has no 16-bit addressing. */
static bool pt_modrm(struct pt_dec *d, u8 attr, u8 *modrm)
{
	unsigned int mod, rm, disp = 0;

	if (!pt_need(d, 1))
		return false;
	*modrm = d->buf[d->n++];
	if (attr & A_MODRM_REG)
		return true;
	mod = *modrm >> 6;
	rm = *modrm & 7;
	if (mod == 3)
		return true;
	if (rm == 4) {
		if (!pt_need(d, 1))
			return false;
		if (mod == 0 && (d->buf[d->n] & 7) == 5)
			disp = 4;	/* SIB base 101: disp32, no base */
		d->n++;
	}
	if (mod == 0 && rm == 5)
		disp = 4;		/* RIP-relative */
	else if (mod == 1)
		disp = 1;
	else if (mod == 2)
		disp = 4;
	if (!pt_need(d, disp))
		return false;
	d->n += disp;
	return true;
}

/*
 * One-byte opcodes whose /reg decides: an immediate (F6, F7 /0-/1), or
 * no instruction at all.  Returns the attributes, A_BAD if invalid.
 */
static u8 pt_group(u8 op, u8 modrm, u8 attr)
{
	unsigned int reg = (modrm >> 3) & 7;

	switch (op) {
	case 0xf6:
		return reg < 2 ? attr | I_B : attr;
	case 0xf7:
		return reg < 2 ? attr | I_Z : attr;
	case 0xfe:
		return reg < 2 ? attr : A_BAD;
	case 0xff:
		if (reg == 7 || ((reg == 3 || reg == 5) && modrm >> 6 == 3))
			return A_BAD;
		return attr;
	case 0x8f:
		return reg == 0 ? attr : A_BAD;
	case 0xc6:
	case 0xc7:
		/* mov /0; xabort, xbegin are /7 with ModRM F8 only */
		return reg == 0 || modrm == 0xf8 ? attr : A_BAD;
	}
	return attr;
}

static unsigned int pt_imm_size(const struct pt_dec *d, u8 attr)
{
	bool w = d->rex & 0x08;

	switch (attr & A_IMM) {
	case I_B:
		return 1;
	case I_W:
		return 2;
	case I_Z:
		return d->opsize16 && !w ? 2 : 4;
	case I_V:
		return w ? 8 : d->opsize16 ? 2 : 4;
	case I_D:
		return 4;
	case I_WB:
		return 3;
	case I_O:
		return d->addr32 ? 4 : 8;
	}
	return 0;
}

static u8 pt_class_1byte(u8 op, u8 modrm)
{
	if (op >= 0x70 && op <= 0x7f)
		return PT_INSN_JCC;
	switch (op) {
	case 0xe0:
	case 0xe1:
	case 0xe2:
		return PT_INSN_LOOP;
	case 0xe3:
		return PT_INSN_JRCXZ;
	case 0xe8:
		return PT_INSN_CALL;
	case 0xe9:
	case 0xeb:
		return PT_INSN_JMP;
	case 0xc2:
	case 0xc3:
		return PT_INSN_RET;
	case 0xca:
	case 0xcb:
		return PT_INSN_RET_FAR;
	case 0xcc:
		return PT_INSN_INT3;
	case 0xcd:
		return PT_INSN_INT;
	case 0xf1:
		return PT_INSN_INT1;
	case 0xcf:
		return PT_INSN_IRET;
	case 0xff:
		switch ((modrm >> 3) & 7) {
		case 2:
			return PT_INSN_CALL_IND;
		case 3:
			return PT_INSN_CALL_FAR;
		case 4:
			return PT_INSN_JMP_IND;
		case 5:
			return PT_INSN_JMP_FAR;
		}
	}
	return PT_INSN_OTHER;
}

static u8 pt_class_0f(u8 op)
{
	if (op >= 0x80 && op <= 0x8f)
		return PT_INSN_JCC;
	switch (op) {
	case 0x05:
		return PT_INSN_SYSCALL;
	case 0x07:
		return PT_INSN_SYSRET;
	case 0x34:
		return PT_INSN_SYSENTER;
	case 0x35:
		return PT_INSN_SYSEXIT;
	case 0x0b:
	case 0xb9:
	case 0xff:
		return PT_INSN_UD;
	}
	return PT_INSN_OTHER;
}

/* ins, outs, movs, cmps, stos, lods, scas: the ones rep repeats. */
static bool pt_is_string_op(u8 op)
{
	return (op >= 0x6c && op <= 0x6f) || (op >= 0xa4 && op <= 0xa7) ||
	       (op >= 0xaa && op <= 0xaf);
}

static int pt_fail(struct pt_dec *d, struct pt_insn *in)
{
	in->len = 0;
	in->cls = PT_INSN_INVALID;
	in->rep = 0;
	in->rel = 0;
	return d->err;
}

int pt_insn_decode(const u8 *buf, unsigned int avail, struct pt_insn *in)
{
	struct pt_dec d = { .buf = buf, .avail = avail };
	unsigned int map = PT_MAP_1BYTE, imm;
	u8 op, attr, modrm = 0;

	if (!pt_prefixes(&d))
		return pt_fail(&d, in);
	op = buf[d.n++];
	if (op == 0x0f) {
		if (!pt_need(&d, 1))
			return pt_fail(&d, in);
		op = buf[d.n++];
		map = PT_MAP_0F;
		attr = pt_map2[op];
		if (op == 0x38 || op == 0x3a) {
			map = op == 0x38 ? PT_MAP_0F38 : PT_MAP_0F3A;
			attr = op == 0x38 ? A_MODRM : A_MODRM | I_B;
			if (!pt_need(&d, 1))
				return pt_fail(&d, in);
			op = buf[d.n++];
		}
	} else if (op == 0xc4 || op == 0xc5 || op == 0x62) {
		map = pt_vex(&d, op);
		if (!map || !pt_need(&d, 1))
			return pt_fail(&d, in);
		op = buf[d.n++];
		attr = pt_vex_attr(map, op);
		map = PT_MAP_VEX;	/* no branch is VEX/EVEX encoded */
	} else {
		attr = pt_map1[op];
	}
	if (attr & A_BAD)
		return pt_fail(&d, in);
	if (attr & (A_MODRM | A_MODRM_REG)) {
		if (!pt_modrm(&d, attr, &modrm))
			return pt_fail(&d, in);
		if (map == PT_MAP_1BYTE)
			attr = pt_group(op, modrm, attr);
		if (attr & A_BAD)
			return pt_fail(&d, in);
	}
	imm = pt_imm_size(&d, attr);
	if (!pt_need(&d, imm))
		return pt_fail(&d, in);

	in->len = d.n + imm;
	in->rep = 0;
	in->rel = 0;
	if (map == PT_MAP_1BYTE) {
		in->cls = pt_class_1byte(op, modrm);
		in->rep = d.rep && pt_is_string_op(op);
	} else if (map == PT_MAP_0F) {
		in->cls = pt_class_0f(op);
	} else {
		in->cls = PT_INSN_OTHER;
	}
	if (pt_insn_is_direct(in->cls)) {
		const u8 *p = buf + d.n;

		in->rel = imm == 1 ? (s8)p[0] :
			  (s32)(p[0] | p[1] << 8 | p[2] << 16 | (u32)p[3] << 24);
	}
	return in->len;
}

const char *pt_insn_class_name(unsigned int cls)
{
	static const char *const names[PT_INSN_NR_CLASSES] = {
		[PT_INSN_OTHER] = "other",
		[PT_INSN_JCC] = "jcc",
		[PT_INSN_LOOP] = "loop",
		[PT_INSN_JRCXZ] = "jrcxz",
		[PT_INSN_JMP] = "jmp",
		[PT_INSN_CALL] = "call",
		[PT_INSN_JMP_IND] = "jmp.ind",
		[PT_INSN_CALL_IND] = "call.ind",
		[PT_INSN_RET] = "ret",
		[PT_INSN_RET_FAR] = "ret.far",
		[PT_INSN_JMP_FAR] = "jmp.far",
		[PT_INSN_CALL_FAR] = "call.far",
		[PT_INSN_SYSCALL] = "syscall",
		[PT_INSN_SYSRET] = "sysret",
		[PT_INSN_SYSENTER] = "sysenter",
		[PT_INSN_SYSEXIT] = "sysexit",
		[PT_INSN_INT] = "int",
		[PT_INSN_INT3] = "int3",
		[PT_INSN_INT1] = "int1",
		[PT_INSN_IRET] = "iret",
		[PT_INSN_UD] = "ud",
		[PT_INSN_INVALID] = "invalid",
	};

	return cls < PT_INSN_NR_CLASSES ? names[cls] : "?";
}
