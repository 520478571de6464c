// SPDX-License-Identifier: GPL-2.0
/*
 * Streaming with a reader that pauses twice: the hardware must stop at
 * the STOP marker instead of overwriting unread data, tracing must
 * resume by itself once the reader drains, and every gap must be a loss
 * record in the control page.  Every stretch between gaps decodes with
 * libipt.
 *
 * Exact accounting (the model counts what it could not write, so the
 * records carry PT_LOSS_BYTES_KNOWN): the records' bytes add up to
 * exactly the model's lost_bytes over the run, and so do the status
 * ioctl's and the control page's lost_bytes.  With model_seq=1 (PTWRITE
 * CPUs) the PTW sequence breaks exactly where a record with bytes > 0
 * lies, and nowhere else: not inside a stretch, not across a record of
 * 0 bytes (time not traced, nothing produced).  Without the count
 * (silicon) the records must say 0 bytes, not BYTES_KNOWN.
 */
#include "stream_common.h"
#include "stream_wd.h"

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

static const struct pt_trace_loss *record(const struct pt_trace_mmap_page *pg,
					  unsigned long long i)
{
	return (const void *)((const char *)pg + pg->loss_offset +
			      (i % pg->loss_slots) * sizeof(struct pt_trace_loss));
}

int main(void)
{
	const __u32 known_flags = PT_LOSS_HW_STOP | PT_LOSS_NO_SPACE |
		PT_LOSS_HW_ERROR | PT_LOSS_BYTES_KNOWN | PT_LOSS_DROPPED;
	const struct pt_trace_loss *rec;
	struct pt_trace_mmap_page *pg;
	struct pt_trace_status st;
	struct pt_trace_caps caps;
	unsigned long long i, nrec, nknown = 0, sum = 0, breaks_at;
	int ptw;
	long long lost0, lost1;
	unsigned char *out = malloc(CAP);
	size_t len = 0;
	int fd, p;

	REQUIRE(out, "malloc");
	ptt_pin_cpu(1);
	fd = st_setup(0, 32 << 10, 8 << 10, O_NONBLOCK, &caps);
	ptw = !!(caps.flags & PT_CAP_PTWRITE);
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
	printf("PTT-INFO read %zu, pmis %llu, stops %llu, records %llu\n",
	       len, (unsigned long long)st.pmis, (unsigned long long)st.stops,
	       nrec);
	printf("PTT-INFO lost_ns %llu, lost_bytes %llu, model lost %lld\n",
	       (unsigned long long)st.lost_ns,
	       (unsigned long long)st.lost_bytes, lost1 - lost0);
	CHECK(st.head == len, "head %llu, read %zu",
	      (unsigned long long)st.head, len);
	CHECK(nrec == st.loss_records, "control page %llu, status %llu",
	      nrec, (unsigned long long)st.loss_records);
	CHECK(nrec >= 2, "a gap per pause: %llu", nrec);
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
	      nrec);
	CHECK(st.lost_ns > 0, "time not traced is reported");
	CHECK(pg->loss_offset >= sizeof(*pg) && pg->loss_slots > 0 &&
	      pg->loss_offset + pg->loss_slots * sizeof(*rec) <= 4096,
	      "loss ring %u x %u", pg->loss_offset, pg->loss_slots);
	REQUIRE(nrec <= pg->loss_slots, "records fit the ring");

	for (i = 0; i < nrec; i++) {
		rec = record(pg, i);
		nknown += !!(rec->flags & PT_LOSS_BYTES_KNOWN);
		sum += rec->bytes;
	}
	CHECK(nknown == 0 || nknown == nrec,
	      "BYTES_KNOWN on %llu of %llu records", nknown, nrec);
	CHECK(st.lost_bytes == sum && pg->lost_bytes == sum,
	      "lost_bytes: status %llu, control page %llu, records %llu",
	      (unsigned long long)st.lost_bytes,
	      (unsigned long long)pg->lost_bytes, sum);
	if (nknown) {
		/* Every byte the model could not write is in a record. */
		CHECK((long long)sum == lost1 - lost0,
		      "records say %llu bytes lost, the model %lld", sum,
		      lost1 - lost0);
	} else {
		/* Silicon: nothing counts them. */
		printf("PTT-INFO no BYTES_KNOWN records: exact byte checks not made\n");
		CHECK(sum == 0, "bytes %llu without BYTES_KNOWN", sum);
	}

	for (i = 0; i < nrec; i++) {
		rec = record(pg, i);
		printf("PTT-INFO loss %llu: pos %llu flags %#x bytes %llu %llu ns\n",
		       i, (unsigned long long)rec->pos, rec->flags,
		       (unsigned long long)rec->bytes,
		       (unsigned long long)(rec->end_ns - rec->start_ns));
		CHECK(rec->seq == i, "record %llu seq %u", i, rec->seq);
		CHECK(rec->end_ns >= rec->start_ns, "time span");
		CHECK(rec->end_tsc >= rec->start_tsc, "TSC span");
		CHECK(rec->reserved == 0, "reserved");
		CHECK(!(rec->flags & ~known_flags), "flags %#x", rec->flags);
		CHECK(rec->flags & (PT_LOSS_HW_STOP | PT_LOSS_NO_SPACE |
				    PT_LOSS_DROPPED),
		      "why: %#x", rec->flags);
	}
	/*
	 * Each stretch between gaps decodes and has no sequence break; the
	 * sequence breaks across the records at a position iff they lost
	 * bytes (records at one position add up).  nrec <= loss_slots: the
	 * records are in slots 0..nrec-1, in order.
	 */
	breaks_at = st_check_stretches(out, len, record(pg, 0), nrec, ptw,
				       nknown != 0);
	if (ptw) {
		printf("PTT-INFO PTW sequence breaks at records: %llu\n",
		       breaks_at);
		/* The model produced while stopped: numbers went missing. */
		CHECK(breaks_at > 0 || (nknown && sum == 0),
		      "PTW numbers missing across the gaps");
	}
	ST_CHECK_NO_WATCHDOG(0);
	st_restore_model();
	munmap(pg, 4096);
	close(fd);
	free(out);
	return ptt_done();
}
