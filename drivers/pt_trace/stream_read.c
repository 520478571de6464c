// SPDX-License-Identifier: GPL-2.0
/*
 * read(2) and poll(2) of a streaming CPU, in process context on any CPU:
 * the unread bytes from the published data_head and the control page's
 * data_tail, copying them out and releasing them, waiting for more, and
 * what poll(2) reports (flight sessions too: EPOLLPRI at a TraceStop).
 */
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include "buffer.h"
#include "core.h"
#include "stream.h"
#include "stream_priv.h"

/*
 * Unread bytes (any CPU): from the head as published, not the control
 * page's copy (its user may scribble it), and the control page's
 * data_tail.  A data_tail beyond the head is clamped in the control
 * page too: left there, it was beyond every head published later, and
 * read(2) and poll() waited forever on a running stream while the
 * driver took the bytes as consumed (abi_uaccess).  Only the value seen
 * is replaced: a reader's store meanwhile stays.
 */
static u64 pt_stream_unread(struct pt_buffer *buf, u64 *tail)
{
	struct pt_trace_mmap_page *c = buf->ctrl;
	/* Pairs with pt_buffer_publish_head(): the data below is visible. */
	u64 head = smp_load_acquire(&buf->data_head);
	u64 t = READ_ONCE(c->data_tail);

	if (t > head) {
		cmpxchg(&c->data_tail, t, head);
		t = head;
	}
	if (head - t > buf->size)
		t = head - buf->size;
	*tail = t;
	return head - t;
}

/* Lockless: the wait condition runs in a sleeping state. */
static bool pt_stream_ready(struct pt_cpu *pc, struct pt_buffer *buf)
{
	u64 tail;

	return !READ_ONCE(pc->running) || READ_ONCE(pc->stream.error) ||
	       pt_stream_unread(buf, &tail);
}

/*
 * Copy up to @len unread bytes and release exactly the bytes copied: a
 * fault part-way returns the bytes before it (EFAULT only when none
 * were).  No pc->lock here: copy_to_user may fault and take mmap_lock,
 * which mmap takes before pc->lock.  Readers are serialised by
 * stream.read_lock instead.
 */
static ssize_t pt_stream_copy(struct pt_buffer *buf, char __user *ubuf,
			      size_t len)
{
	u64 tail, n, done = 0;

	n = min_t(u64, len, pt_stream_unread(buf, &tail));
	while (done < n) {
		u64 o = (tail + done) % buf->size;
		u64 chunk = min_t(u64, n - done,
				  PAGE_SIZE - offset_in_page(o));

		u64 left = copy_to_user(ubuf + done, pt_buffer_ptr(buf, o),
					chunk);

		done += chunk - left;
		if (left)
			break;
	}
	if (!done && n)
		return -EFAULT;
	/* Done reading the data below the new tail: release it. */
	smp_store_release(&buf->ctrl->data_tail, tail + done);
	return done;
}

/*
 * The buffer to read, with a reference, and the state that decides what
 * an empty ring means: 0 = end of file (stopped), -EAGAIN = wait,
 * -EIO = RTIT_STATUS.Error, -EINVAL = not streaming.  The state is taken
 * under pc->lock before the copy: a STOP publishes its last data_head
 * before it clears 'running', so "stopped and nothing copied" means
 * drained.
 */
static int pt_stream_reader_get(struct pt_cpu *pc, struct pt_buffer **bufp)
{
	int empty;

	mutex_lock(&pc->lock);
	if (pc->cfg.mode != PT_MODE_STREAM || !pc->buf) {
		mutex_unlock(&pc->lock);
		return -EINVAL;
	}
	*bufp = pc->buf;
	pt_buffer_get(pc->buf);
	if (!pc->running)
		empty = 0;
	else if (READ_ONCE(pc->stream.error))
		empty = -EIO;
	else
		empty = -EAGAIN;
	mutex_unlock(&pc->lock);
	return empty;
}

