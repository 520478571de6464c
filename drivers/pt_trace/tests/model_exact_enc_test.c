// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the exact model's packet encoder (model/exact_enc.c) emits the
 * bytes of libipt's test/src/ *.ptt sequences for the same instruction
 * flows: syscall-sysret-cpl_3, int-iret-cpl_3, loop-tnt-64, the
 * call/ret compression cases, the 64-deep call stack, IP filtering
 * (tip_pgd-tnt_taken) and TraceStop (fup-tip_pgd-stop).  tests/host/run
 * checks the same file end to end: ptrace-stepped programs, encoded and
 * decoded back by libipt.
 */
#include <kunit/test.h>

#include "../model/exact_enc.h"

#define PT_EXPECT_BYTES(test, got, want, n) \
	KUNIT_EXPECT_EQ(test, memcmp(got, want, n), 0)

/* @b (over @buf) holds exactly the @n bytes of @want. */
static void pt_expect_packets(struct kunit *test, const struct pt_pkt_buf *b,
			      const u8 *buf, const u8 *want, u32 n)
{
	KUNIT_EXPECT_EQ(test, b->len, n);
	PT_EXPECT_BYTES(test, buf, want, n);
}

#define L1	0x100000ULL

static const struct pt_exact_cfg pt_cfg = { .branch_en = true };

static struct pt_insn pt_mk(u8 cls, u8 len, s32 rel)
{
	return (struct pt_insn){ .len = len, .cls = cls, .rel = rel };
}

/* A new encoder, out of the traced context, and @b empty over @buf. */
static void pt_fresh(struct pt_exact_enc *e, const struct pt_exact_cfg *cfg,
		     struct pt_pkt_buf *b, u8 *buf, u32 size)
{
	pt_exact_enc_init(e, cfg);
	pt_pkt_init(b, buf, size);
}

/*
 * An encoder in the traced context at L1 with @b emptied after the
 * enter's packets (last IP L1): what the test encodes next is all @b
 * holds.
 */
static void pt_entered(struct pt_exact_enc *e, const struct pt_exact_cfg *cfg,
		       struct pt_pkt_buf *b, u8 *buf, u32 size)
{
	pt_fresh(e, cfg, b, buf, size);
	pt_exact_enc_enter(e, b, L1);
	pt_pkt_init(b, buf, size);
	b->last_ip = L1;
}

/*
 * syscall-sysret-cpl_3.ptt: the syscall disables with a suppressed
 * TIP.PGD and no FUP; the return enables with TIP.PGE, MODE.Exec only
 * at the first enable after a PSB+ that had none.
 */
static void pt_exact_syscall_test(struct kunit *test)
{
	static const u8 want[] = {
		0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
		0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
		0x02, 0x23,				/* PSBEND */
		0x99, 0x01,				/* MODE.Exec 64 */
		0x51, 0x00, 0x00, 0x10, 0x00,		/* PGE(2: l1) */
		0x01,					/* PGD(0) */
		0x31, 0x02, 0x00,			/* PGE(1: l2) */
	};
	struct pt_insn sys = pt_mk(PT_INSN_SYSCALL, 2, 0);
	struct pt_exact_enc e;
	struct pt_pkt_buf b;
	u8 buf[64];

	pt_fresh(&e, &pt_cfg, &b, buf, sizeof(buf));
	KUNIT_EXPECT_EQ(test, pt_exact_enc_psb_begin(&e, &b), 16U);
	KUNIT_EXPECT_EQ(test, pt_exact_enc_psb_end(&e, &b, L1), 2U);
	KUNIT_EXPECT_EQ(test, pt_exact_enc_enter(&e, &b, L1), 7U);
	KUNIT_EXPECT_TRUE(test, e.in);
	KUNIT_EXPECT_EQ(test, pt_exact_enc_insn(&e, &b, L1, &sys,
						0xffffffff81000000ULL), 1U);
	KUNIT_EXPECT_FALSE(test, e.in);
	KUNIT_EXPECT_EQ(test, pt_exact_enc_enter(&e, &b, L1 + 2), 3U);
	pt_expect_packets(test, &b, buf, want, sizeof(want));
	KUNIT_EXPECT_EQ(test, e.unclassified, 0ULL);
	KUNIT_EXPECT_EQ(test, e.misuse, 0ULL);
}

