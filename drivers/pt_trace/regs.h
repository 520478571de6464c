/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Intel PT architectural registers: MSR numbers and bit fields from the
 * SDM, Vol. 3C, 36.2.7 (Tables 36-6 to 36-9) and 36.2.6 (ToPA).  Shared
 * by the driver and the model so both speak the same register language;
 * the IA32_RTIT_CTL bits themselves live in the uapi header.
 */
#ifndef _PT_TRACE_REGS_H
#define _PT_TRACE_REGS_H

#include <linux/bits.h>
#include <linux/types.h>

#define PT_MSR_RTIT_OUTPUT_BASE		0x560
#define PT_MSR_RTIT_OUTPUT_MASK		0x561
#define PT_MSR_RTIT_CTL			0x570
#define PT_MSR_RTIT_STATUS		0x571
#define PT_MSR_RTIT_CR3_MATCH		0x572
#define PT_MSR_RTIT_ADDR0_A		0x580	/* ADDRn_A = 0x580 + 2n */
#define PT_MSR_RTIT_ADDR0_B		0x581	/* ADDRn_B = 0x581 + 2n */
#define PT_MSR_RTIT_ADDR_A(n)		(PT_MSR_RTIT_ADDR0_A + 2 * (n))
#define PT_MSR_RTIT_ADDR_B(n)		(PT_MSR_RTIT_ADDR0_B + 2 * (n))

/* The PMI: IA32_PERF_GLOBAL_STATUS bit 55 and its reset MSR. */
#define PT_MSR_PERF_GLOBAL_STATUS	0x38e
#define PT_MSR_PERF_GLOBAL_STATUS_RESET	0x390
#define PT_GLOBAL_STATUS_TOPA_PMI	BIT_ULL(55)

/* Decoder sideband: maximum non-turbo ratio lives in bits 15:8. */
#define PT_MSR_PLATFORM_INFO		0xce
/* IA32_VMX_MISC[14]: TraceEn may stay set in VMX operation. */
#define PT_MSR_VMX_MISC			0x485
#define PT_VMX_MISC_PT_IN_VMX		BIT_ULL(14)

/* IA32_RTIT_STATUS, Table 36-8. */
#define PT_STATUS_FILTEREN		BIT_ULL(0)
#define PT_STATUS_CONTEXTEN		BIT_ULL(1)
#define PT_STATUS_TRIGGEREN		BIT_ULL(2)
#define PT_STATUS_ERROR			BIT_ULL(4)
#define PT_STATUS_STOPPED		BIT_ULL(5)
#define PT_STATUS_PENDPSB		BIT_ULL(6)
#define PT_STATUS_PENDTOPAPMI		BIT_ULL(7)
#define PT_STATUS_BYTECNT_SHIFT		32
#define PT_STATUS_BYTECNT_MASK		GENMASK_ULL(48, 32)

/* IA32_RTIT_OUTPUT_MASK_PTRS, Table 36-9. */
#define PT_MASK_LOWER			0x7fULL		/* bits 6:0 read as 1 */
#define PT_MASK_TABLE_OFFSET_SHIFT	7		/* ToPA: entry index << 3 */
#define PT_MASK_TABLE_OFFSET_MASK	GENMASK_ULL(31, 7)
#define PT_MASK_OUTPUT_OFFSET_SHIFT	32
#define PT_MASK_OUTPUT_OFFSET_MASK	GENMASK_ULL(63, 32)

/* A ToPA table entry, Table 36-3. */
#define PT_TOPA_END			BIT_ULL(0)
#define PT_TOPA_INT			BIT_ULL(2)
#define PT_TOPA_STOP			BIT_ULL(4)
#define PT_TOPA_SIZE_SHIFT		6
#define PT_TOPA_SIZE_MASK		GENMASK_ULL(9, 6)
#define PT_TOPA_BASE_MASK		GENMASK_ULL(51, 12)
/* Size encoding n means 4 KiB << n, n = 0..15 (4 KiB .. 128 MiB). */
#define PT_TOPA_SIZE_MAX_ENC		15

#endif /* _PT_TRACE_REGS_H */
