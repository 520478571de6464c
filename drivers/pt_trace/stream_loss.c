// SPDX-License-Identifier: GPL-2.0
/*
 * Loss records: the slots in the control page from PT_STREAM_LOSS_OFFSET
 * on, the gaps they close and the lost bytes they count, for every
 * source (BTS appends its own through pt_stream_ring_loss()).
 *
 * Gaps.  When the hardware stops (STATUS.Stopped) or cannot be restarted
 * for lack of room, a gap opens at the current head; when tracing
 * resumes it is closed as a loss record (position, CLOCK_MONOTONIC and
 * TSC span) in the control page.  A gap resumes with RTIT_STATUS = 0, so
 * the next data starts with a PSB+.
 *
 * Lost bytes.  Silicon does not count the bytes it could not write, so
 * there a record's bytes stay 0 and nothing is invented.  A backend that
 * counts them (the model: pt_hw_lost_bytes()) is read at every
 * accounting point (each halt of the hardware, on the traced CPU); what
 * it counted since the previous one belongs to the gap open then, or,
 * when none is (the hardware ran without stopping and still lost bytes;
 * the model does not do that today), to a PT_LOSS_DROPPED record at the
 * position the run began, the first place they can belong.  So every
 * counted byte lands in exactly one record.
 */
#include <linux/kernel.h>
#include <linux/mm.h>
#include <asm/msr.h>

#include "buffer.h"
#include "core.h"
#include "hw.h"
#include "stream.h"
#include "stream_priv.h"

unsigned int pt_loss_slots(void)
{
	return (PAGE_SIZE - PT_STREAM_LOSS_OFFSET) /
	       sizeof(struct pt_trace_loss);
}

static struct pt_trace_loss *pt_loss_slot(struct pt_buffer *buf, u64 n)
{
	return (struct pt_trace_loss *)((u8 *)buf->ctrl +
					PT_STREAM_LOSS_OFFSET) +
	       n % pt_loss_slots();
}

void pt_gap_open(struct pt_stream *s, u32 why)
{
	if (!s->stalled) {
		s->stalled = true;
		s->stall_pos = s->head;
		s->stall_ns = pt_stream_now_ns();
		s->stall_tsc = rdtsc();
		s->loss_flags = 0;
		s->gap_bytes = 0;
	}
	s->loss_flags |= why;
}

/* Append a loss record ending now (returned); traced CPU, no lock. */
static u64 pt_loss_record(struct pt_cpu *pc, u64 pos, u64 bytes, u32 flags,
			  u64 start_ns, u64 start_tsc)
{
	struct pt_stream *s = &pc->stream;
	struct pt_trace_mmap_page *c = pc->buf->ctrl;
	struct pt_trace_loss *l;
	u64 n = s->losses;

	l = pt_loss_slot(pc->buf, n);
	l->pos = pos;
	l->bytes = bytes;
	l->start_ns = start_ns;
	l->end_ns = pt_stream_now_ns();
	l->start_tsc = start_tsc;
	l->end_tsc = rdtsc();
	l->flags = flags | (s->lost_known ? PT_LOSS_BYTES_KNOWN : 0);
	l->seq = (u32)n;
	l->reserved = 0;
	WRITE_ONCE(s->lost_bytes, s->lost_bytes + bytes);
	WRITE_ONCE(c->lost_bytes, s->lost_bytes);
	WRITE_ONCE(s->losses, n + 1);
	/* The record before the count (readers acquire loss_records). */
	smp_store_release(&c->loss_records, n + 1);
	return l->end_ns;
}

void pt_gap_close(struct pt_cpu *pc)
{
	struct pt_stream *s = &pc->stream;

	if (!s->stalled)
		return;
	s->stalled = false;
	/* Time not traced: only gaps (a drop happened while tracing). */
	s->lost_ns += pt_loss_record(pc, s->stall_pos, s->gap_bytes,
				     s->loss_flags, s->stall_ns,
				     s->stall_tsc) - s->stall_ns;
}

/*
 * An accounting point, on the traced CPU with the hardware off: what the
 * backend counted as lost since the previous one goes to the open gap,
 * or, with none open, into a record at the start of the run that lost it.
 */
void pt_stream_account_lost(struct pt_cpu *pc)
{
	struct pt_stream *s = &pc->stream;
	u64 now, delta;

	if (!s->lost_known || !pt_hw_lost_bytes(&now))
		return;
	delta = now - s->lost_mark;
	s->lost_mark = now;
	if (s->stalled)
		s->gap_bytes += delta;
	else if (delta)
		pt_loss_record(pc, s->start_pos, delta, PT_LOSS_DROPPED,
			       s->run_ns, s->run_tsc);
}

u64 pt_stream_ring_loss(struct pt_cpu *pc, u64 pos, u64 bytes, u32 flags,
			u64 start_ns, u64 start_tsc)
{
	return pt_loss_record(pc, pos, bytes, flags, start_ns, start_tsc);
}