/*
 * int-iret-cpl_3.ptt: a software interrupt is FUP(its IP) + TIP.PGD;
 * pending TNT bits go out first.  An interrupt is the same sequence.
 */
static void pt_exact_int_test(struct kunit *test)
{
	static const u8 want[] = {
		0x99, 0x01, 0x51, 0x00, 0x00, 0x10, 0x00,
		0x06,				/* TNT 1 bit: t */
		0x3d, 0x04, 0x00,		/* FUP(1: l1+4) */
		0x01,				/* PGD(0) */
		0x31, 0x06, 0x00,		/* PGE(1: l1+6) */
		0x3d, 0x08, 0x00, 0x01,		/* async: FUP(1: l1+8), PGD */
	};
	struct pt_insn jcc = pt_mk(PT_INSN_JCC, 2, 2);
	struct pt_insn intn = pt_mk(PT_INSN_INT, 2, 0);
	struct pt_exact_enc e;
	struct pt_pkt_buf b;
	u8 buf[64];

	pt_fresh(&e, &pt_cfg, &b, buf, sizeof(buf));
	pt_exact_enc_enter(&e, &b, L1);
	KUNIT_EXPECT_EQ(test, pt_exact_enc_insn(&e, &b, L1, &jcc, L1 + 4), 0U);
	KUNIT_EXPECT_EQ(test, e.tnt_n, 1U);
	KUNIT_EXPECT_EQ(test, pt_exact_enc_insn(&e, &b, L1 + 4, &intn,
						0xffffffff81000000ULL), 5U);
	pt_exact_enc_enter(&e, &b, L1 + 6);
	KUNIT_EXPECT_EQ(test, pt_exact_enc_leave_async(&e, &b, L1 + 8), 4U);
	KUNIT_EXPECT_FALSE(test, e.in);
	/* Out of the traced context: nothing, and no second PGD. */
	KUNIT_EXPECT_EQ(test, pt_exact_enc_leave_async(&e, &b, L1 + 8), 0U);
	pt_expect_packets(test, &b, buf, want, sizeof(want));
}

/*
 * Short TNT: six bits a packet, the oldest highest; an indirect jump
 * flushes the rest before its TIP.  Long TNT (loop-tnt-64.ptt): 43 taken
 * and one not-taken in one packet.
 */
static void pt_exact_tnt_test(struct kunit *test)
{
	static const u8 want8[] = {
		0xda,			/* 101101 + stop: t n t t n t */
		0x16,			/* 011 + stop: n t t */
		0x2d, 0x00, 0x20,	/* TIP(1: l1+0x2000) */
	};
	static const u8 want64[] = {
		0x02, 0xa3, 0xfe, 0xff, 0xff, 0xff, 0xff, 0x1f,
	};
	static const bool bits[] = { 1, 0, 1, 1, 0, 1, 0, 1, 1 };
	struct pt_insn jcc = pt_mk(PT_INSN_JCC, 2, 0x10);
	struct pt_insn jmp = pt_mk(PT_INSN_JMP_IND, 2, 0);
	struct pt_exact_cfg cfg = pt_cfg;
	struct pt_exact_enc e;
	struct pt_pkt_buf b;
	unsigned int i;
	u8 buf[64];

	pt_entered(&e, &pt_cfg, &b, buf, sizeof(buf));
	for (i = 0; i < ARRAY_SIZE(bits); i++)
		pt_exact_enc_insn(&e, &b, L1, &jcc,
				  bits[i] ? L1 + 0x12 : L1 + 2);
	KUNIT_EXPECT_EQ(test, b.len, 1U);
	KUNIT_EXPECT_EQ(test, e.tnt_n, 3U);
	KUNIT_EXPECT_EQ(test, pt_exact_enc_insn(&e, &b, L1, &jmp, L1 + 0x2000),
			4U);
	pt_expect_packets(test, &b, buf, want8, sizeof(want8));

	cfg.long_tnt = true;
	pt_exact_enc_init(&e, &cfg);
	pt_exact_enc_enter(&e, &b, L1);
	pt_pkt_init(&b, buf, sizeof(buf));
	for (i = 0; i < 43; i++)
		KUNIT_EXPECT_EQ(test, pt_exact_enc_insn(&e, &b, L1, &jcc,
							L1 + 0x12), 0U);
	KUNIT_EXPECT_EQ(test, pt_exact_enc_insn(&e, &b, L1, &jcc, L1 + 2), 0U);
	KUNIT_EXPECT_EQ(test, pt_exact_enc_flush(&e, &b), 8U);
	PT_EXPECT_BYTES(test, buf, want64, sizeof(want64));
	KUNIT_EXPECT_EQ(test, pt_exact_enc_flush(&e, &b), 0U);
	KUNIT_EXPECT_FALSE(test, e.nofit);
}

