// SPDX-License-Identifier: GPL-2.0
/*
 * record --bts: each /dev/btsN opened beside /dev/ptN (rec_bts.c) and
 * its ring recorded as PT's (rec_bts_ring.h): a struct rec_cpu read and
 * drained by rec_ring.c, restarted by rec_hotplug.c, finished here with
 * its sideband lines and summary.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_info.h"
#include "rec_bts_ring.h"
#include "rec_finish.h"
#include "rec_ring.h"
#include "sideband.h"
#include "tool.h"

/* --bts: a BTS recorder per CPU, its branches and mode as PT's. */
int rec_bts_open_all(struct rec_bts **out, const struct rec_cpu *rcs,
		     int n, const struct rec_opts *o)
{
	struct rec_bts *b = calloc((size_t)(unsigned int)n, sizeof(*b));
	int i, ret = 0;

	if (!b)
		return PTT_EXIT_INTERNAL;
	for (i = 0; i < n; i++)
		b[i].fd = -1;
	*out = b;
	for (i = 0; i < n && !ret; i++)
		ret = rec_bts_open(&b[i], rcs[i].cpu, o->bufsize,
				   !!(rcs[i].cfg.ctl & PT_CTL_OS),
				   !!(rcs[i].cfg.ctl & PT_CTL_USER), o->mode,
				   (uint32_t)o->watermark);
	return ret;
}

/*
 * --bts: each /dev/btsN as a struct rec_cpu, mapped, with DIR/cpuN.bts
 * and (stream mode, or flight mode at its first gap) DIR/cpuN.bts.loss:
 * drained by rec_drain() or read by rec_flight_read() as PT, and started
 * again after the driver stopped it (rec_hotplug()).
 */
int rec_bts_rings_open(struct rec_run *run, const struct rec_bts *b,
		       int n, const char *outdir, int stream)
{
	char path[4096];
	int i, err;

	run->bts = calloc((size_t)(unsigned int)n, sizeof(*run->bts));
	if (!run->bts)
		return PTT_EXIT_INTERNAL;
	run->nbts = n;
	for (i = 0; i < n; i++)
		run->bts[i].out = -1;
	for (i = 0; i < n; i++) {
		struct rec_cpu *rc = &run->bts[i];

		rc->cpu = b[i].cpu;
		rc->fd = b[i].fd;
		rc->bts = 1;
		err = ptdev_mmap(rc->fd, &rc->map, stream);
		if (err) {
			ptt_err("/dev/bts%d: mmap: %s", rc->cpu, strerror(-err));
			return PTT_EXIT_DEVICE;
		}
		snprintf(path, sizeof(path), "%s/cpu%d.bts", outdir, rc->cpu);
		rc->out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			       0644);
		if (rc->out < 0) {
			ptt_err("cannot create %s: %s", path, strerror(errno));
			return PTT_EXIT_INPUT;
		}
		if (rec_loss_open(rc, outdir, stream, 0))
			return PTT_EXIT_INPUT;
	}
	return 0;
}

/*
 * STOP, the last drain (stream) or read (flight), the loss file's end,
 * sideband and summary.  A trace the driver stopped and record could
 * not start again (its CPU still offline) gets a gap to the end and a
 * warning (rec_bts_stopped()).
 */
int rec_bts_ring_finish(struct rec_cpu *rc, const struct rec_opts *o,
			FILE *sb)
{
	static const char summary[] =
		"cpu%-3d %12llu records in cpu%d.bts, %llu lost in %llu gaps (cpu%d.bts%s)\n";
	int stream = o->mode == PT_MODE_STREAM;
	int err = 0, stopped = rc->down;
	char key[48];
	uint64_t lost;

	if (!rc->down) {
		/* Not running before our STOP: the driver stopped it. */
		err = ptdev_get_status(rc->fd, &rc->status);
		stopped = !err && !(rc->status.flags & PT_STATUS_RUNNING);
		err = err ?: ptdev_stop(rc->fd);
		err = err ?: ptdev_get_status(rc->fd, &rc->status);
		err = err ?: stream ? rec_drain(rc) : rec_flight_read(rc);
		if (err) {
			ptt_err("/dev/bts%d: %s (writing %s/cpu%d.bts)", rc->cpu,
				strerror(-err), o->outdir, rc->cpu);
			return PTT_EXIT_DEVICE;
		}
		rec_count_lapped(rc);
	}
	if (stopped) {
		uint64_t tsc, ns;

		cpu_tsc_now(&tsc, &ns);
		if (rec_gap(rc, o, 0, ns, tsc))
			return PTT_EXIT_INPUT;
	}
	if (rc->lossf)
		ptl_write_end(rc->lossf, rc->seq_base + rc->loss_next,
			      rc->loss.lapped);
	snprintf(key, sizeof(key), "bts.cpu%d.mode", rc->cpu);
	ptsb_put(sb, key, stream ? "stream" : "flight");
	snprintf(key, sizeof(key), "bts.cpu%d.records", rc->cpu);
	ptsb_put(sb, key, "%llu",
		 (unsigned long long)rc->written / PT_BTS_RECORD_SIZE);
	if (rc->restarts) {
		snprintf(key, sizeof(key), "bts.cpu%d.restarts", rc->cpu);
		ptsb_put(sb, key, "%u", rc->restarts);
	}
	if (!stream) {
		snprintf(key, sizeof(key), "bts.cpu%d.wrapped", rc->cpu);
		ptsb_put(sb, key, "%d", rec_wrapped(rc));
		fprintf(stderr, "cpu%-3d %12llu records in cpu%d.bts%s\n",
			rc->cpu,
			(unsigned long long)rc->written / PT_BTS_RECORD_SIZE,
			rc->cpu, rec_wrapped(rc) ?
			" (wrapped: the buffer kept the newest records)" : "");
		if (rc->lossf)
			rec_print_losses("       ", &rc->loss);
		rec_bts_stopped(sb, rc->cpu, stopped);
		return 0;
	}
	lost = rc->loss.known_bytes / PT_BTS_RECORD_SIZE;
	snprintf(key, sizeof(key), "bts.cpu%d.lost_records", rc->cpu);
	ptsb_put(sb, key, "%llu", (unsigned long long)lost);
	snprintf(key, sizeof(key), "bts.cpu%d.loss_records", rc->cpu);
	ptsb_put(sb, key, "%llu", (unsigned long long)rc->loss.records);
	snprintf(key, sizeof(key), "bts.cpu%d.loss_lapped", rc->cpu);
	ptsb_put(sb, key, "%llu", (unsigned long long)rc->loss.lapped);
	snprintf(key, sizeof(key), "bts.cpu%d.driver_lost_bytes", rc->cpu);
	ptsb_put(sb, key, "%llu", (unsigned long long)rc->status.lost_bytes);
	snprintf(key, sizeof(key), "bts.cpu%d.pmis", rc->cpu);
	ptsb_put(sb, key, "%llu", (unsigned long long)rc->status.pmis);
	fprintf(stderr, summary, rc->cpu, (unsigned long long)rc->written / PT_BTS_RECORD_SIZE,
		rc->cpu, (unsigned long long)lost,
		(unsigned long long)rc->loss.records, rc->cpu, PTL_SUFFIX);
	if (rc->loss.unknown || rc->loss.lapped)
		rec_print_losses("       ", &rc->loss);
	rec_bts_stopped(sb, rc->cpu, stopped);
	return 0;
}
