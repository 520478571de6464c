// SPDX-License-Identifier: GPL-2.0
/*
 * The CPUs the model can pretend to be: their CPUID answers for the
 * leaves the driver reads (0, 1, 7, 0x14, 0x15).  Only the PT-relevant
 * bits are filled; everything else reads 0.  Where each value comes from
 * is said next to it.  Bits of leaf 0x14 are decoded per SDM Vol. 3C,
 * Table 36-11.
 */
#include <linux/kernel.h>
#include <linux/string.h>

#include "../bts_regs.h"
#include "model.h"

/* "GenuineIntel" as leaf 0 returns it: EBX, EDX, ECX. */
#define PT_INTEL_EBX	0x756e6547
#define PT_INTEL_EDX	0x49656e69
#define PT_INTEL_ECX	0x6c65746e
#define PT_LEAF7_PT	BIT(25)		/* CPUID.(EAX=07H,ECX=0):EBX[25] */
#define PT_LEAF1_VMX	BIT(5)		/* CPUID.1:ECX[5] */
#define PT_VMX_MISC_PT	BIT_ULL(14)	/* PT may be used in VMX operation */

/*
 * IA32_PERF_GLOBAL_STATUS_RESET (arch perfmon v4+) / OVF_CTRL (v2, v3)
 * bits (SDM Vol. 3B 20.2.4, 20.2.5): the general-purpose counters, the
 * fixed counters, 55 (ToPA PMI), and from v4 58-61 (LBR_Frz, CTR_Frz,
 * ASCI, Ovf_Uncore); 62 (OvfBuf) and 63 (CondChgd) from v3.
 */
#define PT_GSR_V3(gp, fixed)	(GENMASK_ULL((gp) - 1, 0) | \
				 GENMASK_ULL(31 + (fixed), 32) | \
				 BIT_ULL(55) | BIT_ULL(62) | BIT_ULL(63))
#define PT_GSR_V4(gp, fixed)	(PT_GSR_V3(gp, fixed) | GENMASK_ULL(61, 58))

/*
 * IA32_PEBS_ENABLE (0x3f1), as Linux's arch/x86/events/intel/ds.c writes
 * it: one PEBS_EN bit per general-purpose counter; before Ice Lake the
 * load-latency LL_EN bits at 32 + n; from Ice Lake (adaptive PEBS) a
 * PEBS_EN_FIXED bit at 32 + n per fixed counter (ds.c: 1 << idx, fixed
 * counters' idx from INTEL_PMC_IDX_FIXED = 32) and 60-62, PEBS output to
 * PT and a PMI after each record.
 */
#define PT_PEBS_GP(gp)		GENMASK_ULL((gp) - 1, 0)
#define PT_PEBS_ADAPTIVE(gp, fixed)	(PT_PEBS_GP(gp) | \
					 GENMASK_ULL(31 + (fixed), 32) | \
					 GENMASK_ULL(62, 60))

/*
 * Ice Lake client (i7-1065G7): family 6 model 0x7e stepping 5 (CPUID.1:EAX
 * = 0x706e5), max basic leaf 0x1b (public CPUID dumps of that part).
 * Leaf 0x14: QEMU's Icelake CPU model (target/i386/cpu.c,
 * INTEL_PT_MINIMAL_EBX 0xf, _ECX 0x7, 2 address ranges, MTC bitmap 0x249,
 * CYC bitmap 0x1fff, PSB bitmap 0x3f) plus EBX[4] PTWRITE and EBX[5] power
 * event trace, which Ice Lake client enumerates (public CPUID dumps; not
 * re-verified on silicon here).
 * Leaf 0x15: TSC/crystal 62/2, 38.4 MHz crystal (Ice Lake client CPUID
 * dumps).  CBR 13 = 1.3 GHz base clock.
 * VMX with PT in VMX operation (VMX_MISC[14]=1).
 * DS with DS-CPL (BTS_OFF_OS/USR): every Core since Nehalem.
 * 8 GP counters (4 per thread with HT), 4 fixed.
 */
#define PT_PROFILE_ICL							\
	.leaf0 = { 0x1b, PT_INTEL_EBX, PT_INTEL_ECX, PT_INTEL_EDX },	\
	.leaf1 = { 0x000706e5, 0, PT_LEAF1_VMX | BTS_CPUID1_ECX_DS_CPL,	\
		   BTS_CPUID1_EDX_DS },					\
	.leaf7 = { 0, PT_LEAF7_PT, 0, 0 },				\
	.leaf14 = {							\
		{ 0x00000001, 0x0000003f, 0x00000007, 0 },		\
		{ 0x02490002, 0x003f1fff, 0, 0 },			\
	},								\
	.leaf15 = { 0x00000002, 0x0000003e, 0x0249f000, 0 },		\
	.phys_bits = 39,						\
	.cbr = 13,							\
	.vmx_misc = PT_VMX_MISC_PT,					\
	.gsr_valid = PT_GSR_V4(8, 4),					\
	.pebs_valid = PT_PEBS_ADAPTIVE(8, 4),				\
	/* adaptive PEBS, the basic group alone (PEBS_DATA_CFG 0) */	\
	.pebs_record = 32