/*
 * call_direct-ret_compressed.ptt / call_direct-ret_uncompressed.ptt: a
 * RET to the return address of the last CALL is a taken TNT bit, else
 * (or with DisRETC) a TIP; a call to the next instruction pushes nothing.
 */
static void pt_exact_ret_test(struct kunit *test)
{
	struct pt_insn call = pt_mk(PT_INSN_CALL, 5, 0x10);
	struct pt_insn pic = pt_mk(PT_INSN_CALL, 5, 0);
	struct pt_insn ret = pt_mk(PT_INSN_RET, 1, 0);
	struct pt_exact_cfg cfg = pt_cfg;
	struct pt_exact_enc e;
	struct pt_pkt_buf b;
	u8 buf[64];

	pt_entered(&e, &cfg, &b, buf, sizeof(buf));
	pt_exact_enc_insn(&e, &b, L1, &call, L1 + 0x15);
	pt_exact_enc_insn(&e, &b, L1 + 0x15, &pic, L1 + 0x1a);
	KUNIT_EXPECT_EQ(test, e.depth, 1U);
	KUNIT_EXPECT_EQ(test, pt_exact_enc_insn(&e, &b, L1 + 0x1a, &ret, L1 + 5),
			0U);
	KUNIT_EXPECT_EQ(test, e.depth, 0U);
	KUNIT_EXPECT_EQ(test, pt_exact_enc_flush(&e, &b), 1U);
	KUNIT_EXPECT_EQ(test, buf[0], 0x06);	/* TNT: t */
	/* Empty stack: TIP(1: l1+5). */
	KUNIT_EXPECT_EQ(test, pt_exact_enc_insn(&e, &b, L1 + 0x1a, &ret, L1 + 5),
			3U);
	KUNIT_EXPECT_EQ(test, buf[1], 0x2d);
	KUNIT_EXPECT_EQ(test, buf[2], 0x05);
	KUNIT_EXPECT_EQ(test, e.ret_compressed, 1ULL);

	cfg.disretc = true;
	pt_entered(&e, &cfg, &b, buf, sizeof(buf));
	pt_exact_enc_insn(&e, &b, L1, &call, L1 + 0x15);
	KUNIT_EXPECT_EQ(test, pt_exact_enc_insn(&e, &b, L1 + 0x15, &ret, L1 + 5),
			3U);
	KUNIT_EXPECT_EQ(test, e.ret_compressed, 0ULL);
}

/*
 * 65 nested calls: the ring keeps the last 64, so 64 returns compress
 * and the outermost is a TIP; a PSB empties the stack.
 */
