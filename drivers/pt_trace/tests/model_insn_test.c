// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the exact model's instruction decoder (model/insn_decode.c) on
 * encodings chosen for each rule of SDM Vol. 2 it relies on: lengths,
 * classes and targets, what 64-bit mode makes invalid, the 15-byte limit
 * and bytes that end too soon.  tests/host/run checks the same file
 * against objdump over every instruction of libc.
 */
#include <kunit/test.h>

#include "../model/insn_decode.h"

struct pt_insn_case {
	const char *what;
	u8 bytes[PT_INSN_MAX_LEN + 1];
	u8 n;			/* bytes given to the decoder */
	s8 len;			/* expected result */
	u8 cls;
	s32 rel;
	u8 rep;
};

#define C(w, l, c, r, ...) { .what = w, .bytes = { __VA_ARGS__ }, \
	.n = sizeof((u8[]){ __VA_ARGS__ }), .len = l, .cls = c, .rel = r }

static const struct pt_insn_case pt_insn_cases[] = {
	/* branches */
	C("jz rel8", 2, PT_INSN_JCC, -2, 0x74, 0xfe),
	C("jnz rel32", 6, PT_INSN_JCC, 0x100, 0x0f, 0x85, 0, 1, 0, 0),
	C("66 jz rel32: 66 ignored", 7, PT_INSN_JCC, 0,
	  0x66, 0x0f, 0x84, 0, 0, 0, 0),
	C("cs jz (hint)", 3, PT_INSN_JCC, 5, 0x2e, 0x74, 0x05),
	C("loop", 2, PT_INSN_LOOP, -3, 0xe2, 0xfd),
	C("loope", 2, PT_INSN_LOOP, 0, 0xe1, 0x00),
	C("loopne", 2, PT_INSN_LOOP, 0, 0xe0, 0x00),
	C("jrcxz", 2, PT_INSN_JRCXZ, 1, 0xe3, 0x01),
	C("jecxz", 3, PT_INSN_JRCXZ, 1, 0x67, 0xe3, 0x01),
	C("jmp rel8", 2, PT_INSN_JMP, -128, 0xeb, 0x80),
	C("jmp rel32", 5, PT_INSN_JMP, -0x80000000LL, 0xe9, 0, 0, 0, 0x80),
	C("66 jmp: still rel32", 6, PT_INSN_JMP, 0, 0x66, 0xe9, 0, 0, 0, 0),
	C("call rel32", 5, PT_INSN_CALL, 0x12345678, 0xe8, 0x78, 0x56, 0x34,
	  0x12),
	C("bnd call", 6, PT_INSN_CALL, 0, 0xf2, 0xe8, 0, 0, 0, 0),
	C("jmp *%rax", 2, PT_INSN_JMP_IND, 0, 0xff, 0xe0),
	C("notrack jmp *%rdx", 3, PT_INSN_JMP_IND, 0, 0x3e, 0xff, 0xe2),
	C("jmp *disp(%rip)", 6, PT_INSN_JMP_IND, 0, 0xff, 0x25, 1, 2, 3, 4),
	C("call *%r11", 3, PT_INSN_CALL_IND, 0, 0x41, 0xff, 0xd3),
	C("call *0x10(%rax,%rbx,4)", 4, PT_INSN_CALL_IND, 0,
	  0xff, 0x54, 0x98, 0x10),
	C("ljmp *(%rax)", 2, PT_INSN_JMP_FAR, 0, 0xff, 0x28),
	C("rex.W ljmp", 3, PT_INSN_JMP_FAR, 0, 0x48, 0xff, 0x28),
	C("lcall *8(%rbx)", 3, PT_INSN_CALL_FAR, 0, 0xff, 0x5b, 0x08),
	C("ret", 1, PT_INSN_RET, 0, 0xc3),
	C("ret $8", 3, PT_INSN_RET, 0, 0xc2, 0x08, 0x00),
	C("repz ret", 2, PT_INSN_RET, 0, 0xf3, 0xc3),
	C("lret", 1, PT_INSN_RET_FAR, 0, 0xcb),
	C("lret $16", 3, PT_INSN_RET_FAR, 0, 0xca, 0x10, 0x00),
	C("iretq", 2, PT_INSN_IRET, 0, 0x48, 0xcf),
	C("syscall", 2, PT_INSN_SYSCALL, 0, 0x0f, 0x05),
	C("sysretq", 3, PT_INSN_SYSRET, 0, 0x48, 0x0f, 0x07),
	C("sysenter", 2, PT_INSN_SYSENTER, 0, 0x0f, 0x34),
	C("sysexit", 2, PT_INSN_SYSEXIT, 0, 0x0f, 0x35),
	C("int $0x80", 2, PT_INSN_INT, 0, 0xcd, 0x80),
	C("int3", 1, PT_INSN_INT3, 0, 0xcc),
	C("int1", 1, PT_INSN_INT1, 0, 0xf1),
	C("ud2", 2, PT_INSN_UD, 0, 0x0f, 0x0b),
	C("ud1 (%rax),%eax", 3, PT_INSN_UD, 0, 0x0f, 0xb9, 0x00),
	C("ud0 %eax,%eax", 3, PT_INSN_UD, 0, 0x0f, 0xff, 0xc0),
	/* immediates */
	C("add $imm16,%ax", 4, PT_INSN_OTHER, 0, 0x66, 0x05, 0x34, 0x12),
	C("66 REX.W add: imm32", 7, PT_INSN_OTHER, 0,
	  0x66, 0x48, 0x05, 1, 2, 3, 4),
	C("REX.W mov imm64", 10, PT_INSN_OTHER, 0, 0x48, 0xb8, 1, 2, 3, 4, 5,
	  6, 7, 8),
	C("66 REX.W mov: imm64", 11, PT_INSN_OTHER, 0, 0x66, 0x48, 0xb8, 1, 2,
	  3, 4, 5, 6, 7, 8),
	C("mov $imm16,%ax", 4, PT_INSN_OTHER, 0, 0x66, 0xb8, 0x34, 0x12),
	C("REX before 66 is ignored", 5, PT_INSN_OTHER, 0,
	  0x48, 0x66, 0x05, 1, 2),
	C("testb $1,(%rax)", 3, PT_INSN_OTHER, 0, 0xf6, 0x00, 0x01),
	C("testl /1 alias", 6, PT_INSN_OTHER, 0, 0xf7, 0x08, 1, 2, 3, 4),
	C("testw", 6, PT_INSN_OTHER, 0, 0x66, 0xf7, 0x48, 0x10, 1, 2),
	C("notl (%rax): no imm", 2, PT_INSN_OTHER, 0, 0xf7, 0x10),
	C("movabs 0x...,%al", 9, PT_INSN_OTHER, 0, 0xa0, 1, 2, 3, 4, 5, 6, 7,
	  8),
	C("addr32 movabs", 6, PT_INSN_OTHER, 0, 0x67, 0xa1, 1, 2, 3, 4),
	C("enter", 4, PT_INSN_OTHER, 0, 0xc8, 0x10, 0x00, 0x03),
	C("pushw $imm16", 4, PT_INSN_OTHER, 0, 0x66, 0x68, 0x34, 0x12),
	C("imul $imm32", 6, PT_INSN_OTHER, 0, 0x69, 0xc0, 1, 2, 3, 4),
	C("xbegin rel32", 6, PT_INSN_OTHER, 0, 0xc7, 0xf8, 0, 0, 0, 0),
	C("xabort", 3, PT_INSN_OTHER, 0, 0xc6, 0xf8, 0x01),
	/* ModRM, SIB, displacements */
	C("mov (%rsp): SIB", 3, PT_INSN_OTHER, 0, 0x8b, 0x04, 0x24),
	C("mov 0(%rbp): disp8", 3, PT_INSN_OTHER, 0, 0x8b, 0x45, 0x00),
	C("mov disp32(%rip)", 6, PT_INSN_OTHER, 0, 0x8b, 0x05, 1, 2, 3, 4),
	C("SIB no base: disp32", 7, PT_INSN_OTHER, 0, 0x8b, 0x04, 0xcd, 1, 2,
	  3, 4),
	C("mod 2 SIB disp32", 7, PT_INSN_OTHER, 0, 0x8b, 0x84, 0x24, 1, 2, 3,
	  4),
	C("mov %cr0: mod ignored", 3, PT_INSN_OTHER, 0, 0x0f, 0x20, 0x00),
	C("movb $1,disp(%rip)", 7, PT_INSN_OTHER, 0, 0xc6, 0x05, 1, 2, 3, 4,
	  1),
	/* maps 0F38, 0F3A, x87 */
	C("pshufb", 5, PT_INSN_OTHER, 0, 0x66, 0x0f, 0x38, 0x00, 0xca),
	C("palignr $3, one byte spare", 6, PT_INSN_OTHER, 0, 0x66, 0x0f, 0x3a,
	  0x0f, 0xca, 0x03, 0x90),
	C("pshufd $0x1b", 5, PT_INSN_OTHER, 0, 0x66, 0x0f, 0x70, 0xd1, 0x1b),
	C("endbr64", 4, PT_INSN_OTHER, 0, 0xf3, 0x0f, 0x1e, 0xfa),
	C("bswap %eax", 2, PT_INSN_OTHER, 0, 0x0f, 0xc8),
	C("fldt (%rax)", 2, PT_INSN_OTHER, 0, 0xdb, 0x28),
	/* VEX and EVEX */
	C("vzeroupper: no ModRM", 3, PT_INSN_OTHER, 0, 0xc5, 0xf8, 0x77),
	C("vmovdqu (%rax),%ymm0", 4, PT_INSN_OTHER, 0, 0xc5, 0xfe, 0x6f,
	  0x00),
	C("vpermq $imm (C4 map 3)", 6, PT_INSN_OTHER, 0, 0xc4, 0xe3, 0xfd,
	  0x00, 0xd1, 0x1b),
	C("vpshufd $imm (map 1)", 5, PT_INSN_OTHER, 0, 0xc5, 0xfd, 0x70, 0xd1,
	  0x01),
	C("shlx (C4 map 2)", 5, PT_INSN_OTHER, 0, 0xc4, 0x42, 0xb1, 0xf7,
	  0xda),
	C("vmovdqu64 0x40(%rax): disp8*N", 7, PT_INSN_OTHER, 0,
	  0x62, 0xf1, 0xfe, 0x48, 0x6f, 0x40, 0x01),
	C("vpternlogd $imm (EVEX map 3)", 7, PT_INSN_OTHER, 0,
	  0x62, 0xf3, 0x6d, 0x48, 0x25, 0xd9, 0x96),
	C("vaddph (EVEX map 5)", 6, PT_INSN_OTHER, 0,
	  0x62, 0xf5, 0x6c, 0x48, 0x58, 0xd9),
	/* rep string instructions */
	C("rep movsb", 2, PT_INSN_OTHER, 0, 0xf3, 0xa4),
	C("rep stosq", 3, PT_INSN_OTHER, 0, 0xf3, 0x48, 0xab),
	C("repne scasb", 2, PT_INSN_OTHER, 0, 0xf2, 0xae),
	/* the longest legal instruction: 15 bytes */
	C("15 bytes", 15, PT_INSN_OTHER, 0, 0x66, 0x66, 0x66, 0x66, 0x66,
	  0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00),
	/* invalid in 64-bit mode */
	C("push %es", 0, PT_INSN_INVALID, 0, 0x06),
	C("aaa", 0, PT_INSN_INVALID, 0, 0x37),
	C("far call ptr16:32 (9A)", 0, PT_INSN_INVALID, 0, 0x9a, 1, 2, 3, 4,
	  5, 6),
	C("far jmp ptr16:32 (EA)", 0, PT_INSN_INVALID, 0, 0xea, 1, 2, 3, 4, 5,
	  6),
	C("into", 0, PT_INSN_INVALID, 0, 0xce),
	C("aam", 0, PT_INSN_INVALID, 0, 0xd4, 0x0a),
	C("82 /0", 0, PT_INSN_INVALID, 0, 0x82, 0xc0, 0x01),
	C("FE /2", 0, PT_INSN_INVALID, 0, 0xfe, 0xd0),
	C("FF /7", 0, PT_INSN_INVALID, 0, 0xff, 0xf8),
	C("FF /3 register", 0, PT_INSN_INVALID, 0, 0xff, 0xd8),
	C("FF /5 register", 0, PT_INSN_INVALID, 0, 0xff, 0xe8),
	C("C7 /1", 0, PT_INSN_INVALID, 0, 0xc7, 0xc8, 1, 2, 3, 4),
	C("3DNow! (AMD)", 0, PT_INSN_INVALID, 0, 0x0f, 0x0f, 0xc1, 0xb4),
	C("66 before VEX", 0, PT_INSN_INVALID, 0, 0x66, 0xc5, 0xf8, 0x77),
	C("REX before VEX", 0, PT_INSN_INVALID, 0, 0x40, 0xc5, 0xf8, 0x77),
	C("VEX map 4", 0, PT_INSN_INVALID, 0, 0xc4, 0xe4, 0x7d, 0x00, 0xc0),
	C("EVEX P1 bit 2 clear", 0, PT_INSN_INVALID, 0,
	  0x62, 0xf1, 0xfa, 0x48, 0x6f, 0x00),
	C("16 bytes", 0, PT_INSN_INVALID, 0, 0x66, 0x66, 0x66, 0x66, 0x66,
	  0x66, 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00),
	C("15 prefixes", 0, PT_INSN_INVALID, 0, 0x66, 0x66, 0x66, 0x66, 0x66,
	  0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66),
	/* the bytes end too soon */
	C("call cut", PT_INSN_TRUNCATED, PT_INSN_INVALID, 0, 0xe8, 0, 0),
	C("0F cut", PT_INSN_TRUNCATED, PT_INSN_INVALID, 0, 0x0f),
	C("prefixes cut", PT_INSN_TRUNCATED, PT_INSN_INVALID, 0, 0x66, 0xf3),
	C("SIB cut", PT_INSN_TRUNCATED, PT_INSN_INVALID, 0, 0x8b, 0x04),
	C("disp cut", PT_INSN_TRUNCATED, PT_INSN_INVALID, 0, 0x8b, 0x05, 1),
	C("VEX cut", PT_INSN_TRUNCATED, PT_INSN_INVALID, 0, 0xc4, 0xe3),
	C("EVEX cut", PT_INSN_TRUNCATED, PT_INSN_INVALID, 0, 0x62, 0xf1, 0xfe),
	C("imm64 cut", PT_INSN_TRUNCATED, PT_INSN_INVALID, 0, 0x48, 0xb8, 1),
};

