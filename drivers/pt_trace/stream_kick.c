// SPDX-License-Identifier: GPL-2.0
/*
 * Kicks: a stream in a gap for lack of room, or about to stop at a STOP
 * the reader has since released data beyond, is serviced on the traced
 * CPU (an IPI) as soon as a read(2), a poll(2) or the kick work finds
 * the reader made room.  The driver learns data_tail only when it
 * services the ring; a reader that only stores data_tail in the control
 * page is polled by the kick work while the ring is stalled.
 */
#include <linux/kernel.h>
#include <linux/lockdep.h>
#include <linux/smp.h>
#include <linux/workqueue.h>

#include "buffer.h"
#include "core.h"
#include "stream.h"
#include "stream_priv.h"

/*
 * The next interrupt is the STOP's own: the hardware stops there before
 * the driver can learn the reader's progress again (a PMI found the
 * reader behind by all but the head's region, or the watermark is that
 * large).  Any CPU; a hint.  Single-entry ToPA stops at each region's
 * end anyway (its PMI comes early, inside the margin).
 */
bool pt_stream_stop_next(struct pt_cpu *pc)
{
	struct pt_stream *s = &pc->stream;

	return !pc->buf->topa.single_entry && READ_ONCE(s->hw_on) &&
	       READ_ONCE(s->marks_set) &&
	       READ_ONCE(s->marks.int_end) == READ_ONCE(s->marks.stop_end);
}

static bool pt_stream_stop_stale(struct pt_cpu *pc);

static void pt_stream_kick_ipi(void *info)
{
	struct pt_cpu *pc = info;
	struct pt_stream *s = &pc->stream;

	if (s->error)
		return;
	if (s->stalled || pt_stream_stop_stale(pc))
		pt_stream_ipi_service(pc, true);
}

/*
 * The marks a service would place now, from any CPU (a hint): what
 * pt_topa_stream_marks() returns, or 1 for a data_tail that makes no
 * sense, which the traced CPU judges (pt_stream_tail()).
 */
static int pt_stream_marks_now(struct pt_cpu *pc, struct pt_topa_marks *m)
{
	u64 head = READ_ONCE(pc->stream.head);
	u64 tail = READ_ONCE(pc->buf->ctrl->data_tail);

	if (tail > head || head - tail > pc->buf->size)
		return 1;
	return pt_topa_stream_marks(&pc->buf->topa, head, tail, 0, m);
}

/* Is there room for the hardware again?  (Any CPU; a hint.) */
static bool pt_stream_room(struct pt_cpu *pc)
{
	struct pt_topa_marks m;

	return pt_stream_marks_now(pc, &m) >= 0;
}

/*
 * Will the hardware stop, with no PMI before, at a STOP that the reader
 * has since released data beyond?  (Any CPU, a hint; the IPI asks again
 * on the traced CPU.)  The driver learns data_tail only when it services
 * the ring.  Where the next interrupt is the STOP's own, however soon
 * the reader catches up, the hardware stops there, and the trace loses
 * what the CPU does until the PMI is served (a HW_STOP record; the
 * bench saw one a lap after a TCG stall of the reader).  perf has the
 * same gap.  So a read or poll that finds the ring in that state
 * services it at once (an IPI; what a PMI does: halt, account, place
 * the marks by the new tail, restart), before the hardware gets there;
 * and poll() reports EPOLLIN in that state whatever the watermark, so
 * that the reader comes to read.
 */
static bool pt_stream_stop_stale(struct pt_cpu *pc)
{
	u64 stop_end = READ_ONCE(pc->stream.marks.stop_end);
	struct pt_topa_marks m;

	return pt_stream_stop_next(pc) && !pt_stream_marks_now(pc, &m) &&
	       m.stop_end > stop_end;
}

void pt_stream_kick(struct pt_cpu *pc)
{
	struct pt_stream *s = &pc->stream;

	lockdep_assert_held(&pc->lock);
	if (!pc->running || pc->cfg.mode != PT_MODE_STREAM ||
	    READ_ONCE(s->error))
		return;
	if (READ_ONCE(s->stalled) ? !pt_stream_room(pc) :
				    !pt_stream_stop_stale(pc))
		return;
	smp_call_function_single(pc->cpu, pt_stream_kick_ipi, pc, 1);
}

void pt_stream_kick_fn(struct work_struct *w)
{
	struct pt_cpu *pc = container_of(to_delayed_work(w), struct pt_cpu,
					 stream.kick_work);
	bool again;

	mutex_lock(&pc->lock);
	pt_stream_kick(pc);
	/* A reader that only stores data_tail gets no other call. */
	again = pc->running && READ_ONCE(pc->stream.stalled) &&
		!READ_ONCE(pc->stream.error);
	if (again)
		schedule_delayed_work(&pc->stream.kick_work, 1);
	mutex_unlock(&pc->lock);
}
