// SPDX-License-Identifier: GPL-2.0
/*
 * The flight recorder's hardware side: its sessions share the stream's
 * per-CPU state, IPI brackets and NMI handler (stream.c, stream_pmi.c),
 * but the hardware overwrites the buffer in a loop and nothing is read
 * until it pauses.
 *
 * Lap PMIs.  Only in a ToPA ring of at least flight_pmi_min bytes
 * (default PT_FLIGHT_LAP_PMI_MIN) does pt_topa_flight_marks() put INT on
 * the last region, so that each
 * lap raises one PMI and the driver counts laps instead of guessing:
 * head = laps * size + offset, and WRAPPED is exact.  A smaller ring
 * arms no PMI at all, as perf's snapshot mode: on silicon the trace
 * fills a small ring thousands of times a second (hundreds of MB/s to
 * GB/s per core with OS|User), one NMI per lap would be an NMI flood,
 * and on single-entry ToPA each would also stop and restart the
 * hardware.  There, as with single range, only WRAPPED is known (the
 * zeroed-window check in core.c) and head counts at most one lap.  The
 * floor bounds the lap PMIs at (trace rate) / 1 MiB: about a thousand
 * per second at 1 GB/s.
 *
 * Multi-entry ToPA signals when the last region fills, i.e. at the wrap:
 * the PMI only counts, the hardware runs on untouched.  Single-entry
 * ToPA signals some distance before the wrap (pt_topa_pmi_window()),
 * and a stop there could not tell a lap whose PMI came from one whose
 * PMI is still to come; so there the PMI stops the hardware, completes
 * the region with zeros (PAD) when it has not wrapped yet, counts the
 * lap and restarts at the start of the buffer (PacketByteCnt kept: PSBs
 * stay on their period), as streaming does with its margin: every lap
 * then ends at the PMI.  Same exclusion as streaming: handle_nmi is
 * cleared while an IPI reads, and a PMI meanwhile is left to it
 * (pmi_pending).
 *
 * Laps merge when the hardware completes a lap before the previous lap's
 * PMI was handled (bit 55 is one bit, and LVTPC stays masked until the
 * handler re-arms it): only with buffers that the trace fills in about
 * the PMI's latency (microseconds).  A lap whose PMI was lost entirely
 * is seen by the zeroed-window check when no lap was counted (core.c),
 * so WRAPPED is never missed.
 *
 * Live status.  The output pointers read while TraceEn=1 are unreliable
 * and the newest packets reach memory only when TraceEn goes 1->0 (SDM
 * 36.2.7.7, 36.2.6.2), so a status of a running recorder pauses it as
 * perf's snapshot does: TraceEn off (flush, wmb()), read, and restart
 * where it stopped with PacketByteCnt kept (pt_flight_pause() and
 * pt_flight_resume()).  What it publishes is in memory.
 */
#include <linux/irq_work.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>

#include "buffer.h"
#include "core.h"
#include "hw.h"
#include "regs.h"
#include "source_pt.h"
#include "stream.h"
#include "stream_priv.h"

static unsigned long long flight_pmi_min = PT_FLIGHT_LAP_PMI_MIN;
module_param(flight_pmi_min, ullong, 0644);
MODULE_PARM_DESC(flight_pmi_min,
		 "flight recorder: ToPA buffers of at least this many bytes count laps with one PMI per lap (default 1 MiB; smaller values mean more NMIs per second on a busy CPU)");

/*
 * The driver sees RTIT_STATUS.Stopped (a TraceStop range: no flight ring
 * has STOP) only where it reads the status: a pause at a followed task's
 * switch-out, a lap PMI that halts the trace (in VMX operation; a lap
 * PMI elsewhere only counts), GET_STATUS or STOP.  TraceStop raises no
 * interrupt, so the first of these to see it wakes the pollers (poll(2)
 * then reports EPOLLPRI).  Traced CPU, IRQs off, possibly under the
 * runqueue lock (the sched_switch probe) or in NMI: woken from irq_work.
 */
static void pt_flight_note_stop(struct pt_cpu *pc)
{
	struct pt_stream *s = &pc->stream;

	if (READ_ONCE(s->hw_stopped))
		return;
	/* Seen by pt_core_poll() once woken (the wake-up orders it). */
	WRITE_ONCE(s->hw_stopped, true);
	irq_work_queue(&s->wake_work);
}