static void pt_exact_stack_test(struct kunit *test)
{
	struct pt_insn call = pt_mk(PT_INSN_CALL, 5, 0x100);
	struct pt_insn ret = pt_mk(PT_INSN_RET, 1, 0);
	struct pt_exact_enc e;
	struct pt_pkt_buf b;
	unsigned int i;
	u8 buf[128];

	pt_fresh(&e, &pt_cfg, &b, buf, sizeof(buf));
	pt_exact_enc_enter(&e, &b, L1);
	for (i = 0; i < 65; i++)
		pt_exact_enc_insn(&e, &b, L1 + i, &call, L1 + i + 0x105);
	KUNIT_EXPECT_EQ(test, e.depth, 64U);
	pt_pkt_init(&b, buf, sizeof(buf));
	for (i = 65; i-- > 0;)
		pt_exact_enc_insn(&e, &b, L1 + 0x1000, &ret, L1 + i + 5);
	KUNIT_EXPECT_EQ(test, e.ret_compressed, 64ULL);
	/* 10 full short TNTs, then 4 bits and the TIP. */
	KUNIT_EXPECT_EQ(test, b.len, 10U + 1 + 5);
	KUNIT_EXPECT_EQ(test, buf[9], 0xfe);
	KUNIT_EXPECT_EQ(test, buf[10], 0x3e);
	KUNIT_EXPECT_EQ(test, buf[11], (u8)(PT_IPC_UPDATE_32 << 5 | PT_PKT_TIP));

	pt_exact_enc_insn(&e, &b, L1, &call, L1 + 0x105);
	pt_exact_enc_psb_begin(&e, &b);
	KUNIT_EXPECT_EQ(test, e.depth, 0U);
	KUNIT_EXPECT_EQ(test, pt_exact_enc_psb_end(&e, &b, L1 + 0x105),
			2U + 5 + 2);
	pt_pkt_init(&b, buf, sizeof(buf));
	b.last_ip = L1;
	KUNIT_EXPECT_EQ(test, pt_exact_enc_insn(&e, &b, L1 + 0x105, &ret, L1 + 5),
			3U);
}

/* A sequence that does not fit changes nothing and says so. */
static void pt_exact_nofit_test(struct kunit *test)
{
	struct pt_insn jcc = pt_mk(PT_INSN_JCC, 2, 0x10);
	struct pt_insn intn = pt_mk(PT_INSN_INT3, 1, 0);
	struct pt_exact_enc e;
	struct pt_pkt_buf b;
	u8 buf[16];

	pt_fresh(&e, &pt_cfg, &b, buf, sizeof(buf));
	pt_exact_enc_enter(&e, &b, L1);
	pt_exact_enc_insn(&e, &b, L1, &jcc, L1 + 0x12);
	b.cap = b.len + 2;	/* room for TNT + one byte */
	KUNIT_EXPECT_EQ(test, pt_exact_enc_insn(&e, &b, L1 + 0x12, &intn,
						0xffffffff81000000ULL), 0U);
	KUNIT_EXPECT_TRUE(test, e.nofit);
	KUNIT_EXPECT_TRUE(test, e.in);
	KUNIT_EXPECT_EQ(test, e.tnt_n, 1U);
	KUNIT_EXPECT_EQ(test, b.len, 7U);
	KUNIT_EXPECT_EQ(test, b.last_ip, L1);
	b.cap = sizeof(buf);
	KUNIT_EXPECT_EQ(test, pt_exact_enc_insn(&e, &b, L1 + 0x12, &intn,
						0xffffffff81000000ULL), 5U);
	KUNIT_EXPECT_FALSE(test, e.nofit);
	/* Stepping while out is the caller's bug: counted, no packet. */
	KUNIT_EXPECT_EQ(test, pt_exact_enc_insn(&e, &b, L1, &jcc, L1 + 2), 0U);
	KUNIT_EXPECT_EQ(test, e.misuse, 1ULL);
}

/*
 * IP filtering, tip_pgd-tnt_taken.ptt: the branch that leaves the range
 * sends no TNT bit of its own, the TIP.PGD carries its target.  TraceStop:
 * fup-tip_pgd-stop.ptt for a linear step into the range.
 */
