// SPDX-License-Identifier: GPL-2.0
/*
 * The ToPA PMI: one NMI_LOCAL handler for the module, registered at load.
 * The PMI arrives as an NMI on the traced CPU; the work is in
 * pt_stream_nmi() (stream.c), which decides from this CPU's own state
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
 * at work on them, so perf and a KVM guest keep theirs; and a late PMI
 * of ours that we leave (after the final stop) is claimed by perf's
 * handler, which takes any bit 55.
 */
#include <linux/smp.h>
#include <asm/nmi.h>

#include "core.h"
#include "pmi.h"
#include "stream.h"

static int pt_pmi_handler(unsigned int type, struct pt_regs *regs)
{
	struct pt_cpu *pc = pt_core_cpu(smp_processor_id());

	return pc ? pt_stream_nmi(pc) : NMI_DONE;
}

int pt_pmi_init(void)
{
	return register_nmi_handler(NMI_LOCAL, pt_pmi_handler, NMI_FLAG_FIRST,
				    "pt_trace");
}

void pt_pmi_exit(void)
{
	unregister_nmi_handler(NMI_LOCAL, "pt_trace");
}
