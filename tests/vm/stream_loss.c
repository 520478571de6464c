// SPDX-License-Identifier: GPL-2.0
/*
 * Streaming with a reader that pauses twice: the hardware must stop at
 * the STOP marker instead of overwriting unread data, tracing must
 * resume by itself once the reader drains, and every gap must be a loss
 * record in the control page.  With model_seq=1 (PTWRITE CPUs) each
 * break in the PTW sequence lies exactly at a recorded gap; bytes the
 * model dropped imply records; every stretch between gaps decodes with
 * libipt.
 */
#include "stream_common.h"

#define CAP	(16u << 20)

static void drain(int fd, unsigned char *out, size_t *len, double secs)
{
	double t0 = st_now();
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	while (st_now() - t0 < secs) {
		poll(&pfd, 1, 100);
		while (st_read(fd, out, len, CAP) > 0)
			;
	}
}

int main(void)
{
	const struct pt_trace_loss *rec;
	struct pt_trace_mmap_page *pg;
	struct ptt_packet_stats ps;
	struct pt_trace_status st;
	struct pt_trace_caps caps;
	unsigned long long i, nrec, prev = 0, at_rec = 0;
	long long lost0, lost1;
	unsigned char *out = malloc(CAP);
	size_t len = 0;
	int fd, p;

	REQUIRE(out, "malloc");
	ptt_pin_cpu(1);
	fd = st_setup(0, 32 << 10, 8 << 10, O_NONBLOCK, &caps);
	st_write_param("model_seq", "1");
	lost0 = st_model("lost_bytes");
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	for (p = 0; p < 2; p++) {
		usleep(300 * 1000);		/* the paused reader */
		drain(fd, out, &len, 0.4);
	}
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	while (st_read(fd, out, &len, CAP) > 0)
		;
	lost1 = st_model("lost_bytes");
	st_status(fd, &st);
	pg = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	REQUIRE(pg != MAP_FAILED, "mmap control page: %s", strerror(errno));
	nrec = __atomic_load_n(&pg->loss_records, __ATOMIC_ACQUIRE);
	printf("read %zu, pmis %llu, stops %llu, records %llu, lost_ns %llu, model lost %lld\n",
	       len, (unsigned long long)st.pmis, (unsigned long long)st.stops,
	       (unsigned long long)nrec, (unsigned long long)st.lost_ns,
	       lost1 - lost0);
	CHECK(st.head == len, "head %llu, read %zu",
	      (unsigned long long)st.head, len);
	CHECK(nrec == st.loss_records, "control page %llu, status %llu",
	      (unsigned long long)nrec, (unsigned long long)st.loss_records);
	CHECK(nrec >= 2, "a gap per pause: %llu", (unsigned long long)nrec);
	/*
	 * Single-entry ToPA: the driver holds the trace at the early PMI,
	 * before STOP, so the hardware never stops and loses no byte; the
	 * gaps are time not traced.  Multi-entry: the STOP region fills.
	 */
	CHECK(st.stops >= 1 || st_single_entry(&caps),
	      "the hardware stopped at STOP");
	/* No silent loss: bytes the model dropped imply a record. */
	CHECK(lost1 == lost0 || nrec > 0,
	      "model lost %lld bytes with %llu loss records", lost1 - lost0,
	      (unsigned long long)nrec);
	CHECK(st.lost_ns > 0, "time not traced is reported");
	CHECK(pg->loss_offset >= sizeof(*pg) && pg->loss_slots > 0 &&
	      pg->loss_offset + pg->loss_slots * sizeof(*rec) <= 4096,
	      "loss ring %u x %u", pg->loss_offset, pg->loss_slots);
	REQUIRE(nrec <= pg->loss_slots, "records fit the ring");
	/* Each stretch between gaps decodes; sequence breaks only at gaps. */
	for (i = 0; i <= nrec; i++) {
		unsigned long long end = len;
		struct st_seq seq;

		if (i < nrec) {
			rec = (const void *)((const char *)pg + pg->loss_offset) +
			      i * sizeof(*rec);
			end = rec->pos;
			printf("loss %llu: pos %llu flags %#x %llu ns\n",
			       (unsigned long long)i,
			       (unsigned long long)rec->pos, rec->flags,
			       (unsigned long long)(rec->end_ns -
						    rec->start_ns));
			CHECK(rec->seq == i, "record %llu seq %u",
			      (unsigned long long)i, rec->seq);
			CHECK(rec->end_ns >= rec->start_ns, "time span");
			CHECK(rec->flags & (PT_LOSS_HW_STOP | PT_LOSS_NO_SPACE),
			      "why: %#x", rec->flags);
			CHECK(rec->pos >= prev && rec->pos <= len,
			      "position %llu in [%llu, %zu]",
			      (unsigned long long)rec->pos,
			      (unsigned long long)prev, len);
		}
		if (end <= prev)
			continue;
		REQUIRE(end <= len, "stretch in range");
		if (ptt_decode_packets(out + prev, end - prev, &ps) == 0)
			CHECK(ps.errors == 0,
			      "stretch %llu: %llu decode errors at +%llu",
			      (unsigned long long)i,
			      (unsigned long long)ps.errors,
			      (unsigned long long)ps.first_error_offset);
		if (caps.flags & PT_CAP_PTWRITE) {
			static unsigned long long last;

			st_seq_scan(out + prev, end - prev, &seq);
			CHECK(seq.breaks == 0, "stretch %llu: %llu seq breaks",
			      (unsigned long long)i,
			      (unsigned long long)seq.breaks);
			if (seq.ptws && last && seq.first != last + 1)
				at_rec++;
			if (seq.ptws)
				last = seq.last;
		}
		prev = end;
	}
	if (caps.flags & PT_CAP_PTWRITE)
		CHECK(at_rec > 0, "PTW numbers missing across the gaps");
	st_restore_model();
	munmap(pg, 4096);
	close(fd);
	free(out);
	return ptt_done();
}
