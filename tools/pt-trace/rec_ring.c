// SPDX-License-Identifier: GPL-2.0
/*
 * record: a trace's way from its device's ring to the recording directory
 * (rec_ring.h).  Flight mode keeps the newest data_size bytes and is read
 * once after STOP (or at a snapshot, or when the driver stopped it).
 * Stream mode is drained while tracing runs (data_tail advanced behind
 * the reader, woken by poll at the watermark); every gap the driver
 * records in the control page's loss ring is copied to cpuN.loss with
 * the offset in cpuN.pt where it lies.  A BTS recorder (--bts) goes the
 * same way into cpuN.bts and cpuN.bts.loss.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rec_ring.h"
#include "tool.h"

/* Copy [from, to) of the ring (positions since start) to the file. */
static int rec_copy(struct rec_cpu *rc, uint64_t from, uint64_t to)
{
	size_t size = rc->map.data_len;

	while (from < to) {
		size_t off = (size_t)(from % size);
		size_t n = size - off;
		int err;

		if (n > to - from)
			n = (size_t)(to - from);
		err = ptt_write_all(rc->out, rc->map.data + off, n);
		if (err)
			return err;
		from += n;
		rc->written += n;
	}
	return 0;
}

static void rec_lapped(struct rec_cpu *rc, uint64_t first, uint64_t count)
{
	ptl_write_lapped(rc->lossf, rc->seq_base + first, count);
	rc->loss.lapped += count;
}

/*
 * Copy the loss records the driver added since the last call from the
 * control page's ring to cpuN.loss.  Record i lives in slot i % slots;
 * the driver writes record i + slots into that slot before it publishes
 * loss_records = i + slots + 1, so a copy of record i is only known
 * whole when loss_records - i < slots still holds after the copy (a
 * seqlock-style re-check).  Records that fail it were overwritten before
 * they could be read: they are counted as lapped, never guessed.
 */
static void rec_read_losses(struct rec_cpu *rc)
{
	const struct pt_trace_mmap_page *pg = rc->map.ctrl;
	const uint8_t *ring = (const uint8_t *)pg;
	uint64_t n, i, slots;
	uint32_t off;

	if (!rc->lossf)
		return;
	slots = __atomic_load_n(&pg->loss_slots, __ATOMIC_RELAXED);
	off = __atomic_load_n(&pg->loss_offset, __ATOMIC_RELAXED);
	if (!slots || off < sizeof(*pg) ||
	    off + slots * sizeof(struct pt_trace_loss) > rc->map.ctrl_len)
		return;		/* a driver without loss records */
	ring += off;
	n = __atomic_load_n(&pg->loss_records, __ATOMIC_ACQUIRE);
	if (n <= rc->loss_next)
		return;
	if (n - rc->loss_next >= slots) {
		uint64_t first = n - slots + 1;

		rec_lapped(rc, rc->loss_next, first - rc->loss_next);
		rc->loss_next = first;
	}
	for (i = rc->loss_next; i < n; i++) {
		struct pt_trace_loss l;
		struct ptl_record r;
		uint64_t now;

		memcpy(&l, ring + (i % slots) * sizeof(l), sizeof(l));
		/* The copy's loads before the re-check's. */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		now = __atomic_load_n(&pg->loss_records, __ATOMIC_ACQUIRE);
		if (now - i >= slots || l.seq != (uint32_t)i) {
			rec_lapped(rc, i, 1);
			continue;
		}
		memset(&r, 0, sizeof(r));
		r.seq = rc->seq_base + i;
		r.pos = l.pos;
		r.offset = rc->base +
			   (l.pos >= rc->skipped ? l.pos - rc->skipped : 0);
		r.bytes_known = !!(l.flags & PT_LOSS_BYTES_KNOWN);
		r.bytes = r.bytes_known ? l.bytes : 0;
		r.start_ns = l.start_ns;
		r.end_ns = l.end_ns;
		r.start_tsc = l.start_tsc;
		r.end_tsc = l.end_tsc;
		r.flags = l.flags;
		ptl_write(rc->lossf, &r);
		ptl_add(&rc->loss, &r);
	}
	rc->loss_next = n;
}

/* Stream mode: take what is new, note losses, hand the space back. */
int rec_drain(struct rec_cpu *rc)
{
	struct pt_trace_mmap_page *pg = rc->map.ctrl;
	uint64_t head;
	int err;

	head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	if (head - rc->tail > rc->map.data_len) {
		/* The driver never overwrites unread data; if it did, say so. */
		uint64_t from = head - rc->map.data_len;

		ptt_warn("cpu %d: %llu bytes overwritten before they were read",
			 rc->cpu, (unsigned long long)(from - rc->tail));
		rc->skipped += from - rc->tail;
		rc->tail = from;
	}
	err = rec_copy(rc, rc->tail, head);
	if (err)
		return err;
	rc->tail = head;
	__atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
	rec_read_losses(rc);
	return 0;
}

