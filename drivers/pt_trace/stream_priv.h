/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Between the streaming files (stream.c has the map): what one of them
 * defines and another calls.  The rest of the module uses stream.h.
 * Each function's comment is at its definition.
 */
#ifndef _PT_TRACE_STREAM_PRIV_H
#define _PT_TRACE_STREAM_PRIV_H

#include <linux/hrtimer.h>
#include <linux/time64.h>
#include <linux/types.h>

struct irq_work;
struct pt_cpu;
struct pt_stream;
struct work_struct;

/*
 * Long against the microseconds a PMI takes to arrive (the watchdog
 * waits two periods before it acts), short against a human's patience;
 * the cost is three MSR reads per period.
 */
#define PT_STREAM_WD_PERIOD_NS	(50 * NSEC_PER_MSEC)

/* stream.c: the service routine and the brackets of our work on it. */
void pt_stream_busy_begin(struct pt_stream *s);
void pt_stream_busy_end(struct pt_stream *s);
u64 pt_stream_written(struct pt_cpu *pc, u64 base, u64 mask);
void pt_stream_service(struct pt_cpu *pc, bool restart);
void pt_stream_ipi_service(struct pt_cpu *pc, bool restart);

/* stream_ring.c */
u64 pt_stream_tail(struct pt_cpu *pc);
void pt_stream_publish(struct pt_cpu *pc);
void pt_stream_wake(struct pt_cpu *pc);
void pt_stream_wake_fn(struct irq_work *w);

/* stream_loss.c */
unsigned int pt_loss_slots(void);
void pt_gap_open(struct pt_stream *s, u32 why);
void pt_gap_close(struct pt_cpu *pc);
void pt_stream_account_lost(struct pt_cpu *pc);

/* stream_pmi.c */
bool pt_pmi_bit(void);
void pt_stream_pmi_owe_pending(struct pt_stream *s);
bool pt_pmi_status_reset(bool set);
bool pt_stream_int_due(struct pt_cpu *pc);
bool pt_stream_hw_ours(struct pt_cpu *pc);
void pt_stream_throttle(struct pt_stream *s, u64 now);

/* stream_watchdog.c */
enum hrtimer_restart pt_stream_wd_fn(struct hrtimer *t);

/* stream_kick.c */
bool pt_stream_stop_next(struct pt_cpu *pc);
void pt_stream_kick_fn(struct work_struct *w);

/* stream_flight.c */
bool pt_flight_lap(struct pt_cpu *pc, bool vmx);
void pt_flight_follow(struct pt_cpu *pc, bool in);

#endif /* _PT_TRACE_STREAM_PRIV_H */
