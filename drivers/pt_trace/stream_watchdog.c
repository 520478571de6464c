// SPDX-License-Identifier: GPL-2.0
/*
 * Watchdog.  A PMI can fail to come: LVTPC masked by someone else, a PMI
 * that found an IPI at work after perf had already acknowledged bit 55,
 * a hypervisor or firmware that swallows it.  The ring would then stay
 * stalled until STOP.  So while streaming, a timer pinned to the traced
 * CPU (hardirq, IRQs off: excluded from the IPIs as they are from each
 * other, and from the PMI by handle_nmi like them) looks at the live
 * RTIT_STATUS and output pointers every PT_STREAM_WD_PERIOD_NS.  Only
 * when two ticks in a row see a state the PMI should have handled (the
 * INT region filled, or Stopped/Error while no gap is open), with no
 * service in between, does it run the service routine itself and count
 * it in 'watchdog'.  A PMI is delivered within microseconds, so in
 * normal operation it never fires; when PMIs are lost the stream goes
 * on, with gaps (loss records) where the hardware stopped meanwhile.
 */
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/kernel.h>
#include <linux/smp.h>

#include "buffer.h"
#include "core.h"
#include "hw.h"
#include "regs.h"
#include "stream.h"
#include "stream_priv.h"

/*
 * A PMI the hardware asked for and nobody delivered: acknowledge it (so
 * a later foreign NMI is not taken for ours) and do what the PMI does.
 * Hardirq on the traced CPU, handle_nmi clear.
 */
static void pt_stream_wd_service(struct pt_cpu *pc)
{
	struct pt_stream *s = &pc->stream;

	pt_pmi_status_reset(pt_pmi_bit());
	s->watchdog++;
	pt_stream_ipi_service(pc, true);
	/* If LVTPC was left masked, let the next PMI through. */
	if (pt_hw->pmi_rearm)
		pt_hw->pmi_rearm();
}

/*
 * Does the hardware show what a PMI should have handled?  Multi-entry
 * ToPA raises INT when the INT region fills: the position reached it.
 * Single-entry ToPA raises it somewhere in the last PT_TOPA_PMI_MARGIN
 * bytes, so a position there is normal (an idle CPU may rest there):
 * only the region filled (Stopped) says the PMI is overdue.
 */
static bool pt_stream_wd_due(struct pt_cpu *pc)
{
	u64 st;

	if (!pt_stream_hw_ours(pc))
		return false;
	if (!pc->buf->topa.single_entry)
		return pt_stream_int_due(pc);
	return !pt_rdmsr(PT_MSR_RTIT_STATUS, &st) &&
	       (st & (PT_STATUS_STOPPED | PT_STATUS_ERROR));
}

enum hrtimer_restart pt_stream_wd_fn(struct hrtimer *t)
{
	struct pt_stream *s = container_of(t, struct pt_stream, wd_timer);
	struct pt_cpu *pc = container_of(s, struct pt_cpu, stream);
	bool due, fire;

	/* Stopped, or moved off a CPU going down: nothing to watch. */
	if (!READ_ONCE(s->wd_on) || pc->cpu != smp_processor_id())
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ns_to_ktime(PT_STREAM_WD_PERIOD_NS));
	/*
	 * In a gap or in error the kick work and STOP are in charge; but a
	 * trace someone else stopped is resumed here once the CPU is ours
	 * again, and a throttled one once its window is over
	 * (pt_stream_restart() checks both).
	 */
	if (!s->hw_on) {
		s->wd_suspect = false;
		if (s->stalled && !s->error &&
		    ((s->loss_flags & PT_LOSS_TAKEN_OVER) ||
		     (s->throttled &&
		      (s64)(pt_stream_now_ns() - s->throttle_until) >= 0))) {
			pt_stream_ipi_service(pc, true);
			if (s->hw_on || s->error)
				irq_work_queue(&s->wake_work);
		}
		return HRTIMER_RESTART;
	}
	/* As the IPIs: a PMI now is deferred, not run over our reads. */
	pt_stream_busy_begin(s);
	/* Not ours any more (taken over, TraceEn cleared): at once. */
	if (!pt_stream_hw_ours(pc)) {
		pt_stream_busy_end(s);
		pt_stream_ipi_service(pc, true);
		irq_work_queue(&s->wake_work);
		return HRTIMER_RESTART;
	}
	due = pt_stream_wd_due(pc);
	/* Due at the previous tick already, and no service since. */
	fire = due && s->wd_suspect && s->wd_services == s->services;
	s->wd_suspect = due && !fire;
	s->wd_services = s->services;
	if (fire) {
		/* Still busy: its service ends the bracket. */
		pt_stream_wd_service(pc);
	} else {
		pt_stream_busy_end(s);
		/* A PMI that came during the reads was left to us. */
		if (!READ_ONCE(s->pmi_pending))
			return HRTIMER_RESTART;
		pt_stream_ipi_service(pc, true);
	}
	irq_work_queue(&s->wake_work);
	return HRTIMER_RESTART;
}