static void pt_exact_filter_stop_test(struct kunit *test)
{
	static const u8 want[] = {
		0x06,				/* TNT: t (the first jle) */
		0x21, 0x05, 0x00,		/* TIP.PGD(1: l5) */
		0x31, 0x10, 0x00,		/* TIP.PGE(1: l1+0x10) */
		0x3d, 0x11, 0x00,		/* FUP(1: l1+0x11) */
		0x01,				/* TIP.PGD(0) */
		0x02, 0x83,			/* TraceStop */
	};
	struct pt_insn jle = pt_mk(PT_INSN_JCC, 2, 0);
	struct pt_insn nop = pt_mk(PT_INSN_OTHER, 1, 0);
	struct pt_exact_enc e;
	struct pt_pkt_buf b;
	u8 buf[64];

	pt_entered(&e, &pt_cfg, &b, buf, sizeof(buf));
	pt_exact_enc_insn(&e, &b, L1, &jle, L1 + 2);
	KUNIT_EXPECT_EQ(test, pt_exact_enc_insn_filtered(&e, &b, L1 + 2, &jle,
							 L1 + 5), 4U);
	KUNIT_EXPECT_FALSE(test, e.in);
	pt_exact_enc_enter(&e, &b, L1 + 0x10);
	KUNIT_EXPECT_EQ(test, pt_exact_enc_insn_stop(&e, &b, L1 + 0x10, &nop,
						     L1 + 0x11), 6U);
	KUNIT_EXPECT_FALSE(test, e.in);
	pt_expect_packets(test, &b, buf, want, sizeof(want));
	KUNIT_EXPECT_EQ(test, e.unclassified, 0ULL);
	KUNIT_EXPECT_EQ(test, e.misuse, 0ULL);
}

/* The per-instruction entry points, each called while out of context. */
struct pt_exact_entry {
	const char *name;
	u32 (*fn)(struct pt_exact_enc *e, struct pt_pkt_buf *b, u64 ip,
		  const struct pt_insn *in, u64 next);
};

static const struct pt_exact_entry pt_exact_entries[] = {
	{ "insn", pt_exact_enc_insn },
	{ "insn_filtered", pt_exact_enc_insn_filtered },
	{ "insn_stop", pt_exact_enc_insn_stop },
};

