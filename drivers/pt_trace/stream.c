// SPDX-License-Identifier: GPL-2.0
/*
 * Streaming capture: the buffer is a ring; the hardware (through the PMI)
 * advances data_head, the reader advances data_tail (read(2), or a store
 * in the control page).  The ToPA markers (topa.c) put STOP on the region
 * before unread data, so the hardware stops rather than overwrite it, and
 * INT where the reader wants to be woken.
 *
 * The service routine (pt_stream_service) runs on the traced CPU only,
 * with IRQs off (start/stop/kick IPIs) or in the PMI (NMI):
 *   TraceEn off (flushes), wmb(), read STATUS and the output pointers,
 *   advance head by what was written (never past the STOP position),
 *   note Stopped/Error, pad a single-entry region inside the early-PMI
 *   margin, read the reader's tail, place the markers again and restart
 *   at head, or stay stopped (a gap) when there is no room.
 * It takes no lock: every field it touches belongs to this CPU, and the
 * only interleaving, an NMI inside an IPI, is excluded by handle_nmi.
 *
 * The streaming files (stream.h is what the rest of the module calls,
 * stream_priv.h what they call of each other):
 *   stream.c           PT's service routine (halt, account, restart) and
 *                      the session around it: prepare, start, the IPIs,
 *                      stop, following, setup and quiesce
 *   stream_ring.c      the ring shared by the sources (PT and BTS):
 *                      the reader's tail, copying in, publishing
 *                      data_head, waking readers, the control page
 *   stream_loss.c      gaps and loss records in the control page
 *   stream_pmi.c       the NMI handler's body: whose PMI it is, the late
 *                      PMI owed after a halt, the PMI rate limit
 *   stream_watchdog.c  the timer that serves a PMI that never came
 *   stream_kick.c      servicing a ring the reader made room in
 *   stream_read.c      read(2) and poll(2)
 *   stream_flight.c    the flight recorder: lap PMIs, pause and resume
 */
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/smp.h>
#include <asm/msr.h>

#include "buffer.h"
#include "core.h"
#include "hw.h"
#include "regs.h"
#include "source_pt.h"
#include "stream.h"
#include "stream_priv.h"

/*
 * An IPI or the watchdog of ours works on the hardware (traced CPU,
 * IRQs off): a bit-55 NMI meanwhile is claimed and left to it
 * (pmi_pending), as perf does.  Outside these brackets a PMI is claimed
 * only when the hardware proves it ours (pt_stream_nmi()).
 */
void pt_stream_busy_begin(struct pt_stream *s)
{
	WRITE_ONCE(s->busy, true);
	WRITE_ONCE(s->handle_nmi, false);
	barrier();
}

void pt_stream_busy_end(struct pt_stream *s)
{
	barrier();
	WRITE_ONCE(s->handle_nmi, s->hw_on);
	barrier();
	WRITE_ONCE(s->busy, false);
	barrier();
}

u64 pt_stream_watermark(const struct pt_cpu *pc)
{
	return pc->cfg.watermark ? pc->cfg.watermark : pc->buf->size / 2;
}

/* The hardware (re)starts a run at s->head: where a drop would belong. */
static void pt_stream_run_begins(struct pt_stream *s)
{
	s->start_pos = s->head;
	s->run_ns = pt_stream_now_ns();
	s->run_tsc = rdtsc();
}

/* Zero (PAD) the rest of a single-entry region inside the PMI window. */
static void pt_stream_pad(struct pt_cpu *pc)
{
	struct pt_stream *s = &pc->stream;
	struct pt_buffer *buf = pc->buf;
	u64 left = pt_topa_region_left(&buf->topa, s->head);
	u64 off;

	if (left > pt_topa_pmi_window(pt_topa_region_size(&buf->topa,
							  s->head)))
		return;
	for (off = s->head; off < s->head + left; ) {
		u64 o = off % buf->size;
		u64 n = min_t(u64, s->head + left - off,
			      PAGE_SIZE - offset_in_page(o));

		memset((void *)pt_buffer_ptr(buf, o), 0, n);
		off += n;
	}
	s->pad_bytes += left;
	s->head += left;
}

/* Bytes written since the hardware was started at start_pos (< a lap). */
u64 pt_stream_written(struct pt_cpu *pc, u64 base, u64 mask)
{
	struct pt_buffer *buf = pc->buf;
	u64 off = pt_buffer_offset(buf, base, mask);

	return (off + buf->size - pc->stream.start_pos % buf->size) % buf->size;
}

