/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An x86-64 instruction-length decoder and branch classifier for the
 * exact model: how long the instruction at an IP is and whether (and how)
 * it changes the flow of control, which is all that decides the packets
 * Intel PT emits for it (SDM Vol. 3C, 33.4.2 "Packet generation" lists
 * the branch kinds).  The kernel's own decoder (arch/x86/lib/insn.c) is
 * not exported to modules, hence this one.
 *
 * 64-bit mode only, Intel semantics (a 66 prefix does not shorten a near
 * jcc/jmp/call; 9A, EA, CE, C4/C5 as LES/LDS, etc. do not exist).  Pure C
 * over <linux/types.h>: no kernel state, so KUnit tests it in the module
 * and tests/host compiles the same file to compare it with objdump over
 * every instruction of libc.
 */
#ifndef _PT_TRACE_MODEL_INSN_DECODE_H
#define _PT_TRACE_MODEL_INSN_DECODE_H

#include <linux/types.h>

/* The longest legal x86 instruction; longer encodings #GP. */
#define PT_INSN_MAX_LEN		15

/* pt_insn_decode()'s result when the bytes end before the instruction. */
#define PT_INSN_TRUNCATED	(-1)

enum pt_insn_class {
	PT_INSN_OTHER,		/* no change of flow */
	PT_INSN_JCC,		/* jcc rel8 (70-7F), rel32 (0F 80-8F) */
	PT_INSN_LOOP,		/* loop, loope, loopne rel8 (E0-E2) */
	PT_INSN_JRCXZ,		/* jrcxz/jecxz rel8 (E3) */
	PT_INSN_JMP,		/* jmp rel8/rel32 (EB, E9) */
	PT_INSN_CALL,		/* call rel32 (E8) */
	PT_INSN_JMP_IND,	/* jmp r/m64 (FF /4) */
	PT_INSN_CALL_IND,	/* call r/m64 (FF /2) */
	PT_INSN_RET,		/* near ret, ret imm16 (C3, C2) */
	PT_INSN_RET_FAR,	/* far ret, ret imm16 (CB, CA) */
	PT_INSN_JMP_FAR,	/* jmp m16:32/64 (FF /5, memory only) */
	PT_INSN_CALL_FAR,	/* call m16:32/64 (FF /3, memory only) */
	PT_INSN_SYSCALL,	/* 0F 05 */
	PT_INSN_SYSRET,		/* 0F 07 */
	PT_INSN_SYSENTER,	/* 0F 34 */
	PT_INSN_SYSEXIT,	/* 0F 35 */
	PT_INSN_INT,		/* int imm8 (CD) */
	PT_INSN_INT3,		/* CC */
	PT_INSN_INT1,		/* F1 (icebp) */
	PT_INSN_IRET,		/* CF (iret, iretq with REX.W) */
	PT_INSN_UD,		/* ud0, ud1, ud2: valid, always #UD */
	PT_INSN_INVALID,	/* no such instruction in 64-bit mode */
	PT_INSN_NR_CLASSES
};

struct pt_insn {
	u8 len;			/* 1..15 */
	u8 cls;			/* enum pt_insn_class */
	/*
	 * A string instruction with a rep/repne prefix: it runs (and
	 * single-steps) once per iteration, while PT reports it once.
	 */
	u8 rep;
	s32 rel;		/* direct branches: target = ip + len + rel */
};

/*
 * Decode the instruction in buf[0..avail).  Returns its length (1..15)
 * and fills *in; 0 when the bytes are no instruction in 64-bit mode (in
 * then says PT_INSN_INVALID and len is 0); PT_INSN_TRUNCATED when avail
 * ends before the instruction does (read more bytes and retry).
 */
int pt_insn_decode(const u8 *buf, unsigned int avail, struct pt_insn *in);

/* Conditional branches: each is one TNT bit. */
static inline bool pt_insn_is_cond(unsigned int cls)
{
	return cls == PT_INSN_JCC || cls == PT_INSN_LOOP ||
	       cls == PT_INSN_JRCXZ;
}

/* Branches with the target in the instruction (taken or not). */
static inline bool pt_insn_is_direct(unsigned int cls)
{
	return pt_insn_is_cond(cls) || cls == PT_INSN_JMP ||
	       cls == PT_INSN_CALL;
}

static inline u64 pt_insn_target(u64 ip, const struct pt_insn *in)
{
	return ip + in->len + (s64)in->rel;
}

/* A short lower-case name for each class ("jcc", "call.ind", ...). */
const char *pt_insn_class_name(unsigned int cls);

#endif /* _PT_TRACE_MODEL_INSN_DECODE_H */
