/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the CPU's Branch Trace Store can do (bts_caps.c): CPUID.1:EDX[21]
 * DS, CPUID.1:ECX[4] DS-CPL (BTS_OFF_OS/BTS_OFF_USR) and
 * IA32_MISC_ENABLE[11] BTS_UNAVAILABLE.  Read once at load; published in
 * /sys/kernel/pt_trace/bts/ beside PT's caps; /dev/btsN exists where
 * bts_present() (source_bts.c).
 */
#ifndef _PT_TRACE_BTS_CAPS_H
#define _PT_TRACE_BTS_CAPS_H

#include <linux/types.h>
#include <asm/cpufeature.h>

struct bts_caps {
	bool ds;		/* CPUID.1:EDX[21] */
	bool cpl_filter;	/* CPUID.1:ECX[4] DS-CPL: BTS_OFF_OS/USR */
	bool unavailable;	/* IA32_MISC_ENABLE[11], or it could not be read */
	bool pebs;		/* DS and IA32_MISC_ENABLE[12] clear: PEBS too */
};

/* Pure: from CPUID leaf 1 and IA32_MISC_ENABLE (@misc_ok: it was read). */
void bts_caps_decode(u32 leaf1_ecx, u32 leaf1_edx, u64 misc_enable,
		     bool misc_ok, struct bts_caps *caps);

static inline bool bts_present(const struct bts_caps *caps)
{
	return caps->ds && !caps->unavailable;
}

/*
 * Page table isolation: the driver refuses BTS (source_bts.c, "PTI");
 * /sys/kernel/pt_trace/bts/pti.
 */
static inline bool bts_pti(void)
{
	return boot_cpu_has(X86_FEATURE_PTI);
}

extern struct bts_caps bts_caps;	/* the boot CPU's, set at load */

/* At load, after pt_caps (its raw leaf 1): fill bts_caps. */
void bts_caps_read(void);

#endif /* _PT_TRACE_BTS_CAPS_H */