/*
 * Another agent's state is in the PT MSRs (RTIT_CTL or OUTPUT_BASE not
 * ours) while we believed we ran: perf, or anything that took PT over.
 * The trace ends here with a loss record, readers are woken (read(2)
 * then says EIO, poll EPOLLERR, GET_STATUS PT_STATUS_TAKEN_OVER), and
 * no PT MSR is written for it again: not to stop, not to restore (the
 * other owner's trace goes on), and the buffer is never freed, since
 * the hardware may still write through our tables (core.c).
 */
static void pt_stream_taken_over(struct pt_cpu *pc)
{
	struct pt_stream *s = &pc->stream;

	s->hw_on = false;
	s->taken_over = true;
	s->error = true;
	s->takeovers++;
	pt_gap_open(s, PT_LOSS_TAKEN_OVER);
	pt_gap_close(pc);
}

/* Stop the hardware and account what it wrote. */
static void pt_stream_halt(struct pt_cpu *pc)
{
	struct pt_stream *s = &pc->stream;
	struct pt_buffer *buf = pc->buf;
	u64 st = 0, base = 0, mask = 0, n, room;
	enum pt_hw_holder holder;
	int ret = 0;

	if (!s->hw_on)
		return;
	holder = pt_src_hw_holder(pc, s->ctl);
	if (holder == PT_HW_FOREIGN) {
		pt_stream_taken_over(pc);
		return;
	}
	if (holder == PT_HW_OURS) {
		ret = pt_hw_disable(s->ctl);
		pt_stream_pmi_owe_pending(s);
	} else {
		/* Cleared by someone else, which flushed: make it visible. */
		wmb();
	}
	s->hw_on = false;
	ret = ret ?: pt_hw_read_output(&st, &base, &mask);
	if (ret) {
		st = PT_STATUS_ERROR;	/* an MSR fault: a driver bug */
		n = 0;
	} else {
		n = pt_stream_written(pc, base, mask);
		room = s->marks.stop_end - s->start_pos;
		if (!n && (st & PT_STATUS_STOPPED))
			n = room;
		n = min(n, room);
	}
	s->rtit_status = st;
	s->head = s->start_pos + n;
	s->bytes += n;
	if (st & PT_STATUS_ERROR) {
		s->errors++;
		s->error = true;
		pt_gap_open(s, PT_LOSS_HW_ERROR);
	} else if (st & PT_STATUS_STOPPED) {
		s->stops++;
		pt_gap_open(s, PT_LOSS_HW_STOP);
	}
	if (holder == PT_HW_CLEARED) {
		s->takeovers++;
		pt_gap_open(s, PT_LOSS_TAKEN_OVER);
	}
	pt_stream_account_lost(pc);
	if (buf->topa.single_entry && !s->error)
		pt_stream_pad(pc);
}

/* Restart at head if the reader left room; else keep the gap open. */
static void pt_stream_restart(struct pt_cpu *pc)
{
	struct pt_stream *s = &pc->stream;
	struct pt_buffer *buf = pc->buf;
	struct pt_topa_marks m;
	u64 base, mask, status;
	bool gap = s->stalled;
	int ret;

	/* Parked: the next followed task's switch-in resumes (follow.c). */
	if (s->error || s->parked)
		return;
	/*
	 * A trace someone else stopped resumes only once the CPU is ours
	 * again: our RTIT_CTL and table still there, TraceEn clear, and no
	 * VMX operation that forbids it (caps.h: setting TraceEn would #GP).
	 */
	if (gap && (s->loss_flags & PT_LOSS_TAKEN_OVER) &&
	    pt_src_hw_holder(pc, s->ctl) != PT_HW_CLEARED) {
		if (pt_src_hw_holder(pc, s->ctl) == PT_HW_FOREIGN)
			pt_stream_taken_over(pc);
		return;
	}
	if (pt_src_vmx_blocks_trace()) {
		pt_gap_open(s, PT_LOSS_TAKEN_OVER);
		return;
	}
	/* Throttled: only the watchdog timer restarts, after the window. */
	if (s->throttled) {
		if ((s64)(pt_stream_now_ns() - s->throttle_until) < 0) {
			pt_gap_open(s, PT_LOSS_THROTTLED);
			return;
		}
		s->throttled = false;
	}
	ret = pt_topa_stream_marks(&buf->topa, s->head, pt_stream_tail(pc),
				   s->wm, &m);
	if (ret) {
		pt_gap_open(s, PT_LOSS_NO_SPACE);
		return;
	}
	pt_topa_apply_marks(&buf->topa, s->marks_set ? &s->marks : NULL, &m);
	s->marks = m;
	s->marks_set = true;
	ret = pt_buffer_ptrs(buf, s->head % buf->size, &base, &mask);
	/* After a gap, PacketByteCnt = 0: the next data starts with PSB+. */
	status = gap ? 0 : s->rtit_status & PT_STATUS_BYTECNT_MASK;
	ret = ret ?: pt_wrmsr(PT_MSR_RTIT_OUTPUT_BASE, base);
	ret = ret ?: pt_wrmsr(PT_MSR_RTIT_OUTPUT_MASK, mask);
	ret = ret ?: pt_wrmsr(PT_MSR_RTIT_STATUS, status);
	ret = ret ?: pt_wrmsr(PT_MSR_RTIT_CTL, s->ctl | PT_CTL_TRACEEN);
	if (ret) {
		s->errors++;
		s->error = true;
		pt_gap_open(s, PT_LOSS_HW_ERROR);
		return;
	}
	pt_stream_run_begins(s);
	s->hw_on = true;
	if (gap) {
		s->resumes++;
		pt_gap_close(pc);
	}
}

