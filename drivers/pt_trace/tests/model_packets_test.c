// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the model's packet encoder produces the bytes of SDM Vol. 3C
 * 36.4.2, and the MSR rules refuse what the SDM says #GPs.
 */
#include <kunit/test.h>
#include <linux/pt_trace.h>

#include "../regs.h"
#include "../model/model.h"

/* KUNIT_EXPECT_MEMEQ is newer than 6.1. */
#define PT_EXPECT_BYTES(test, got, want, n) \
	KUNIT_EXPECT_EQ(test, memcmp(got, want, n), 0)

static void pt_pkt_fixed_test(struct kunit *test)
{
	static const u8 misc[] = { 0x02, 0x23, 0x02, 0xf3, 0x02, 0x03, 0x20,
				   0x00, 0x99, 0x01, 0x99, 0x21, 0x02, 0x83 };
	static const u8 psb[16] = { 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82,
				    2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82 };
	struct pt_pkt_buf b;
	u8 buf[64];

	pt_pkt_init(&b, buf, sizeof(buf));
	KUNIT_EXPECT_EQ(test, pt_pkt_psb(&b), 16U);
	PT_EXPECT_BYTES(test, buf, psb, 16);

	pt_pkt_init(&b, buf, sizeof(buf));
	pt_pkt_psbend(&b);
	pt_pkt_ovf(&b);
	pt_pkt_cbr(&b, 0x20);
	pt_pkt_mode_exec(&b, true, false);
	pt_pkt_mode_tsx(&b, true, false);
	pt_pkt_stop(&b);
	KUNIT_EXPECT_EQ(test, b.len, 14U);
	PT_EXPECT_BYTES(test, buf, misc, sizeof(misc));
}

static void pt_pkt_ip_test(struct kunit *test)
{
	struct pt_pkt_buf b;
	u8 buf[64];

	pt_pkt_init(&b, buf, sizeof(buf));
	/* Kernel address from last_ip 0: 6-byte sign-extended (IPBytes 3). */
	KUNIT_EXPECT_EQ(test, pt_pkt_ip(&b, PT_PKT_TIP, 0xffffffff81000010ULL,
					false), 7U);
	KUNIT_EXPECT_EQ(test, buf[0], (u8)(3 << 5 | 0x0d));
	KUNIT_EXPECT_EQ(test, buf[1], 0x10);
	KUNIT_EXPECT_EQ(test, buf[6], 0xff);
	/* Same upper 48 bits: 2-byte update (IPBytes 1). */
	KUNIT_EXPECT_EQ(test, pt_pkt_ip(&b, PT_PKT_FUP, 0xffffffff81001234ULL,
					false), 3U);
	KUNIT_EXPECT_EQ(test, buf[7], (u8)(1 << 5 | 0x1d));
	KUNIT_EXPECT_EQ(test, buf[8], 0x34);
	KUNIT_EXPECT_EQ(test, buf[9], 0x12);
	/* Suppressed TIP.PGD: one byte, last IP unchanged. */
	KUNIT_EXPECT_EQ(test, pt_pkt_ip(&b, PT_PKT_TIP_PGD, 0, true), 1U);
	KUNIT_EXPECT_EQ(test, buf[10], 0x01);
	KUNIT_EXPECT_EQ(test, b.last_ip, 0xffffffff81001234ULL);
	/* A PSB resets compression. */
	pt_pkt_psb(&b);
	KUNIT_EXPECT_EQ(test, b.last_ip, 0ULL);
}

