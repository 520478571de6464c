// SPDX-License-Identifier: GPL-2.0
/*
 * record's end for the PT devices (rec_finish.h): STOP every CPU, read
 * what is left, close each loss file, write each CPU's sideband lines
 * and tell the user what was recorded and lost.
 */
#include <stdio.h>
#include <string.h>

#include "cpu_info.h"
#include "rec_finish.h"
#include "rec_ring.h"
#include "rec_sideband.h"
#include "tool.h"

void rec_sum(const struct rec_cpu *rcs, int n, struct ptl_sum *sum,
	     uint64_t *bytes)
{
	int i;

	memset(sum, 0, sizeof(*sum));
	*bytes = 0;
	for (i = 0; i < n; i++) {
		sum->records += rcs[i].loss.records;
		sum->known_bytes += rcs[i].loss.known_bytes;
		sum->unknown += rcs[i].loss.unknown;
		sum->lost_ns += rcs[i].loss.lost_ns;
		sum->lapped += rcs[i].loss.lapped;
		*bytes += rcs[i].written;
	}
}

/* The losses of one CPU or of all, one human line (also parsed by tests). */
void rec_print_losses(const char *who, const struct ptl_sum *s)
{
	fprintf(stderr,
		"%s%llu loss records, %llu bytes lost (known), %llu of unknown size, %.3f ms not traced",
		who, (unsigned long long)s->records,
		(unsigned long long)s->known_bytes,
		(unsigned long long)s->unknown, s->lost_ns / 1e6);
	if (s->lapped)
		fprintf(stderr, ", %llu records overwritten before they were read (lapped)",
			(unsigned long long)s->lapped);
	fputc('\n', stderr);
}

int rec_finish(struct rec_cpu *rcs, int n, const struct rec_opts *o,
	       FILE *sb)
{
	int stream = o->mode == PT_MODE_STREAM;
	struct ptl_sum total;
	uint64_t bytes;
	int i, err, ret = 0;

	for (i = 0; i < n; i++) {
		err = ptdev_stop(rcs[i].fd);
		if (err)
			ptt_warn("cpu %d: STOP: %s", rcs[i].cpu,
				 ptdev_why(err, rcs[i].cpu, PTDEV_OTHER));
	}
	rec_sample_tsc(rcs, n, 1);
	for (i = 0; i < n; i++) {
		struct rec_cpu *rc = &rcs[i];

		if (rc->down) {
			/* Read when the driver stopped it; a gap to the end. */
			uint64_t tsc, ns;

			cpu_tsc_now(&tsc, &ns);
			if (rec_gap(rc, o, 0, ns, tsc))
				ret = PTT_EXIT_INPUT;
			fprintf(stderr, "cpu %d: not traced again before the end (%s)\n",
				rc->cpu, rc->down_offline ? "the CPU went offline" :
				"the driver stopped it");
			goto written;
		}
		err = ptdev_get_status(rc->fd, &rc->status);
		if (err) {
			ptt_err("cpu %d: GET_STATUS: %s", rc->cpu,
				ptdev_why(err, rc->cpu, PTDEV_OTHER));
			ret = PTT_EXIT_DEVICE;
			continue;
		}
		err = stream ? rec_drain(rc) : rec_flight_read(rc);
		if (err) {
			ptt_err("cpu %d: writing the trace: %s", rc->cpu,
				strerror(-err));
			ret = PTT_EXIT_INPUT;
		}
		/* Records the driver counted that were never seen. */
		rec_count_lapped(rc);
written:
		if (rc->lossf)
			ptl_write_end(rc->lossf, rc->seq_base + rc->loss_next,
				      rc->loss.lapped);
		rec_cpu_sideband(sb, rc, stream);
		fprintf(stderr, "cpu%-3d %12llu bytes in cpu%d.pt", rc->cpu,
			(unsigned long long)rc->written, rc->cpu);
		if (!stream)
			fprintf(stderr, "%s",
				rec_wrapped(rc) ?
				" (wrapped: the buffer kept the newest data)" : "");
		fprintf(stderr, "%s\n", rc->status.flags & PT_STATUS_HW_ERROR ?
			"  HW ERROR (RTIT_STATUS.Error)" : "");
		if (stream || rc->lossf)
			rec_print_losses("       ", &rc->loss);
	}
	rec_write_tsc(sb, rcs, n);
	rec_sum(rcs, n, &total, &bytes);
	fprintf(stderr, "recorded %llu bytes on %d cpu(s) into %s/ (%s mode)\n",
		(unsigned long long)bytes, n, o->outdir,
		stream ? "stream" : "flight");
	if (stream)
		rec_print_losses("losses: ", &total);
	return ret;
}