void pt_stream_service(struct pt_cpu *pc, bool restart)
{
	pc->stream.services++;
	pt_stream_halt(pc);
	if (restart)
		pt_stream_restart(pc);
	pt_stream_publish(pc);
}

/*
 * IPI helpers: handle_nmi off while working, pending PMIs redone.  A PMI
 * deferred to the service (pmi_pending) counts against the rate limit
 * as one served in NMI does: else PMIs raised during services (an INT
 * reached as a followed task's switch halts the trace) escape the
 * limit, and with one raised inside every service this loop would go
 * round for ever with IRQs off (on a switch, the runqueue locked).
 * Throttled, the restart leaves the hardware stopped, and the next halt
 * raises nothing.
 */
void pt_stream_ipi_service(struct pt_cpu *pc, bool restart)
{
	struct pt_stream *s = &pc->stream;

	do {
		pt_stream_busy_begin(s);
		if (READ_ONCE(s->pmi_pending)) {
			WRITE_ONCE(s->pmi_pending, false);
			WRITE_ONCE(s->deferred, s->deferred + 1);
			pt_stream_throttle(s, pt_stream_now_ns());
		}
		pt_stream_service(pc, restart);
		pt_stream_busy_end(s);
	} while (READ_ONCE(s->pmi_pending) && restart);
}

void pt_stream_clear(struct pt_cpu *pc)
{
	struct pt_stream *s = &pc->stream;

	s->head = 0;
	s->tail = 0;
	s->start_pos = 0;
	s->stalled = false;
	s->error = false;
	s->rtit_status = 0;
	s->taken_over = false;
	s->pmis = 0;
	s->nmis_foreign = 0;
	s->bytes = 0;
	s->stops = 0;
	s->losses = 0;
	s->errors = 0;
	s->pad_bytes = 0;
	s->lost_ns = 0;
	s->handler_ns = 0;
	s->handler_max_ns = 0;
	s->resumes = 0;
	s->lost_bytes = 0;
	s->gap_bytes = 0;
	s->watchdog = 0;
	s->laps = 0;
	WRITE_ONCE(s->hw_stopped, false);
}

int pt_stream_prepare(struct pt_cpu *pc, u64 *base, u64 *mask)
{
	struct pt_stream *s = &pc->stream;
	struct pt_buffer *buf = pc->buf;
	int ret;

	ret = pt_buffer_layout(buf, true);
	if (ret)
		return ret;
	pt_stream_ring_reset(pc);
	s->wm = pt_stream_watermark(pc);
	s->hw_on = false;
	s->marks_set = false;
	s->pmi_pending = false;
	s->lost_known = false;
	s->services = 0;
	s->wd_suspect = false;
	s->wd_services = 0;
	s->pmi_win_ns = 0;
	s->pmi_win_count = 0;
	s->throttled = false;
	s->throttles = 0;
	s->deferred = 0;
	WRITE_ONCE(s->flight, false);
	ret = pt_topa_stream_marks(&buf->topa, 0, 0, s->wm, &s->marks);
	if (ret)
		return ret;
	pt_topa_apply_marks(&buf->topa, NULL, &s->marks);
	s->marks_set = true;
	/* From here the CPU may take PMIs for this session. */
	WRITE_ONCE(s->armed, true);
	return pt_buffer_ptrs(buf, 0, base, mask);
}

