// SPDX-License-Identifier: GPL-2.0
/*
 * The PMI: pt_stream_nmi(), the NMI_LOCAL handler's body for a stream or
 * flight session (pmi.c), which claims a bit-55 NMI only when this CPU's
 * state proves it ours and services the ring (or counts a lap) in NMI;
 * the late PMI owed after a halt of ours (also BTS's, source_bts.c); and
 * the rate limit on streaming PMIs.
 */
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <asm/nmi.h>

#include "buffer.h"
#include "core.h"
#include "hw.h"
#include "regs.h"
#include "source_pt.h"
#include "stream.h"
#include "stream_priv.h"

/*
 * One bit-55 NMI may be owed after a halt of ours: a ToPA PMI raised
 * just before TraceEn 1->0 (SDM 36.2.6.2: a second one can be raised
 * before the first is handled; perf's "dangling" bit) reaches the CPU
 * later, possibly after the final stop, when no handler would claim it
 * ("NMI received for unknown reason", LVTPC left masked).  Its bit is
 * set in IA32_PERF_GLOBAL_STATUS when the PMI is raised, i.e. before
 * the disabling WRMSR completes (that write also flushes, so a region
 * the flush fills has raised its PMI by then too): so a PMI is owed
 * only when bit 55 is set right after our disable.  A bit-55 NMI
 * outside our tracing that finds no such debt is someone else's (a KVM
 * guest's; perf cannot own PT beside us, ownership.c), whenever it
 * comes.  What cannot be told apart: a foreign PMI raised while our
 * owed one is still undelivered shares the one status bit (bit 55 is
 * not per owner), and the one NMI that delivers both is claimed; the
 * owner whose trace filled its region then finds the bit clear.  The
 * debt lasts one NMI, until the next START, or for PT_PMI_OWED_NS,
 * long against delivery latency.
 */
#define PT_PMI_OWED_NS		(20 * NSEC_PER_MSEC)

/*
 * PMI rate limit.  Each PMI stops, accounts and restarts the hardware
 * (a few microseconds on silicon, more with a single-entry pad); with a
 * small ring at silicon rates (hundreds of MB/s to GB/s per core) the
 * regions fill faster than that can go on without starving the CPU.
 * So, as perf throttles a sampling event that exceeds its rate, at most
 * stream_pmi_max / 100 PMIs are serviced per PT_STREAM_PMI_WINDOW_NS on
 * one CPU (default 10,000 a second: at ~2 us each, 2 % of a CPU, a
 * tenth of perf's default perf_event_max_sample_rate); the PMI that
 * uses up the budget leaves the hardware stopped, a gap flagged
 * PT_LOSS_THROTTLED opens, and the first service after the window (a
 * read or poll that finds room, or the watchdog timer: polling, every
 * PT_STREAM_WD_PERIOD_NS, not an NMI) restarts it.  A window starts at
 * the first PMI after the last one ended, so under a flood the CPU
 * takes at most the budget per window, and the trace degrades to
 * bursts with loss records instead of livelocking the CPU.
 */
#define PT_STREAM_PMI_WINDOW_NS	(10 * NSEC_PER_MSEC)

static unsigned int stream_pmi_max = 10000;
module_param(stream_pmi_max, uint, 0644);
MODULE_PARM_DESC(stream_pmi_max,
		 "streaming: PMIs per second per CPU (counted per 10 ms window); the one that uses up a window's share leaves the trace stopped, with a loss record, until the window is over (then a read, poll or the 50 ms watchdog restarts it); default 10000, below 100 counts as 100");

/*
 * TraceEn went 1 -> 0 by our hand: one late PMI may follow, if the
 * hardware raised one that nobody has taken yet (bit 55 still set);
 * with the bit clear, an older debt was paid too, unless we acked its
 * bit ourselves before its NMI came (owed_nobit, pt_flight_take_pmi()).
 */
void pt_stream_pmi_owe_pending(struct pt_stream *s)
{
	u64 now = pt_stream_now_ns();

	if (READ_ONCE(s->owed_nobit) &&
	    time_after64(now, READ_ONCE(s->owed_until)))
		WRITE_ONCE(s->owed_nobit, false);
	if (pt_pmi_bit())
		WRITE_ONCE(s->owed_until, now + PT_PMI_OWED_NS);
	else if (!READ_ONCE(s->owed_nobit))
		WRITE_ONCE(s->owed_until, 0);
}