static void pt_exact_entry_desc(const struct pt_exact_entry *p, char *desc)
{
	strscpy(desc, p->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pt_exact_entry, pt_exact_entries, pt_exact_entry_desc);

/*
 * An instruction before any TIP.PGE is the caller's misuse, whatever the
 * entry point: counted, no packet, and no stale "did not fit" from before.
 */
static void pt_exact_misuse_test(struct kunit *test)
{
	const struct pt_exact_entry *p = test->param_value;
	struct pt_insn jcc = pt_mk(PT_INSN_JCC, 2, 0x10);
	struct pt_exact_enc e;
	struct pt_pkt_buf b;
	u8 buf[64];

	pt_fresh(&e, &pt_cfg, &b, buf, sizeof(buf));
	e.nofit = true;
	KUNIT_EXPECT_EQ(test, p->fn(&e, &b, L1, &jcc, L1 + 0x12), 0U);
	KUNIT_EXPECT_EQ(test, e.misuse, 1ULL);
	KUNIT_EXPECT_EQ(test, e.insns, 0ULL);
	KUNIT_EXPECT_FALSE(test, e.nofit);
	KUNIT_EXPECT_FALSE(test, e.in);
	KUNIT_EXPECT_EQ(test, b.len, 0U);
}

/*
 * A linear step out of a filter range (the range ends before the next
 * instruction): no branch to bind TIP.PGD(IP) to, so FUP(next) +
 * TIP.PGD(suppressed), as linear-fup-tip_pgd.ptt; libipt stops there.
 */
static void pt_exact_filter_linear_test(struct kunit *test)
{
	static const u8 want[] = {
		0x3d, 0x01, 0x00,		/* FUP(1: l1+1) */
		0x01,				/* TIP.PGD(0) */
	};
	struct pt_insn nop = pt_mk(PT_INSN_OTHER, 1, 0);
	struct pt_exact_enc e;
	struct pt_pkt_buf b;
	u8 buf[64];

	pt_entered(&e, &pt_cfg, &b, buf, sizeof(buf));
	KUNIT_EXPECT_EQ(test, pt_exact_enc_insn_filtered(&e, &b, L1, &nop,
							 L1 + 1), 4U);
	KUNIT_EXPECT_FALSE(test, e.in);
	pt_expect_packets(test, &b, buf, want, sizeof(want));
	KUNIT_EXPECT_EQ(test, e.insns, 1ULL);
}

/*
 * Cycle-accurate mode (SDM 36.3.6): a CYC goes before the first
 * CYC-eligible packet of a call once CycThresh cycles passed; before the
 * first bit of a TNT packet (it times that branch), not the later bits;
 * after the pending TNT packet that a TIP flushes, before the TIP.
 */
static void pt_exact_cyc_test(struct kunit *test)
{
	static const u8 want[] = {
		0x0c,				/* TNT(1, 0) */
		0x4b,				/* CYC(9) */
		0x2d, 0x10, 0x00,		/* TIP(1: l1+0x10) */
		0x0b,				/* CYC(1), thresh 0 */
	};
	const struct pt_exact_cfg cfg = { .branch_en = true, .cyc = true,
					  .cyc_thresh = 4 };
	struct pt_insn jcc = pt_mk(PT_INSN_JCC, 2, 0x20);
	struct pt_insn jmp = pt_mk(PT_INSN_JMP_IND, 2, 0);
	struct pt_exact_enc e;
	struct pt_pkt_buf b;
	u8 buf[64];

	pt_entered(&e, &cfg, &b, buf, sizeof(buf));
	e.cyc = 3;			/* below the threshold: no CYC */
	KUNIT_EXPECT_EQ(test, pt_exact_enc_insn(&e, &b, L1, &jcc,
						L1 + 0x22), 0U);
	KUNIT_EXPECT_FALSE(test, e.cyc_sent);
	e.cyc = 9;			/* not the first bit: no CYC */
	KUNIT_EXPECT_EQ(test, pt_exact_enc_insn(&e, &b, L1 + 0x22, &jcc,
						L1 + 0x24), 0U);
	KUNIT_EXPECT_FALSE(test, e.cyc_sent);
	KUNIT_EXPECT_EQ(test, pt_exact_enc_insn(&e, &b, L1 + 0x24, &jmp,
						L1 + 0x10), 5U);
	KUNIT_EXPECT_TRUE(test, e.cyc_sent);
	KUNIT_EXPECT_EQ(test, e.cyc, 0ULL);
	e.cfg.cyc_thresh = 0;
	e.cyc = 1;
	KUNIT_EXPECT_EQ(test, pt_exact_enc_insn(&e, &b, L1 + 0x10, &jcc,
						L1 + 0x12), 1U);
	KUNIT_EXPECT_EQ(test, e.tnt_n, 1U);
	pt_expect_packets(test, &b, buf, want, sizeof(want));
}

static struct kunit_case pt_model_exact_enc_cases[] = {
	KUNIT_CASE(pt_exact_syscall_test),
	KUNIT_CASE(pt_exact_int_test),
	KUNIT_CASE(pt_exact_tnt_test),
	KUNIT_CASE(pt_exact_ret_test),
	KUNIT_CASE(pt_exact_stack_test),
	KUNIT_CASE(pt_exact_nofit_test),
	KUNIT_CASE(pt_exact_filter_stop_test),
	KUNIT_CASE(pt_exact_filter_linear_test),
	KUNIT_CASE(pt_exact_cyc_test),
	KUNIT_CASE_PARAM(pt_exact_misuse_test, pt_exact_entry_gen_params),
	{}
};

static struct kunit_suite pt_model_exact_enc_suite = {
	.name = "pt_model_exact_enc",
	.test_cases = pt_model_exact_enc_cases,
};

kunit_test_suite(pt_model_exact_enc_suite);
