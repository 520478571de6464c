/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Streaming capture (PT_MODE_STREAM): the ring between the hardware and
 * a reader, the service routine shared by the PMI and the IPIs, loss
 * records, read(2) and poll(2).  See stream.c (it has the map of the
 * stream_*.c files).
 */
#ifndef _PT_TRACE_STREAM_H
#define _PT_TRACE_STREAM_H

#include <linux/sizes.h>
#include <linux/types.h>

struct pt_cpu;

/* Where the loss records start in the control page. */
#define PT_STREAM_LOSS_OFFSET	512

void pt_stream_init(struct pt_cpu *pc);
/* A 0 watermark means half the buffer. */
u64 pt_stream_watermark(const struct pt_cpu *pc);
/*
 * Forget the last session's positions and counters (pc->lock held,
 * stopped): before a start, and when the buffer is replaced.
 */
void pt_stream_clear(struct pt_cpu *pc);
/*
 * The ring alone, for a source that copies records into it (BTS,
 * source_bts.c).  ring_reset: a new session (pc->lock held, stopped).
 * The others on the traced CPU, IRQs off or NMI: room for the writer
 * (from the reader's sane tail), append at head, a loss record (its
 * end time returned), publish data_head and wake readers.
 */
void pt_stream_ring_reset(struct pt_cpu *pc);
u64 pt_stream_ring_room(struct pt_cpu *pc);
void pt_stream_ring_write(struct pt_cpu *pc, const void *src, u64 len);
u64 pt_stream_ring_loss(struct pt_cpu *pc, u64 pos, u64 bytes, u32 flags,
			u64 start_ns, u64 start_tsc);
void pt_stream_ring_publish(struct pt_cpu *pc);
/* As pt_stream_ring_publish(), readers woken from irq_work (rq locked). */
void pt_stream_ring_publish_later(struct pt_cpu *pc);
/* CLOCK_MONOTONIC, NMI-safe: the loss records' clock. */
u64 pt_stream_now_ns(void);
/* Before a start, pc->lock held, hardware off: markers and pointers. */
int pt_stream_prepare(struct pt_cpu *pc, u64 *base, u64 *mask);
/* In the start IPI, once TraceEn is set with @ctl. */
void pt_stream_started(struct pt_cpu *pc, u64 ctl);
/*
 * Around any other IPI of ours that programs the hardware (START): a
 * bit-55 NMI meanwhile is ours, left in pmi_pending.
 */
void pt_stream_ipi_enter(struct pt_cpu *pc);
void pt_stream_ipi_exit(struct pt_cpu *pc);
/* A START failed: no PMI is ours (none was raised). */
void pt_stream_disarm(struct pt_cpu *pc);
/* The stop IPI for streaming: stop, account, close any gap. */
void pt_stream_stop_ipi(void *info);
/*
 * Following (follow.c): a followed task was switched in (@in) or out of
 * this CPU.  Traced CPU, IRQs off (the switch tracepoint).  Out: the
 * hardware stops and what it wrote is accounted and published, without
 * a gap; in: it resumes where it stopped.
 */
void pt_stream_follow(struct pt_cpu *pc, bool in);
/* pc->lock held: resume a stalled ring if the reader made room. */
void pt_stream_kick(struct pt_cpu *pc);
/* After the last stop (release): no work or PMI refers to pc. */
void pt_stream_quiesce(struct pt_cpu *pc);
/* The NMI_LOCAL handler's body for this CPU (NMI_DONE/NMI_HANDLED). */
int pt_stream_nmi(struct pt_cpu *pc);
/* Fill the control page's streaming fields (pc->lock held). */
void pt_stream_update_ctrl(struct pt_cpu *pc);

/*
 * The flight recorder.  A ToPA ring of at least flight_pmi_min bytes
 * (module parameter, default PT_FLIGHT_LAP_PMI_MIN) counts its laps
 * through the PMI of the INT on its last region (the same NMI handler);
 * smaller rings and single range arm no PMI (stream_flight.c says why).
 * Before a flight START (pc->lock held, hardware off):
 */
#define PT_FLIGHT_LAP_PMI_MIN	SZ_1M
void pt_flight_prepare(struct pt_cpu *pc);
/* In the start IPI, once TraceEn is set with @ctl. */
void pt_flight_started(struct pt_cpu *pc, u64 ctl);
/*
 * In the stop or status IPI of a flight session: stop (TraceEn off,
 * flushed) and read RTIT_STATUS, the output pointers and the laps
 * counted at one instant (a lap whose PMI has not been handled yet is
 * counted; @live: a status, which then resumes).  0 or an MSR error; a
 * hardware error is reported in @status.
 */
int pt_flight_pause(struct pt_cpu *pc, bool live, u64 *status, u64 *base,
		    u64 *mask, u64 *laps);
/*
 * After a @live pause, with what it read (@status with Error if the
 * pause failed): restart where it stopped.
 */
void pt_flight_resume(struct pt_cpu *pc, u64 status, u64 base, u64 mask);
/*
 * A late PMI (raised before a halt of ours, delivered after it): its NMI
 * finds nothing to do, and LVTPC stays masked unless it is claimed and
 * re-armed.  A source that knows one is coming owes it (for
 * PT_PMI_OWED_NS, stream_pmi.c); one NMI with nothing else to do is then
 * claimed and paid: LVTPC unmasked (@ack: bit 55 acknowledged too),
 * counted in late_pmis.  PT owes after a halt with bit 55 set, BTS after
 * draining outside its NMI an index its PMI had not served.
 */
void pt_stream_pmi_owe(struct pt_stream *s);
bool pt_stream_pmi_owed(struct pt_stream *s);
int pt_stream_pmi_pay(struct pt_stream *s, bool ack);
/* At the final stop, after the pause: later PMIs are not ours. */
void pt_flight_end(struct pt_cpu *pc);

#endif /* _PT_TRACE_STREAM_H */