/*
 * One attempt: the next unread bytes (> 0), or what an empty ring means
 * (see pt_stream_reader_get()).  Under read_lock: each byte goes to one
 * reader, and a tail is released only by the reader that copied it.
 */
static ssize_t pt_stream_read_once(struct pt_cpu *pc, char __user *ubuf,
				   size_t len, struct pt_buffer **bufp)
{
	ssize_t ret;
	int empty;

	empty = pt_stream_reader_get(pc, bufp);
	if (empty == -EINVAL)
		return empty;
	ret = pt_stream_copy(*bufp, ubuf, len);
	if (ret > 0) {
		mutex_lock(&pc->lock);
		pt_stream_kick(pc);
		mutex_unlock(&pc->lock);
	}
	return ret ?: empty;
}

/*
 * read(2).  Any count from 1 up returns the next unread bytes and
 * consumes exactly those.  read_lock is held only while copying, never
 * while sleeping: a blocking reader waits without it, and an O_NONBLOCK
 * reader only tries it (EAGAIN while another reader copies), so it never
 * waits behind anybody.
 */
ssize_t pt_core_read(struct pt_cpu *pc, char __user *ubuf, size_t len,
		     bool nonblock)
{
	struct pt_stream *s = &pc->stream;
	struct pt_buffer *buf;
	bool started;
	ssize_t ret;

	if (!len)
		return 0;
	/* `cat /dev/ptN`: a fresh open that never started streams. */
	mutex_lock(&pc->lock);
	started = pc->running || pc->started_since_open;
	mutex_unlock(&pc->lock);
	if (!started) {
		ret = pt_core_autostart(pc);
		if (ret)
			return ret;
	}
	for (;;) {
		if (nonblock) {
			if (!mutex_trylock(&s->read_lock))
				return -EAGAIN;
		} else if (mutex_lock_interruptible(&s->read_lock)) {
			return -ERESTARTSYS;
		}
		buf = NULL;
		ret = pt_stream_read_once(pc, ubuf, len, &buf);
		mutex_unlock(&s->read_lock);
		if (ret == -EAGAIN && !nonblock)
			ret = wait_event_interruptible(s->wq,
						       pt_stream_ready(pc, buf)) ?:
			      -EAGAIN;
		if (buf)
			pt_buffer_put(buf);
		if (ret != -EAGAIN || nonblock)
			return ret;
	}
}

__poll_t pt_core_poll(struct pt_cpu *pc, struct file *file,
		      struct poll_table_struct *wait)
{
	__poll_t mask = 0;
	u64 tail, unread;

	poll_wait(file, &pc->stream.wq, wait);
	mutex_lock(&pc->lock);
	if (pc->buf && pc->cfg.mode == PT_MODE_STREAM) {
		pt_stream_kick(pc);
		unread = pt_stream_unread(pc->buf, &tail);
		if (unread && (unread >= pt_stream_watermark(pc) ||
			       !pc->running ||
			       READ_ONCE(pc->stream.stalled) ||
			       pt_stream_stop_next(pc)))
			mask |= EPOLLIN | EPOLLRDNORM;
		/* read(2) says EIO: a poller must not wait for data forever. */
		if (pc->running && READ_ONCE(pc->stream.error))
			mask |= EPOLLIN | EPOLLRDNORM | EPOLLERR;
		if (!pc->running && pc->started_since_open)
			mask |= EPOLLHUP;
		/* In a gap: what GET_STATUS reports as PT_STATUS_HW_STOPPED. */
		if (pc->running && READ_ONCE(pc->stream.stalled))
			mask |= EPOLLPRI;
	} else if (pc->buf && pc->started_since_open &&
		   ((pc->running && READ_ONCE(pc->stream.hw_stopped)) ||
		    (pc->status_flags & PT_STATUS_HW_STOPPED))) {
		/*
		 * Flight: the hardware stopped (a TraceStop range), as far as
		 * the driver has read RTIT_STATUS (pt_flight_note_stop()).
		 */
		mask |= EPOLLPRI;
	}
	mutex_unlock(&pc->lock);
	return mask;
}
