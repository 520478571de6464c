// SPDX-License-Identifier: GPL-2.0
/*
 * The ToPA PMI: one NMI_LOCAL handler for the module, registered at load.
 * The PMI arrives as an NMI on the traced CPU; the work is in
 * pt_stream_nmi() (stream_pmi.c), which decides from this CPU's own state
 * whether the NMI is ours: a streaming session is armed here, the PT
 * MSRs hold our state (RTIT_CTL and OUTPUT_BASE, not a KVM guest's or
 * perf's), AND either IA32_PERF_GLOBAL_STATUS bit 55 is set, or (perf's
 * handler may have acknowledged bit 55 first) RTIT_STATUS/
 * OUTPUT_MASK_PTRS show the INT region filled or the hardware stopped.
 * Anything else is left to the other handlers: claiming a foreign NMI
 * would hide it.  (While an IPI services the hardware a set bit 55 is
 * claimed as ours and left to the IPI, as perf does with its "dangling"
 * bit; after the final stop nothing is claimed.)
 *
 * Registered first on the chain (NMI_FLAG_FIRST): perf's PMI handler,
 * present on every Intel CPU with a PMU, acknowledges the whole of
 * IA32_PERF_GLOBAL_STATUS, bit 55 included, before the handlers after
 * it run.  Streaming could do without the bit, but the flight
 * recorder's lap PMI has nothing else to tell it apart.  Bit 55 is
 * cleared only when the PT MSRs hold our state or one of our IPIs is
 * at work on them, so perf and a KVM guest keep theirs.  A late PMI of
 * ours (raised before a halt, delivered after it, e.g. after the final
 * stop) is claimed as owed for a short while (stream_pmi.c): perf's handler
 * ignores it when perf has no events, and it would be reported as an
 * unknown NMI with LVTPC left masked.  Module exit acknowledges a bit
 * 55 left pending and unmasks LVTPC on every CPU before it unregisters.
 */
#include <linux/smp.h>
#include <asm/nmi.h>

#include "core.h"
#include "hw.h"
#include "pmi.h"
#include "regs.h"
#include "source.h"

/*
 * Each source on this CPU decides from its own state whether the NMI is
 * its own (PT: bit 55 or its output pointers; BTS: the DS index at the
 * threshold), and both may be due in one NMI: both are asked.
 */
static int pt_pmi_handler(unsigned int type, struct pt_regs *regs)
{
	unsigned int cpu = smp_processor_id();
	struct pt_cpu *pc = pt_core_cpu(cpu);
	struct pt_cpu *bc = pt_core_bts_cpu(cpu);
	int ret = NMI_DONE;

	if (pc && pc->src->nmi(pc) == NMI_HANDLED)
		ret = NMI_HANDLED;
	if (bc && bc->src->nmi(bc) == NMI_HANDLED)
		ret = NMI_HANDLED;
	return ret;
}

int pt_pmi_init(void)
{
	return register_nmi_handler(NMI_LOCAL, pt_pmi_handler, NMI_FLAG_FIRST,
				    "pt_trace");
}

/*
 * Nothing of ours runs.  A bit 55 still set while nobody traces can only
 * be a PMI of ours that never got (or has not yet got) its NMI: its NMI
 * would come when nobody claims it.  LVTPC masked by one of ours would
 * silence perf's sampling on this CPU.
 */
static void pt_pmi_settle(void *info)
{
	u64 ctl, gs;

	if (!pt_rdmsr(PT_MSR_RTIT_CTL, &ctl) && !(ctl & PT_CTL_TRACEEN) &&
	    !pt_rdmsr(PT_MSR_PERF_GLOBAL_STATUS, &gs) &&
	    (gs & PT_GLOBAL_STATUS_TOPA_PMI))
		pt_wrmsr(PT_MSR_PERF_GLOBAL_STATUS_RESET,
			 PT_GLOBAL_STATUS_TOPA_PMI);
	if (pt_hw->pmi_rearm)
		pt_hw->pmi_rearm();
}

void pt_pmi_exit(void)
{
	on_each_cpu(pt_pmi_settle, NULL, 1);
	unregister_nmi_handler(NMI_LOCAL, "pt_trace");
}
