// SPDX-License-Identifier: GPL-2.0
/*
 * The streaming ring, shared by the sources (PT's service routine in
 * stream.c, BTS's copying in source_bts.c): the reader's position made
 * sane, data_head and the counters published in the control page,
 * readers woken (from NMI through irq_work), the ring's reset and the
 * control page's streaming fields; and the clock of the loss records.
 */
#include <linux/irq_work.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/timekeeping.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "buffer.h"
#include "core.h"
#include "stream.h"
#include "stream_priv.h"

/* The reader's position, made sane: within [head - size, head], never back. */
u64 pt_stream_tail(struct pt_cpu *pc)
{
	struct pt_stream *s = &pc->stream;
	u64 t = READ_ONCE(pc->buf->ctrl->data_tail);

	/* Pairs with the reader's release store of data_tail. */
	smp_mb();
	if (t > s->head)
		t = s->head;
	if (t < s->tail)
		t = s->tail;
	s->tail = t;
	return t;
}

void pt_stream_publish(struct pt_cpu *pc)
{
	struct pt_stream *s = &pc->stream;
	struct pt_trace_mmap_page *c = pc->buf->ctrl;

	WRITE_ONCE(c->pmis, s->pmis);
	WRITE_ONCE(c->stops, s->stops);
	/* The data is visible (wmb() after the stop): then the head. */
	pt_buffer_publish_head(pc->buf, s->head);
}

/* Wake readers; from NMI through irq_work. */
void pt_stream_wake(struct pt_cpu *pc)
{
	if (in_nmi())
		irq_work_queue(&pc->stream.wake_work);
	else
		wake_up_interruptible(&pc->stream.wq);
}

void pt_stream_wake_fn(struct irq_work *w)
{
	struct pt_cpu *pc = container_of(w, struct pt_cpu, stream.wake_work);

	wake_up_interruptible(&pc->stream.wq);
	if (READ_ONCE(pc->stream.stalled))
		schedule_delayed_work(&pc->stream.kick_work, 1);
}

/*
 * The ring for a source that copies its records in (BTS, source_bts.c)
 * rather than having the hardware write the buffer: the same positions,
 * control page, loss records, read(2) and poll(2) as PT's streaming.
 * Traced CPU, IRQs off or NMI, like the service routine.
 */
u64 pt_stream_ring_room(struct pt_cpu *pc)
{
	return pc->buf->size - (pc->stream.head - pt_stream_tail(pc));
}

void pt_stream_ring_write(struct pt_cpu *pc, const void *src, u64 len)
{
	struct pt_stream *s = &pc->stream;
	struct pt_buffer *buf = pc->buf;
	u64 done = 0;

	while (done < len) {
		u64 o = (s->head + done) % buf->size;
		u64 n = min_t(u64, len - done, PAGE_SIZE - offset_in_page(o));

		memcpy((void *)pt_buffer_ptr(buf, o), (const u8 *)src + done,
		       n);
		done += n;
	}
	s->head += len;
	WRITE_ONCE(s->bytes, s->bytes + len);
}

void pt_stream_ring_publish(struct pt_cpu *pc)
{
	pt_stream_publish(pc);
	pt_stream_wake(pc);
}

void pt_stream_ring_publish_later(struct pt_cpu *pc)
{
	pt_stream_publish(pc);
	irq_work_queue(&pc->stream.wake_work);
}

u64 pt_stream_now_ns(void)
{
	return ktime_get_mono_fast_ns();	/* NMI-safe */
}

/* A new streaming session: positions, counters and the control page. */
void pt_stream_ring_reset(struct pt_cpu *pc)
{
	struct pt_trace_mmap_page *c = pc->buf->ctrl;

	pt_stream_clear(pc);
	WRITE_ONCE(c->data_tail, 0);
	WRITE_ONCE(c->lost_bytes, 0);
	WRITE_ONCE(c->data_head, 0);
	WRITE_ONCE(pc->buf->data_head, 0);
	WRITE_ONCE(c->loss_records, 0);
	memset((u8 *)c + PT_STREAM_LOSS_OFFSET, 0,
	       PAGE_SIZE - PT_STREAM_LOSS_OFFSET);
}

void pt_stream_update_ctrl(struct pt_cpu *pc)
{
	struct pt_trace_mmap_page *c = pc->buf->ctrl;

	WRITE_ONCE(c->loss_offset, PT_STREAM_LOSS_OFFSET);
	WRITE_ONCE(c->loss_slots, pt_loss_slots());
	if (pc->cfg.mode == PT_MODE_STREAM)
		WRITE_ONCE(c->watermark, (u32)min_t(u64, U32_MAX,
						    pt_stream_watermark(pc)));
}
