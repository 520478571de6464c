// SPDX-License-Identifier: GPL-2.0
/*
 * The ToPA PMI as silicon raises it (SDM Vol. 3C 36.2.6.2 "ToPA PMI"):
 * IA32_PERF_GLOBAL_STATUS bit 55 is set in the model state (done by the
 * tick before it publishes), then a real NMI is sent to this CPU through
 * the local APIC with NMI delivery, so the driver's NMI_LOCAL handler
 * runs in true NMI context through the kernel's NMI chain.  The bit is
 * cleared through IA32_PERF_GLOBAL_STATUS_RESET (0x390).
 *
 * Delivery masks LVTPC until the driver re-arms it (pmi_rearm, as
 * perf's handler does); a PMI raised while masked is counted and not
 * sent, like an interrupt the APIC holds back.
 */
#include <linux/cpumask.h>
#include <linux/smp.h>
#include <asm/apic.h>
#include <asm/irq_vectors.h>
#include <asm/nmi.h>
#include <linux/delay.h>

#include "model.h"

void pt_model_nmi_self(void)
{
	/*
	 * The self-IPI shorthand cannot carry NMI delivery in x2APIC mode
	 * (the SELF IPI register is fixed-mode only), so address the CPU
	 * by mask: the ICR is then built with APIC_DM_NMI for NMI_VECTOR.
	 */
	apic->send_IPI_mask(cpumask_of(smp_processor_id()), NMI_VECTOR);
}

/*
 * Test hook (debugfs drop_pmis): swallow the next N PMIs, on any CPU,
 * as a lost interrupt would be lost: bit 55 stays set, no NMI is sent
 * and LVTPC is left as it was.  For the driver's streaming watchdog.
 */
atomic_t pt_model_drop_pmis = ATOMIC_INIT(0);
atomic_t pt_model_pmis_dropped = ATOMIC_INIT(0);

void pt_model_pmi_send(struct pt_model_cpu *st)
{
	atomic64_inc(&st->stats.pmis_raised);
	if (READ_ONCE(st->lvtpc_masked)) {
		atomic64_inc(&st->stats.pmis_masked);
		return;
	}
	if (atomic_add_unless(&pt_model_drop_pmis, -1, 0)) {
		atomic_inc(&pt_model_pmis_dropped);
		return;
	}
	WRITE_ONCE(st->lvtpc_masked, true);
	/* Inside a KVM guest's run when a test asks (kvm.c). */
	if (!pt_model_kvm_pmi(st))
		pt_model_nmi_self();
}

/* Self-test: does an NMI sent this way arrive, in NMI context? */
static DEFINE_PER_CPU(int, pt_nmi_armed);
static DEFINE_PER_CPU(int, pt_nmi_seen);

static int pt_model_nmi_test_handler(unsigned int type, struct pt_regs *regs)
{
	if (!this_cpu_read(pt_nmi_armed))
		return NMI_DONE;
	this_cpu_write(pt_nmi_armed, 0);
	this_cpu_write(pt_nmi_seen, in_nmi() ? 1 : 2);
	return NMI_HANDLED;
}

static void pt_model_nmi_test_on_cpu(void *info)
{
	int *result = info;
	int i;

	this_cpu_write(pt_nmi_seen, 0);
	this_cpu_write(pt_nmi_armed, 1);
	pt_model_nmi_self();
	for (i = 0; i < 100000 && !this_cpu_read(pt_nmi_seen); i++)
		udelay(1);
	this_cpu_write(pt_nmi_armed, 0);
	*result = this_cpu_read(pt_nmi_seen);
}

/* 1: arrived in NMI context; 2: arrived, not in NMI; 0: never arrived. */
int pt_model_pmi_selftest(int cpu)
{
	int result = -1, ret;

	ret = register_nmi_handler(NMI_LOCAL, pt_model_nmi_test_handler, 0,
				   "pt_model_nmi_test");
	if (ret)
		return ret;
	ret = smp_call_function_single(cpu, pt_model_nmi_test_on_cpu,
				       &result, 1);
	unregister_nmi_handler(NMI_LOCAL, "pt_model_nmi_test");
	return ret ? ret : result;
}