/*
 * Stop and flush (if on); read STATUS and the pointers.  0, an MSR
 * error, or 1 when the hardware reports Error.
 */
static int pt_flight_halt(struct pt_cpu *pc, u64 *st, u64 *base, u64 *mask)
{
	struct pt_stream *s = &pc->stream;
	int ret = 0;

	if (s->hw_on) {
		ret = pt_hw_disable(s->ctl);
		/*
		 * A lap PMI raised just before may come late
		 * (pt_stream_pmi_owe_pending()).
		 */
		if (s->lap_pmi)
			pt_stream_pmi_owe_pending(s);
	}
	s->hw_on = false;
	ret = ret ?: pt_hw_read_output(st, base, mask);
	if (!ret && (*st & PT_STATUS_STOPPED))
		pt_flight_note_stop(pc);
	if (!ret && (*st & PT_STATUS_ERROR))
		ret = 1;
	return ret;
}

/* Single-entry ToPA, a lap PMI: PAD the region if it has not wrapped. */
static u64 pt_flight_se_wrap(struct pt_cpu *pc, u64 off)
{
	struct pt_buffer *buf = pc->buf;
	u64 o;

	if (pt_topa_lap_done(&buf->topa, off))
		return off;
	for (o = off; o < buf->size; o = round_up(o + 1, PAGE_SIZE))
		memset((void *)pt_buffer_ptr(buf, o), 0,
		       min_t(u64, buf->size - o,
			     PAGE_SIZE - offset_in_page(o)));
	pc->stream.pad_bytes += buf->size - off;
	return 0;
}

/* Restart at @off with PacketByteCnt of @st; hardware off. */
static int pt_flight_restart(struct pt_cpu *pc, u64 off, u64 st)
{
	struct pt_stream *s = &pc->stream;
	u64 base, mask;
	int ret;

	/* VMX came on (caps.h): setting TraceEn would #GP; end the trace. */
	if (pt_src_vmx_blocks_trace())
		return -EBUSY;
	ret = pt_buffer_ptrs(pc->buf, off, &base, &mask);
	ret = ret ?: pt_wrmsr(PT_MSR_RTIT_OUTPUT_BASE, base);
	ret = ret ?: pt_wrmsr(PT_MSR_RTIT_OUTPUT_MASK, mask);
	ret = ret ?: pt_wrmsr(PT_MSR_RTIT_STATUS, st & PT_STATUS_BYTECNT_MASK);
	ret = ret ?: pt_wrmsr(PT_MSR_RTIT_CTL, s->ctl | PT_CTL_TRACEEN);
	if (!ret)
		s->hw_on = true;
	return ret;
}

/* Stays stopped; STOP reports it as HW_ERROR. */
static void pt_flight_error(struct pt_stream *s, u64 st)
{
	s->rtit_status = st | PT_STATUS_ERROR;
	s->errors++;
	s->error = true;
}

/*
 * A lap PMI that stops the hardware: on single-entry ToPA (see above),
 * and on a CPU in VMX operation (@ask).  There its bit 55 may be a KVM
 * guest's, since KVM before 6.3 puts the host's PT state (ours) back
 * before it handles the VM-exit NMI.  It is ours only if the output
 * sits where a lap's PMI leaves it (pt_topa_lap_plausible()); the
 * pointers are exact only with TraceEn clear (SDM: not while tracing),
 * so the trace halts, is asked, and restarts where it stopped.  Not
 * ours: no lap, the bit is left to perf's handler, which hands it to
 * KVM.  (A guest's PMI merged with one of ours is still taken with it.)
 * A lap pads a single-entry region not yet wrapped and restarts at the
 * start of the buffer; PacketByteCnt is kept.  Traced CPU, hardware
 * running, handle_nmi clear.  Returns whether the PMI was ours (true
 * after an error: the trace ended there).
 */
