// SPDX-License-Identifier: GPL-2.0
/*
 * The software model of the Intel PT hardware (placeholder until the model
 * work lands: it answers CPUID as a PT-capable CPU and keeps MSRs).
 */
#include <linux/pt_trace.h>

#include "hw.h"

static void pt_model_cpuid(u32 leaf, u32 subleaf, struct pt_cpuid_regs *r)
{
	r->eax = 0;
	r->ebx = 0;
	r->ecx = 0;
	r->edx = 0;
	switch (leaf) {
	case 0:
		r->eax = 0x1b;
		r->ebx = 0x756e6547;
		r->edx = 0x49656e69;
		r->ecx = 0x6c65746e;
		break;
	case 1:
		r->eax = 0x606a6;
		break;
	case 7:
		r->ebx = 1 << 25;
		break;
	case 0x14:
		if (subleaf == 0) {
			r->eax = 1;
			r->ebx = 0x3f;
			r->ecx = 0x7;
		} else if (subleaf == 1) {
			r->eax = 0x249 << 16 | 2;
			r->ebx = 0x003f << 16 | 0x3fff;
		}
		break;
	}
}

static int pt_model_rdmsr(u32 msr, u64 *val)
{
	*val = 0;
	return 0;
}

static int pt_model_wrmsr(u32 msr, u64 val)
{
	return 0;
}

static void pt_model_pmi_rearm(void)
{
}

const struct pt_hw_ops pt_model_ops = {
	.name		= "model",
	.backend	= PT_BACKEND_MODEL,
	.cpuid		= pt_model_cpuid,
	.rdmsr		= pt_model_rdmsr,
	.wrmsr		= pt_model_wrmsr,
	.pmi_rearm	= pt_model_pmi_rearm,
};