#undef C

static void pt_insn_cases_test(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pt_insn_cases); i++) {
		const struct pt_insn_case *c = &pt_insn_cases[i];
		struct pt_insn in;
		int len = pt_insn_decode(c->bytes, c->n, &in);

		KUNIT_EXPECT_EQ_MSG(test, len, c->len, "%s", c->what);
		KUNIT_EXPECT_EQ_MSG(test, in.cls, c->cls, "%s", c->what);
		KUNIT_EXPECT_EQ_MSG(test, in.rel, c->rel, "%s", c->what);
		KUNIT_EXPECT_EQ_MSG(test, in.len, len > 0 ? len : 0, "%s",
				    c->what);
	}
}

/* rep marks string instructions only; targets add ip + len + rel. */
static void pt_insn_rep_target_test(struct kunit *test)
{
	static const u8 rep_movsb[] = { 0xf3, 0xa4 };
	static const u8 popcnt[] = { 0xf3, 0x0f, 0xb8, 0xc1 };
	static const u8 jmp_back[] = { 0xeb, 0xfe };
	static const u8 call[] = { 0xe8, 0x00, 0x01, 0x00, 0x00 };
	struct pt_insn in;

	KUNIT_EXPECT_EQ(test, pt_insn_decode(rep_movsb, 2, &in), 2);
	KUNIT_EXPECT_EQ(test, in.rep, 1);
	KUNIT_EXPECT_EQ(test, pt_insn_decode(rep_movsb + 1, 1, &in), 1);
	KUNIT_EXPECT_EQ(test, in.rep, 0);
	KUNIT_EXPECT_EQ(test, pt_insn_decode(popcnt, 4, &in), 4);
	KUNIT_EXPECT_EQ(test, in.rep, 0);
	KUNIT_EXPECT_EQ(test, pt_insn_decode(jmp_back, 2, &in), 2);
	KUNIT_EXPECT_EQ(test, pt_insn_target(0x401000, &in), 0x401000ULL);
	KUNIT_EXPECT_EQ(test, pt_insn_decode(call, 5, &in), 5);
	KUNIT_EXPECT_EQ(test, pt_insn_target(0x7ffff7fc0000ULL, &in),
			0x7ffff7fc0105ULL);
	/* more bytes than the instruction needs change nothing */
	KUNIT_EXPECT_EQ(test, pt_insn_decode(call, 3, &in), PT_INSN_TRUNCATED);
	KUNIT_EXPECT_TRUE(test, pt_insn_is_cond(PT_INSN_LOOP));
	KUNIT_EXPECT_FALSE(test, pt_insn_is_cond(PT_INSN_JMP));
	KUNIT_EXPECT_STREQ(test, pt_insn_class_name(PT_INSN_CALL_IND),
			   "call.ind");
	KUNIT_EXPECT_STREQ(test, pt_insn_class_name(PT_INSN_NR_CLASSES), "?");
}

static struct kunit_case pt_model_insn_cases[] = {
	KUNIT_CASE(pt_insn_cases_test),
	KUNIT_CASE(pt_insn_rep_target_test),
	{}
};

static struct kunit_suite pt_model_insn_suite = {
	.name = "pt_model_insn",
	.test_cases = pt_model_insn_cases,
};

kunit_test_suite(pt_model_insn_suite);