static bool pt_flight_halted_lap(struct pt_cpu *pc, bool ask)
{
	struct pt_stream *s = &pc->stream;
	struct pt_buffer *buf = pc->buf;
	u64 st = 0, base = 0, mask = 0, off;
	bool ours;

	if (pt_flight_halt(pc, &st, &base, &mask))
		goto err;
	off = pt_buffer_offset(buf, base, mask);
	ours = !ask || pt_topa_lap_plausible(&buf->topa, off);
	/*
	 * Stopped: a TraceStop range (no flight ring has STOP, and no
	 * single-entry CPU has TraceStop).  The trace ended there for good
	 * and stays off, as pt_flight_resume() leaves it; pt_flight_halt()
	 * woke the pollers.  Not an error, and the PMI is judged as any
	 * other: after the stop no lap of ours can raise one, so in VMX
	 * operation it is usually a guest's (it used to be taken, and the
	 * session to end in HW_ERROR).
	 */
	if (st & PT_STATUS_STOPPED) {
		if (ours)
			s->laps++;
		return ours;
	}
	if (ours) {
		if (buf->topa.single_entry)
			off = pt_flight_se_wrap(pc, off);
		s->laps++;
	}
	if (pt_flight_restart(pc, off, st))
		goto err;
	return ours;
err:
	pt_flight_error(s, st);
	return true;
}

/*
 * A lap PMI came (@vmx: in VMX operation, maybe a guest's); traced CPU,
 * handle_nmi clear.  Returns whether it was ours.
 */
bool pt_flight_lap(struct pt_cpu *pc, bool vmx)
{
	struct pt_stream *s = &pc->stream;

	if (!s->hw_on)
		return !vmx;
	if (vmx || pc->buf->topa.single_entry)
		return pt_flight_halted_lap(pc, vmx);
	s->laps++;
	return true;
}

/*
 * A PMI raised and not yet handled: bit 55 still set (acked here), or
 * taken by an NMI while handle_nmi was clear.  The bit first: an NMI
 * that comes between the two reads then finds it clear, or finds it set
 * and leaves pmi_pending for the second read; either way one PMI.
 * Only with lap PMIs armed: otherwise bit 55 is someone else's.
 */
static bool pt_flight_take_pmi(struct pt_stream *s, bool ack, bool ours)
{
	bool due = false;
	u64 gs = 0;

	if (!s->lap_pmi)
		return false;
	/* @ours false: the output is not where a lap leaves it (VMX). */
	if (ours && !pt_rdmsr(PT_MSR_PERF_GLOBAL_STATUS, &gs) &&
	    (gs & PT_GLOBAL_STATUS_TOPA_PMI)) {
		pt_pmi_status_reset(ack);
		due = true;
	}
	barrier();
	if (READ_ONCE(s->pmi_pending)) {
		WRITE_ONCE(s->pmi_pending, false);
		return true;
	}
	/* Bit acked here, its NMI not come yet: it is owed (with no bit). */
	if (due && ack && READ_ONCE(s->owed_until))
		WRITE_ONCE(s->owed_nobit, true);
	return due;
}

void pt_flight_prepare(struct pt_cpu *pc)
{
	struct pt_stream *s = &pc->stream;
	struct pt_buffer *buf = pc->buf;

	WRITE_ONCE(s->handle_nmi, false);
	WRITE_ONCE(s->flight, true);
	s->lap_pmi = buf->output == PT_OUTPUT_TOPA &&
		     buf->size >= max_t(u64, READ_ONCE(flight_pmi_min),
					PAGE_SIZE);
	if (s->lap_pmi)
		pt_topa_flight_marks(&buf->topa);
	s->hw_on = false;
	s->error = false;
	s->pmi_pending = false;
	s->rtit_status = 0;
	s->laps = 0;
	WRITE_ONCE(s->hw_stopped, false);
	s->pmis = 0;
	s->nmis_foreign = 0;
	s->pad_bytes = 0;
	s->errors = 0;
	s->handler_ns = 0;
	s->handler_max_ns = 0;
	s->watchdog = 0;
	/* From here the CPU may take PMIs for this session. */
	WRITE_ONCE(s->armed, s->lap_pmi);
}

/*
 * The end of an IPI's work; as pt_stream_ipi_service(), a PMI that came
 * meanwhile (pmi_pending) is ours: serve it first.
 */
static void pt_flight_settle(struct pt_cpu *pc)
{
	struct pt_stream *s = &pc->stream;

	for (;;) {
		pt_stream_busy_end(s);
		if (!READ_ONCE(s->pmi_pending))
			break;
		pt_stream_busy_begin(s);
		if (pt_flight_take_pmi(s, true, true))
			pt_flight_lap(pc, false);
	}
}