void pt_stream_started(struct pt_cpu *pc, u64 ctl)
{
	struct pt_stream *s = &pc->stream;

	s->ctl = ctl & ~PT_CTL_TRACEEN;
	s->hw_on = !s->parked;
	/* This CPU's count of lost bytes so far: the first accounting point. */
	s->lost_known = pt_hw_lost_bytes(&s->lost_mark);
	pt_stream_run_begins(s);
	barrier();
	WRITE_ONCE(s->handle_nmi, s->hw_on);
	/* Whatever masked LVTPC before us, the next PMI must get through. */
	if (pt_hw->pmi_rearm)
		pt_hw->pmi_rearm();
	/* On this CPU, in hardirq: the stop IPI can cancel it synchronously. */
	WRITE_ONCE(s->wd_on, true);
	hrtimer_start(&s->wd_timer, ns_to_ktime(PT_STREAM_WD_PERIOD_NS),
		      HRTIMER_MODE_REL_PINNED_HARD);
	/*
	 * A PMI between the TraceEn write and handle_nmi was deferred
	 * (pmi_pending): serve it now rather than leave it to the watchdog.
	 */
	barrier();
	if (READ_ONCE(s->pmi_pending))
		pt_stream_ipi_service(pc, true);
}

void pt_stream_stop_ipi(void *info)
{
	struct pt_cpu *pc = info;
	struct pt_stream *s = &pc->stream;

	pt_stream_busy_begin(s);
	s->follow_on = false;
	/*
	 * Its callback runs in hardirq on this CPU, so it is not running
	 * now and the cancel cannot fail; wd_on also stops a re-arm.
	 */
	WRITE_ONCE(s->wd_on, false);
	hrtimer_try_to_cancel(&s->wd_timer);
	barrier();
	pt_stream_halt(pc);
	/* A gap still open at the end of the trace is a loss too. */
	pt_gap_close(pc);
	pt_stream_publish(pc);
	/* The pointers are read: leave the MSRs as START found them. */
	if (!s->taken_over)
		pt_src_hw_restore(pc);
	/*
	 * A PMI of ours raised before the stop was taken inside this IPI
	 * (NMIs are not masked here) as pmi_pending; one still on its way
	 * is owed (pt_stream_pmi_owe_pending()); any other bit 55 is
	 * someone else's.
	 */
	WRITE_ONCE(s->armed, false);
	pt_stream_busy_end(s);
}

void pt_stream_ipi_enter(struct pt_cpu *pc)
{
	pt_stream_busy_begin(&pc->stream);
}

void pt_stream_ipi_exit(struct pt_cpu *pc)
{
	pt_stream_busy_end(&pc->stream);
}

void pt_stream_disarm(struct pt_cpu *pc)
{
	WRITE_ONCE(pc->stream.armed, false);
	WRITE_ONCE(pc->stream.flight, false);
}

void pt_stream_quiesce(struct pt_cpu *pc)
{
	WRITE_ONCE(pc->stream.armed, false);
	/* Before the irq_work: the watchdog may queue it. */
	WRITE_ONCE(pc->stream.wd_on, false);
	hrtimer_cancel(&pc->stream.wd_timer);
	irq_work_sync(&pc->stream.wake_work);
	cancel_delayed_work_sync(&pc->stream.kick_work);
	wake_up_interruptible_all(&pc->stream.wq);
}

void pt_stream_init(struct pt_cpu *pc)
{
	hrtimer_init(&pc->stream.wd_timer, CLOCK_MONOTONIC,
		     HRTIMER_MODE_REL_PINNED_HARD);
	pc->stream.wd_timer.function = pt_stream_wd_fn;
	mutex_init(&pc->stream.read_lock);
	init_waitqueue_head(&pc->stream.wq);
	init_irq_work(&pc->stream.wake_work, pt_stream_wake_fn);
	INIT_DELAYED_WORK(&pc->stream.kick_work, pt_stream_kick_fn);
}

void pt_stream_follow(struct pt_cpu *pc, bool in)
{
	struct pt_stream *s = &pc->stream;
	u64 head = s->head;
	bool stalled;

	if (s->flight) {
		pt_flight_follow(pc, in);
		return;
	}
	s->parked = !in;
	if (in && !s->error &&
	    pt_src_hw_holder(pc, s->ctl) == PT_HW_FOREIGN) {
		/* Someone else's state while parked: the trace ends. */
		pt_stream_busy_begin(s);
		pt_stream_taken_over(pc);
		pt_stream_publish(pc);
		pt_stream_busy_end(s);
		irq_work_queue(&s->wake_work);
		return;
	}
	stalled = s->stalled;
	pt_stream_ipi_service(pc, in);
	/*
	 * The runqueue is locked here: readers are woken from irq_work, for
	 * new data and for a gap this switch opened (the hardware stopped:
	 * poll() reports EPOLLPRI).
	 */
	if (s->head != head || (s->stalled && !stalled))
		irq_work_queue(&s->wake_work);
}