/* Flight mode: the newest min(head, size) bytes, oldest first. */
int rec_flight_read(struct rec_cpu *rc)
{
	uint64_t head = rc->status.head;
	uint64_t from = head > rc->map.data_len ? head - rc->map.data_len : 0;

	return rec_copy(rc, from, head);
}

/* Loss records the driver counted and never let us read: lapped. */
void rec_count_lapped(struct rec_cpu *rc)
{
	if (rc->lossf && rc->status.loss_records > rc->loss_next) {
		rec_lapped(rc, rc->loss_next,
			   rc->status.loss_records - rc->loss_next);
		rc->loss_next = rc->status.loss_records;
	}
}

/* "PT" or "BTS": the trace @rc records, in messages. */
const char *rec_src(const struct rec_cpu *rc)
{
	return rc->bts ? "BTS" : "PT";
}

/* DIR/cpuN.loss, or DIR/cpuN.bts.loss for a BTS recorder. */
static void rec_loss_path(const struct rec_cpu *rc, const char *outdir,
			  char *path, size_t len)
{
	snprintf(path, len, "%s/cpu%d%s%s", outdir, rc->cpu,
		 rc->bts ? ".bts" : "", PTL_SUFFIX);
}

/*
 * @rc's loss file: created now in stream mode; in flight mode written at
 * a gap only (rec_gap()), so an old one is removed unless @keep_old (-S,
 * whose snapshots write elsewhere).  0 or -errno, said.
 */
int rec_loss_open(struct rec_cpu *rc, const char *outdir, int stream,
		  int keep_old)
{
	char path[4096];

	rec_loss_path(rc, outdir, path, sizeof(path));
	if (!stream) {
		if (!keep_old && unlink(path) && errno != ENOENT)
			ptt_warn("cannot remove %s: %s", path, strerror(errno));
		return 0;
	}
	rc->lossf = ptl_create(path, rc->cpu);
	if (!rc->lossf) {
		ptt_err("cannot create %s: %s", path, strerror(errno));
		return -errno;
	}
	return 0;
}

/*
 * The loss record of a gap the driver's stop left (rec_hotplug()): at
 * the offset in cpuN.pt where the next run begins (or the end of the
 * file), from when the driver stopped the trace (GET_STATUS's
 * driver_stop_ns/_tsc; from an older driver, the last time the recorder
 * saw the trace running, up to a poll interval earlier) to @ns/@tsc (just
 * after the new START, or the end of the recording), so it covers the
 * gap.  Bytes unknown: nothing was produced, but the hardware was not
 * there to say.  Flight mode has no cpuN.loss until its first gap.
 */
int rec_gap(struct rec_cpu *rc, const struct rec_opts *o,
	    int restart, uint64_t ns, uint64_t tsc)
{
	struct ptl_record r;

	if (!rc->lossf) {
		char path[4096];

		rec_loss_path(rc, o->outdir, path, sizeof(path));
		rc->lossf = ptl_create(path, rc->cpu);
		if (!rc->lossf) {
			ptt_err("cannot create %s: %s", path, strerror(errno));
			return -EIO;
		}
	}
	memset(&r, 0, sizeof(r));
	r.seq = rc->seq_base++;
	r.offset = rc->written;
	r.start_ns = rc->seen_ns;
	r.start_tsc = rc->seen_tsc;
	if (rc->status.driver_stop_ns > r.start_ns &&
	    rc->status.driver_stop_tsc > r.start_tsc) {
		r.start_ns = rc->status.driver_stop_ns;
		r.start_tsc = rc->status.driver_stop_tsc;
	}
	r.end_ns = ns > r.start_ns ? ns : r.start_ns;
	r.end_tsc = tsc > r.start_tsc ? tsc : r.start_tsc;
	r.flags = (uint32_t)((restart ? PTL_FLAG_RESTART : 0) |
			     (rc->down_offline ? PTL_FLAG_CPU_OFFLINE : 0));
	ptl_write(rc->lossf, &r);
	ptl_add(&rc->loss, &r);
	return 0;
}

/* Where the trace files go: DIR/cpuN.pt (+ .loss), or a snapshot's. */
int rec_create_outputs(struct rec_cpu *rcs, int n,
		       const struct rec_opts *o)
{
	char path[4096];
	int i, err;

	for (i = 0; i < n; i++) {
		if (!o->snapshot) {
			snprintf(path, sizeof(path), "%s/cpu%d.pt", o->outdir,
				 rcs[i].cpu);
			rcs[i].out = open(path, O_WRONLY | O_CREAT | O_TRUNC |
					  O_CLOEXEC, 0644);
			if (rcs[i].out < 0) {
				ptt_err("cannot create %s: %s", path,
					strerror(errno));
				return -errno;
			}
		}
		err = rec_loss_open(&rcs[i], o->outdir,
				    o->mode == PT_MODE_STREAM, o->snapshot);
		if (err)
			return err;
	}
	return 0;
}
