/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Branch Trace Store architectural registers and the DS save area (SDM
 * Vol. 3B 18.4.4 and 18.7.8, Table 18-8; the 64-bit DS layout), shared
 * by the driver and the model as regs.h is for PT.
 */
#ifndef _PT_TRACE_BTS_REGS_H
#define _PT_TRACE_BTS_REGS_H

#include <linux/bits.h>
#include <linux/types.h>

/* CPUID.1: EDX[21] DS (the debug store), ECX[4] DS-CPL. */
#define BTS_CPUID1_EDX_DS		BIT(21)
#define BTS_CPUID1_ECX_DS_CPL		BIT(4)

#define BTS_MSR_DEBUGCTL		0x1d9
#define BTS_DEBUGCTL_LBR		BIT_ULL(0)
#define BTS_DEBUGCTL_BTF		BIT_ULL(1)
#define BTS_DEBUGCTL_TR			BIT_ULL(6)	/* branch trace messages */
#define BTS_DEBUGCTL_BTS		BIT_ULL(7)	/* ... into the BTS buffer */
#define BTS_DEBUGCTL_BTINT		BIT_ULL(8)	/* PMI at the threshold */
#define BTS_DEBUGCTL_OFF_OS		BIT_ULL(9)	/* not at CPL 0 (DS-CPL) */
#define BTS_DEBUGCTL_OFF_USR		BIT_ULL(10)	/* not at CPL > 0 (DS-CPL) */
#define BTS_DEBUGCTL_FREEZE_LBRS	BIT_ULL(11)
#define BTS_DEBUGCTL_FREEZE_PERFMON	BIT_ULL(12)
#define BTS_DEBUGCTL_FREEZE_SMM		BIT_ULL(14)
/* Every bit that makes BTS store records. */
#define BTS_DEBUGCTL_BTS_BITS		(BTS_DEBUGCTL_TR | BTS_DEBUGCTL_BTS | \
					 BTS_DEBUGCTL_BTINT | \
					 BTS_DEBUGCTL_OFF_OS | \
					 BTS_DEBUGCTL_OFF_USR)

/* IA32_MISC_ENABLE[11]: BTS unavailable (read-only). */
#define BTS_MSR_MISC_ENABLE		0x1a0
#define BTS_MISC_ENABLE_BTS_UNAVAIL	BIT_ULL(11)
#define BTS_MISC_ENABLE_PEBS_UNAVAIL	BIT_ULL(12)

/* IA32_DS_AREA: the linear address of the DS buffer management area. */
#define BTS_MSR_DS_AREA			0x600

/*
 * IA32_PEBS_ENABLE (where IA32_MISC_ENABLE[12] is clear): a counter's
 * bit set makes it store PEBS records through the same DS area.
 */
#define BTS_MSR_PEBS_ENABLE		0x3f1

/* The BTS part of the 64-bit DS buffer management area (linear addresses). */
struct bts_ds_area {
	u64 bts_base;		/* first record */
	u64 bts_index;		/* where the next record goes */
	u64 bts_max;		/* absolute maximum: one past the last record */
	u64 bts_thresh;		/* BTINT=1: PMI when the index reaches it */
	u64 pebs_base;		/* PEBS: first record */
	u64 pebs_index;		/* where the next record goes */
	u64 pebs_max;		/* no record is written at or past it */
	u64 pebs_thresh;	/* PMI (GLOBAL_STATUS bit 62) on reaching it */
};

/* IA32_PERF_GLOBAL_STATUS: a PEBS record reached the PEBS threshold. */
#define BTS_GLOBAL_STATUS_PEBS_OVF	BIT_ULL(62)

/* One branch record (64-bit format): 24 bytes. */
struct bts_record {
	u64 from;
	u64 to;
	u64 flags;		/* bit 4: predicted */
};

#define BTS_RECORD_SIZE			24
#define BTS_RECORD_PREDICTED		BIT_ULL(4)

#endif /* _PT_TRACE_BTS_REGS_H */