static void pt_pkt_misc_test(struct kunit *test)
{
	static const u8 pip[] = { 0x02, 0x43, 0x01, 0x45, 0x23, 0x01, 0, 0 };
	struct pt_pkt_buf b;
	u8 buf[64];

	pt_pkt_init(&b, buf, sizeof(buf));
	/* TNT: 3 branches T N T, stop bit above: 0b1101 << 1. */
	pt_pkt_tnt8(&b, 0x5, 3);
	KUNIT_EXPECT_EQ(test, buf[0], 0x1a);
	KUNIT_EXPECT_EQ(test, pt_pkt_tnt8(&b, 0, 7), 0U);
	/* PIP: CR3 0x12345000, NR=1: payload (cr3 >> 5) << 1 | 1 = 0x1234501. */
	pt_pkt_init(&b, buf, sizeof(buf));
	pt_pkt_pip(&b, 0x12345000ULL, true);
	PT_EXPECT_BYTES(test, buf, pip, sizeof(pip));
	/* PTW, 8-byte payload with IP bit. */
	pt_pkt_init(&b, buf, sizeof(buf));
	KUNIT_EXPECT_EQ(test, pt_pkt_ptw(&b, 0x0102030405060708ULL, true, true),
			10U);
	KUNIT_EXPECT_EQ(test, buf[1], 0xb2);
	KUNIT_EXPECT_EQ(test, buf[2], 0x08);
	/* CYC 0x25 = 0b100101: 00101 in byte 0 with Exp, 1 in byte 1. */
	pt_pkt_init(&b, buf, sizeof(buf));
	KUNIT_EXPECT_EQ(test, pt_pkt_cyc(&b, 0x25), 2U);
	KUNIT_EXPECT_EQ(test, buf[0], (u8)(0x05 << 3 | 0x04 | 0x03));
	KUNIT_EXPECT_EQ(test, buf[1], 0x02);
	/* No room: nothing written. */
	pt_pkt_init(&b, buf, 4);
	KUNIT_EXPECT_EQ(test, pt_pkt_tsc(&b, 1), 0U);
	KUNIT_EXPECT_EQ(test, b.len, 0U);
}

static void pt_rules_test(struct kunit *test)
{
	const struct pt_model_profile *icl = pt_model_profile_find("icl");
	const struct pt_model_profile *bdw = pt_model_profile_find("bdw");
	struct pt_model_regs r = { 0 };
	enum pt_model_gp why;
	u64 store;

	KUNIT_ASSERT_NOT_NULL(test, icl);
	KUNIT_ASSERT_NOT_NULL(test, bdw);
	KUNIT_EXPECT_EQ(test, pt_model_check_wrmsr(icl, &r, PT_MSR_RTIT_CTL,
						   PT_CTL_CYCEN, &store, &why), 0);
	KUNIT_EXPECT_EQ(test, pt_model_check_wrmsr(bdw, &r, PT_MSR_RTIT_CTL,
						   PT_CTL_CYCEN, &store, &why), -EIO);
	KUNIT_EXPECT_EQ(test, why, PT_GP_RESERVED);
	KUNIT_EXPECT_EQ(test, pt_model_check_wrmsr(bdw, &r, PT_MSR_RTIT_CTL,
						   PT_CTL_TRACEEN | PT_CTL_TOPA,
						   &store, &why), -EIO);
	KUNIT_EXPECT_EQ(test, why, PT_GP_BDM106);
	r.ctl = PT_CTL_TRACEEN | PT_CTL_TOPA | PT_CTL_BRANCHEN;
	KUNIT_EXPECT_EQ(test, pt_model_check_wrmsr(icl, &r, PT_MSR_RTIT_CTL,
						   r.ctl, &store, &why), 0);
	KUNIT_EXPECT_EQ(test, pt_model_check_wrmsr(icl, &r, PT_MSR_RTIT_CTL,
						   r.ctl | PT_CTL_OS, &store, &why),
			-EIO);
	KUNIT_EXPECT_EQ(test, why, PT_GP_CTL_CHANGE);
	KUNIT_EXPECT_EQ(test, pt_model_check_wrmsr(icl, &r,
						   PT_MSR_RTIT_OUTPUT_BASE, 0x1000,
						   &store, &why), -EIO);
	KUNIT_EXPECT_EQ(test, why, PT_GP_TRACEEN);
	KUNIT_EXPECT_EQ(test, pt_model_check_wrmsr(icl, &r, PT_MSR_RTIT_CTL,
						   PT_CTL_OS, &store, &why), 0);
}

static struct kunit_case pt_model_packets_cases[] = {
	KUNIT_CASE(pt_pkt_fixed_test),
	KUNIT_CASE(pt_pkt_ip_test),
	KUNIT_CASE(pt_pkt_misc_test),
	KUNIT_CASE(pt_rules_test),
	{}
};

static struct kunit_suite pt_model_packets_suite = {
	.name = "pt_model_packets",
	.test_cases = pt_model_packets_cases,
};

kunit_test_suite(pt_model_packets_suite);