/* Has the hardware reached the INT position (or stopped)?  Live read. */
bool pt_stream_int_due(struct pt_cpu *pc)
{
	struct pt_stream *s = &pc->stream;
	u64 st, base, mask;

	if (pt_hw_read_output(&st, &base, &mask))
		return false;
	if (st & (PT_STATUS_STOPPED | PT_STATUS_ERROR))
		return true;
	return s->start_pos + pt_stream_written(pc, base, mask) >=
	       s->marks.int_end;
}

/*
 * Do the PT MSRs hold our state right now?  An NMI can find someone
 * else's there: a KVM guest's (kvm_intel pt_mode=1 swaps it in around VM
 * entry, and KVM since 6.3, by our reading, handles the VM-exit NMI
 * before it puts the host's back) or perf's, if it took PT over.  A bit
 * 55 raised by that state is theirs, and servicing it would write our
 * state into theirs (KVM would then save our ToPA as the guest's).  Our
 * own state while handle_nmi is set: exactly our RTIT_CTL with TraceEn
 * (only we write it, and Stopped leaves it), OUTPUT_BASE one of our
 * tables.
 */
bool pt_stream_hw_ours(struct pt_cpu *pc)
{
	return pt_src_hw_holder(pc, pc->stream.ctl) == PT_HW_OURS;
}

/*
 * A stream's PMI in VMX operation (pt_flight_halted_lap() says why its bit
 * 55 may be a KVM guest's), asked after the service halted the trace
 * (the pointers are exact only then): had the output reached the INT
 * position it was given (a single-entry region signals up to its
 * pt_topa_pmi_window() early), or did the hardware stop or fail?  Else
 * the PMI was not ours: the service found nothing due and restarted.
 */
static bool pt_stream_int_was_due(struct pt_cpu *pc, u64 int_end)
{
	struct pt_stream *s = &pc->stream;
	struct pt_buffer *buf = pc->buf;
	u64 win = pt_topa_pmi_window(pt_topa_region_size(&buf->topa,
					(int_end + buf->size - 1) % buf->size));

	return s->error ||
	       (s->rtit_status & (PT_STATUS_STOPPED | PT_STATUS_ERROR)) ||
	       s->head + win >= int_end;
}

/* Clear bit 55 if @set; false (nothing left to clear). */
bool pt_pmi_status_reset(bool set)
{
	if (set)
		pt_wrmsr(PT_MSR_PERF_GLOBAL_STATUS_RESET,
			 PT_GLOBAL_STATUS_TOPA_PMI);
	return false;
}

/* Acknowledge bit 55 and let the next PMI through. */
static void pt_pmi_ack(void)
{
	pt_pmi_status_reset(true);
	if (pt_hw->pmi_rearm)
		pt_hw->pmi_rearm();
}

/*
 * Our hardware is not running (a gap, an error, after the final stop):
 * bit 55 is ours only as the one PMI owed after our last halt, and only
 * while nobody traces (TraceEn=0: a PMI of a running foreign trace is
 * not ours).  Anything else stays with the handlers after us.  Should we
 * have acked the owed PMI's bit ourselves (a flight lap taken at a
 * stop), its NMI still comes, with the bit clear: claimed all the same,
 * only as that one NMI and only within the debt's time.
 *
 * On a CPU in VMX operation a KVM guest's ToPA PMI may have set the same
 * bit before ours was delivered: the one NMI carries both (VM exits
 * clear TraceEn, so the check above cannot tell).  perf's handler, after
 * ours, hands a bit 55 to KVM (perf_guest_handle_intel_pt_intr()),
 * which injects it into the guest, and acknowledges the whole status;
 * so there the owed NMI is claimed (no unknown NMI) but the bit is left
 * for it.  Should nothing acknowledge it, the next START that counts
 * PMIs does, or module exit (pmi.c).
 */
static int pt_stream_nmi_owed(struct pt_stream *s, bool pmi)
{
	u64 ctl;

	if ((!pmi && !READ_ONCE(s->owed_nobit)) || !pt_stream_pmi_owed(s) ||
	    pt_rdmsr(PT_MSR_RTIT_CTL, &ctl) || (ctl & PT_CTL_TRACEEN)) {
		s->nmis_foreign++;
		return NMI_DONE;
	}
	return pt_stream_pmi_pay(s, pmi && !pt_hw->vmx_on());
}

void pt_stream_pmi_owe(struct pt_stream *s)
{
	WRITE_ONCE(s->owed_until, pt_stream_now_ns() + PT_PMI_OWED_NS);
}

bool pt_stream_pmi_owed(struct pt_stream *s)
{
	u64 until = READ_ONCE(s->owed_until);

	return until && !time_after64(pt_stream_now_ns(), until);
}

