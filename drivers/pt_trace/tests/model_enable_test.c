// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: what the model's TraceEn 0 -> 1 keeps of the packet encoder's
 * state (generator.c, pt_model_gen_on_enable()).
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/pt_trace.h>
#include "../regs.h"
#include "../model/model.h"

/*
 * An enable with PacketByteCnt > 0 sends TSC, TMA and CBR, no PSB: the
 * last IP that IP compression uses stays what the packets before set,
 * as a decoder keeps it (it resets it at PSB only).
 */
static void pt_me_last_ip_kept(struct kunit *test)
{
	struct pt_model_state *s;

	if (!pt_model_prof || !pt_mp_ebx(pt_model_prof, PT_MP_PSB_CYC))
		kunit_skip(test, "no PSB/CYC: every enable sends PSB+");
	s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	s->regs.ctl = PT_CTL_TRACEEN | PT_CTL_USER | PT_CTL_BRANCHEN;
	s->regs.status = 0x100ULL << PT_STATUS_BYTECNT_SHIFT;
	s->last_ip = 0x7f0c28b96e31ULL;
	pt_model_gen_on_enable(s);
	KUNIT_EXPECT_TRUE(test, s->need_timing);
	KUNIT_EXPECT_FALSE(test, s->need_psb);
	KUNIT_EXPECT_EQ(test, s->last_ip, 0x7f0c28b96e31ULL);
}

/* PacketByteCnt = 0: PSB+ comes first, and the PSB resets it. */
static void pt_me_psb_first(struct kunit *test)
{
	struct pt_model_state *s;

	s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	s->regs.ctl = PT_CTL_TRACEEN | PT_CTL_USER | PT_CTL_BRANCHEN;
	pt_model_gen_on_enable(s);
	KUNIT_EXPECT_TRUE(test, s->need_psb);
}

static struct kunit_case pt_model_enable_cases[] = {
	KUNIT_CASE(pt_me_last_ip_kept),
	KUNIT_CASE(pt_me_psb_first),
	{}
};

static struct kunit_suite pt_model_enable_suite = {
	.name = "pt_model_enable",
	.test_cases = pt_model_enable_cases,
};

kunit_test_suite(pt_model_enable_suite);