void pt_flight_started(struct pt_cpu *pc, u64 ctl)
{
	struct pt_stream *s = &pc->stream;

	s->ctl = ctl & ~PT_CTL_TRACEEN;
	s->hw_on = !s->parked;
	/* Including a PMI between the TraceEn write and here. */
	pt_flight_settle(pc);
	if (pt_hw->pmi_rearm)
		pt_hw->pmi_rearm();
}

int pt_flight_pause(struct pt_cpu *pc, bool live, u64 *status, u64 *base,
		    u64 *mask, u64 *laps)
{
	struct pt_stream *s = &pc->stream;
	struct pt_buffer *buf = pc->buf;
	u64 off;
	int ret;

	pt_stream_busy_begin(s);
	*status = 0;
	ret = pt_flight_halt(pc, status, base, mask);
	if (ret > 0 && !s->error)
		pt_flight_error(s, *status);
	/*
	 * The final stop on a CPU in VMX operation leaves bit 55 set: a
	 * guest's PMI may share it (pt_stream_nmi_owed()); it is owed.
	 */
	if (!ret && !s->error &&
	    pt_flight_take_pmi(s, live || !pt_hw->vmx_on(),
			       !pt_hw->vmx_on() ||
			       pt_topa_lap_plausible(&buf->topa,
						     pt_buffer_offset(buf, *base,
								      *mask)))) {
		off = pt_buffer_offset(buf, *base, *mask);
		/*
		 * Its PMI not handled.  At the final stop the lap counts if
		 * it wrapped.  A pause does what the PMI would have done: an
		 * early single-entry PMI pads, counts and goes on from 0.
		 */
		if (live && buf->topa.single_entry &&
		    !pt_topa_lap_done(&buf->topa, off))
			ret = pt_buffer_ptrs(buf, pt_flight_se_wrap(pc, off),
					     base, mask);
		if (live || pt_topa_lap_done(&buf->topa, off))
			s->laps++;
	}
	if (s->error)
		*status |= PT_STATUS_ERROR;
	*laps = s->laps;
	return ret < 0 ? ret : 0;
}

void pt_flight_resume(struct pt_cpu *pc, u64 status, u64 base, u64 mask)
{
	struct pt_stream *s = &pc->stream;
	u64 off;

	/*
	 * A TraceStop range stopped the trace for good (STATUS.Stopped):
	 * it stays off, which writes no less than stopped hardware.  Parked
	 * (following): it stays off until a followed task comes.
	 */
	if (s->parked) {
		/* A status while parked: resume from what it read. */
		s->park_status = status;
		s->park_base = base;
		s->park_mask = mask;
	} else if (!s->error &&
		   !(status & (PT_STATUS_STOPPED | PT_STATUS_ERROR))) {
		off = pt_buffer_offset(pc->buf, base, mask);
		if (pt_flight_restart(pc, off, status))
			pt_flight_error(s, status);
	}
	/* A PMI that came meanwhile is ours: serve it first. */
	pt_flight_settle(pc);
}

/* Following, flight: pause (pointers kept) or resume where it paused. */
void pt_flight_follow(struct pt_cpu *pc, bool in)
{
	struct pt_stream *s = &pc->stream;
	u64 laps;

	if (!in) {
		if (pt_flight_pause(pc, true, &s->park_status, &s->park_base,
				    &s->park_mask, &laps) && !s->error)
			pt_flight_error(s, s->park_status);
		s->parked = true;
		pt_flight_settle(pc);
		return;
	}
	pt_stream_busy_begin(s);
	s->parked = false;
	/* Someone else's state meanwhile: not one write (STOP reports it). */
	if (!s->error && pt_src_hw_holder(pc, s->ctl) == PT_HW_FOREIGN)
		pt_flight_error(s, s->park_status);
	pt_flight_resume(pc, s->park_status, s->park_base, s->park_mask);
}

void pt_flight_end(struct pt_cpu *pc)
{
	/* As pt_stream_stop_ipi(): later PMIs are owed at most. */
	WRITE_ONCE(pc->stream.armed, false);
	pt_stream_busy_end(&pc->stream);
}
