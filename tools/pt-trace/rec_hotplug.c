// SPDX-License-Identifier: GPL-2.0
/*
 * record: a trace the driver stopped (its CPU went offline, or a
 * suspend) is read and, once the CPU is back, started again, the new
 * run appended after a loss record for the gap (rec_hotplug.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cpu_info.h"
#include "rec_hotplug.h"
#include "rec_ring.h"
#include "tool.h"

/*
 * The driver stops the trace of a CPU that goes offline (and every trace
 * at a suspend) and leaves it stopped: abi.rst, "CPU hotplug".  Seen in
 * the control page's flags (no RUNNING, which only STOP or the driver
 * clears), the run is read at once (stream: drained to its end; flight:
 * its buffer, before a new START would reuse it) and, once the CPU is
 * back (START fails with ENODEV until then), started again: the device
 * kept its configuration, filters, buffer and followed set.  The new run
 * is appended to cpuN.pt after a loss record for the gap (it begins with
 * a PSB, where decode starts its stretch).  A trace taken over or
 * stopped by an error is left as before.  Called about every 100 ms or
 * sooner; not with -S, whose snapshots restart every CPU.
 */
int rec_hotplug(struct rec_cpu *rc, const struct rec_opts *o,
		struct pcol *perf)
{
	char why[256];
	const struct pt_trace_mmap_page *pg = rc->map.ctrl;
	int stream = o->mode == PT_MODE_STREAM;
	uint64_t tsc, ns;
	uint32_t flags;
	int err;

	if (rc->given_up || !pg)
		return 0;
	flags = __atomic_load_n(&pg->flags, __ATOMIC_ACQUIRE);
	if (!rc->down) {
		if (flags & PT_STATUS_RUNNING) {
			cpu_tsc_now(&rc->seen_tsc, &rc->seen_ns);
			return 0;
		}
		if (flags & (PT_STATUS_TAKEN_OVER | PT_STATUS_HW_ERROR)) {
			rc->given_up = 1;
			return 0;
		}
		err = ptdev_get_status(rc->fd, &rc->status);
		if (err) {
			ptt_err("cpu %d: GET_STATUS: %s", rc->cpu,
				ptdev_why(err, rc->cpu, PTDEV_OTHER));
			return err;
		}
		/* The control page may not say it yet: read at the end. */
		if (rc->status.flags & (PT_STATUS_TAKEN_OVER |
					PT_STATUS_HW_ERROR)) {
			rc->given_up = 1;
			return 0;
		}
		err = stream ? rec_drain(rc) : rec_flight_read(rc);
		if (err) {
			ptt_err("cpu %d: writing %s/cpu%d.%s: %s", rc->cpu,
				o->outdir, rc->cpu, rc->bts ? "bts" : "pt",
				strerror(-err));
			return err;
		}
		if (rc->status.flags & PT_STATUS_WRAPPED)
			rc->wrapped = 1;
		rec_count_lapped(rc);
		rc->seq_base += rc->loss_next;
		rc->loss_next = 0;
		rc->down = 1;
		rc->sb_again = 0;
		rc->down_offline = !!(rc->status.flags & PT_STATUS_CPU_OFFLINE);
		fprintf(stderr,
			"cpu %d: the driver stopped its %s trace (%s): it starts again when it can\n",
			rc->cpu, rec_src(rc), rc->down_offline ?
			"CPU offline" : "CPU offline and back, or a suspend");
	}
	if (flags & PT_STATUS_CPU_OFFLINE) {
		rc->down_offline = 1;
		return 0;
	}
	/*
	 * System-wide: the CPU's perf sideband event, gone at its offline
	 * (once per CPU: by its PT recorder, not the BTS one).
	 */
	if (!rc->bts && perf->ring && !rc->sb_again) {
		err = pcol_reopen_cpu(perf, rc->cpu, why, sizeof(why));
		if (err == -ENODEV)
			return 0;	/* offline again: later */
		if (err)
			ptt_warn("cpu %d: %s: no switch, mmap or comm records of this CPU from here",
				 rc->cpu, why);
		rc->sb_again = 1;
	}
	err = ptdev_start(rc->fd);
	if (err == -ENODEV || err == -EAGAIN)
		return 0;	/* offline again, or suspending: later */
	cpu_tsc_now(&tsc, &ns);
	if (err) {
		/* The gap stays open: its record is written at the end. */
		ptt_warn("cpu %d: START %s again: %s; not traced from here",
			 rc->cpu, rec_src(rc),
			 ptdev_why(err, rc->cpu, PTDEV_START));
		rc->given_up = 1;
		return 0;
	}
	err = rec_gap(rc, o, 1, ns, tsc);
	if (err)
		return err;
	rc->base = rc->written;
	rc->tail = 0;
	rc->skipped = 0;
	rc->hup = 0;
	rc->down = 0;
	rc->down_offline = 0;
	rc->restarts++;
	rc->seen_ns = ns;
	rc->seen_tsc = tsc;
	fprintf(stderr, "cpu %d: %s traced again\n", rc->cpu, rec_src(rc));
	return 0;
}
