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
 * would hide it.  (While an IPI services the hardware, or after the
 * stop, a set bit 55 is claimed as ours, as perf does with its
 * "dangling" bit.)
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
	return register_nmi_handler(NMI_LOCAL, pt_pmi_handler, 0, "pt_trace");
}

void pt_pmi_exit(void)
{
	unregister_nmi_handler(NMI_LOCAL, "pt_trace");
}