const struct pt_model_profile pt_model_profiles[] = {
	{
		.name = "icl",
		.desc = "Ice Lake client, full featured",
		PT_PROFILE_ICL,
	},
	{
		/*
		 * Broadwell client (i7-5500U): family 6 model 0x3d
		 * stepping 4 (CPUID.1:EAX = 0x306d4), max basic leaf 0x14
		 * (no leaf 0x15 before Skylake).
		 * Leaf 0x14: the first PT generation: max subleaf 0, EBX = 1
		 * (CR3 filtering only: no configurable PSB/CYC, no IP
		 * filtering, no MTC), ECX = 0x5: ToPA without multiple
		 * entries (SDM 36.2.6.2, "Single Output Region ToPA
		 * Implementation") and single-range output.  The ECX value
		 * is from public Broadwell CPUID dumps; single-range support
		 * is not re-verified here.
		 * BDM106 (Broadwell spec update): clearing BranchEn faults.
		 */
		.name = "bdw",
		.desc = "Broadwell, single-entry ToPA, BDM106",
		.leaf0 = { 0x14, PT_INTEL_EBX, PT_INTEL_ECX, PT_INTEL_EDX },
		/*
		 * VMX without PT in VMX operation (VMX_MISC[14]=0, as pt.c
		 * reads it on Broadwell): VMXON clears TraceEn.
		 */
		.leaf1 = { 0x000306d4, 0,
			   PT_LEAF1_VMX | BTS_CPUID1_ECX_DS_CPL,
			   BTS_CPUID1_EDX_DS },
		.leaf7 = { 0, PT_LEAF7_PT, 0, 0 },
		.leaf14 = {
			{ 0x00000000, 0x00000001, 0x00000005, 0 },
			{ 0, 0, 0, 0 },
		},
		.phys_bits = 39,
		.cbr = 24,
		.branchen_always_on = true,
		.vmx_misc = 0,
		/* arch perfmon v3: 4 GP counters per thread, 3 fixed. */
		.gsr_valid = PT_GSR_V3(4, 3),
		/* PEBS_EN and LL_EN of 4 counters */
		.pebs_valid = PT_PEBS_GP(4) | PT_PEBS_GP(4) << 32,
		/* PEBS record format 2 (Haswell, Broadwell): 0xc0 bytes */
		.pebs_record = 192,
	},
	{
		/*
		 * Synthetic, not a real CPU: the least an SDM-conforming PT
		 * implementation may enumerate while still being usable
		 * with multi-entry ToPA: no CR3 filter, no configurable
		 * PSB/CYC, no IP filtering, no MTC/PTWRITE/power events, no
		 * single range, no subleaf 1.  Family/model of a Skylake
		 * client (CPUID.1:EAX = 0x506e3) so the driver sees no
		 * errata.
		 */
		.name = "min",
		.desc = "synthetic minimum, multi-entry ToPA only",
		.leaf0 = { 0x16, PT_INTEL_EBX, PT_INTEL_ECX, PT_INTEL_EDX },
		/*
		 * DS without DS-CPL, and BTS unavailable (IA32_MISC_ENABLE
		 * [11], as firmware or an erratum may set it): no /dev/btsN.
		 */
		.leaf1 = { 0x000506e3, 0, 0, BTS_CPUID1_EDX_DS },
		.misc_enable = BTS_MISC_ENABLE_BTS_UNAVAIL |
			       BTS_MISC_ENABLE_PEBS_UNAVAIL,
		.leaf7 = { 0, PT_LEAF7_PT, 0, 0 },
		.leaf14 = {
			{ 0x00000000, 0x00000000, 0x00000003, 0 },
			{ 0, 0, 0, 0 },
		},
		.leaf15 = { 0x00000002, 0x000000c8, 0x016e3600, 0 },
		.phys_bits = 39,
		.cbr = 32,
		/* No VMX; a Skylake-like arch perfmon v4. */
		.gsr_valid = PT_GSR_V4(4, 3),
	},
	{
		/*
		 * Ice Lake client whose VM entries send no PIP: SDM
		 * 36.5.2.5's missing PIP (a guest's MOV CR3 that exits to
		 * a VMM that does not write the PIP), played on every entry
		 * under model_vmx=1.  Not among the VM runner's default
		 * profiles: for the decoder's tests (vmx_nopip).
		 */
		.name = "icl-nopip",
		.desc = "Ice Lake client, VM entries without PIP",
		PT_PROFILE_ICL,
		.vmx_entry_no_pip = true,
	},
};

const unsigned int pt_model_nr_profiles = ARRAY_SIZE(pt_model_profiles);

const struct pt_model_profile *pt_model_profile_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < pt_model_nr_profiles; i++)
		if (sysfs_streq(name, pt_model_profiles[i].name))
			return &pt_model_profiles[i];
	return NULL;
}

/* Subleaf 1 exists only when subleaf 0 EAX (max subleaf) >= 1. */
static bool pt_mp_has_sub1(const struct pt_model_profile *p)
{
	return p->leaf14[0].eax >= 1;
}

unsigned int pt_mp_nr_ranges(const struct pt_model_profile *p)
{
	if (!pt_mp_has_sub1(p) || !pt_mp_ebx(p, PT_MP_IPFILT))
		return 0;
	return min_t(unsigned int, p->leaf14[1].eax & 0x7, 4);
}

u32 pt_mp_mtc_bitmap(const struct pt_model_profile *p)
{
	if (!pt_mp_has_sub1(p) || !pt_mp_ebx(p, PT_MP_MTC))
		return 0;
	return p->leaf14[1].eax >> 16;
}

u32 pt_mp_cyc_bitmap(const struct pt_model_profile *p)
{
	if (!pt_mp_has_sub1(p) || !pt_mp_ebx(p, PT_MP_PSB_CYC))
		return 0;
	return p->leaf14[1].ebx & 0xffff;
}

u32 pt_mp_psb_bitmap(const struct pt_model_profile *p)
{
	if (!pt_mp_has_sub1(p) || !pt_mp_ebx(p, PT_MP_PSB_CYC))
		return 0;
	return p->leaf14[1].ebx >> 16;
}