int pt_stream_pmi_pay(struct pt_stream *s, bool ack)
{
	WRITE_ONCE(s->owed_until, 0);
	WRITE_ONCE(s->owed_nobit, false);
	pt_pmi_status_reset(ack);
	if (pt_hw->pmi_rearm)
		pt_hw->pmi_rearm();
	WRITE_ONCE(s->late_pmis, s->late_pmis + 1);
	return NMI_HANDLED;
}

/* Is IA32_PERF_GLOBAL_STATUS bit 55 (ToPA PMI) set? */
bool pt_pmi_bit(void)
{
	u64 gs = 0;

	return !pt_rdmsr(PT_MSR_PERF_GLOBAL_STATUS, &gs) &&
	       (gs & PT_GLOBAL_STATUS_TOPA_PMI);
}

/*
 * Count a streaming PMI against the rate limit.  At the budget the
 * stream is throttled: pt_stream_restart() leaves the hardware stopped
 * (a gap flagged PT_LOSS_THROTTLED) until a service after the window.
 */
void pt_stream_throttle(struct pt_stream *s, u64 now)
{
	if (now - s->pmi_win_ns >= PT_STREAM_PMI_WINDOW_NS) {
		s->pmi_win_ns = now;
		s->pmi_win_count = 0;
	}
	/* The PMI that uses up the budget is the one that stops. */
	if (++s->pmi_win_count < max(READ_ONCE(stream_pmi_max) / 100, 1U))
		return;
	s->throttled = true;
	s->throttle_until = s->pmi_win_ns + PT_STREAM_PMI_WINDOW_NS;
	s->throttles++;
}

int pt_stream_nmi(struct pt_cpu *pc)
{
	struct pt_stream *s = &pc->stream;
	u64 t0, dt;
	bool pmi, flight, vmx, ack, ours = true;

	if (!READ_ONCE(s->armed))
		return READ_ONCE(s->owed_until) ?
		       pt_stream_nmi_owed(s, pt_pmi_bit()) : NMI_DONE;
	t0 = pt_stream_now_ns();
	flight = READ_ONCE(s->flight);
	pmi = pt_pmi_bit();
	if (!READ_ONCE(s->handle_nmi)) {
		if (!READ_ONCE(s->busy))
			return pt_stream_nmi_owed(s, pmi);
		/* An IPI of ours is working: claim, defer to it. */
		if (!pmi)
			return NMI_DONE;
		WRITE_ONCE(s->pmi_pending, true);
		pt_pmi_ack();
		return NMI_HANDLED;
	}
	if (!pt_stream_hw_ours(pc)) {
		s->nmis_foreign++;
		return NMI_DONE;
	}
	/*
	 * Should another handler have acked bit 55 first (pmi.c registers
	 * this one first for that reason), streaming asks its own state; a
	 * flight lap has no state to ask and relies on the bit.
	 */
	if (!pmi && (flight || !pt_stream_int_due(pc))) {
		s->nmis_foreign++;
		return NMI_DONE;
	}
	/*
	 * Bit 55 is acknowledged once, as soon as it is known ours: outside
	 * VMX operation before the work (the halt's
	 * pt_stream_pmi_owe_pending() must not take the PMI in hand for a
	 * late one), in VMX operation after it,
	 * since only the work can tell (a guest's bit is left set).
	 */
	vmx = pmi && pt_hw->vmx_on();
	ack = pmi;
	if (!vmx)
		ack = pt_pmi_status_reset(ack);
	/* Not busy: an NMI cannot come in while this one runs. */
	WRITE_ONCE(s->handle_nmi, false);
	barrier();
	if (flight) {
		ours = pt_flight_lap(pc, vmx);
	} else {
		u64 int_end = s->marks.int_end;

		/* At the limit: the restart keeps a throttled gap open. */
		pt_stream_throttle(s, t0);
		pt_stream_service(pc, true);
		if (vmx)
			ours = pt_stream_int_was_due(pc, int_end);
	}
	if (ours)
		pt_pmi_status_reset(ack);
	barrier();
	WRITE_ONCE(s->handle_nmi, s->hw_on);
	if (pt_hw->pmi_rearm)
		pt_hw->pmi_rearm();
	if (!ours) {
		s->nmis_foreign++;
		return NMI_DONE;
	}
	WRITE_ONCE(s->pmis, s->pmis + 1);
	dt = pt_stream_now_ns() - t0;
	s->handler_ns += dt;
	if (dt > s->handler_max_ns)
		s->handler_max_ns = dt;
	if (!flight)
		pt_stream_wake(pc);
	return NMI_HANDLED;
}
