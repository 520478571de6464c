// SPDX-License-Identifier: GPL-2.0
/*
 * The streaming watchdog: with every PMI swallowed (the model's
 * drop_pmis hook: bit 55 set, no NMI, as a lost interrupt), a stream
 * with a reader must still progress, driven by the driver's per-CPU
 * watchdog alone, and say so (debugfs 'watchdog' > 0, no PMI handled).
 * Then PMIs come back and the PMI path takes over again.
 *
 * The watchdog acts late (two of its periods), so the hardware stops at
 * STOP meanwhile: the stream has gaps, and they must be accounted as
 * exactly as any other (stream_loss): the loss records' bytes add up to
 * what the model could not write, the PTW sequence (model_seq=1, on
 * PTWRITE CPUs) breaks only across records with bytes > 0, and every
 * stretch between gaps decodes with libipt.
 */
#include "stream_common.h"
#include "stream_wd.h"

#define CAP	(32u << 20)
/*
 * Small, so that the hardware fills it between two watchdog services
 * even on single-entry ToPA, whose one region is re-pointed per service.
 */
#define BUF	(16u << 10)

/* Loss records copied out of the control page's ring as they come. */
#define MAXREC	4096
static struct pt_trace_loss recs[MAXREC];
static unsigned long long nrecs, lapped;

static void collect(const struct pt_trace_mmap_page *pg)
{
	unsigned long long n = __atomic_load_n(&pg->loss_records,
					       __ATOMIC_ACQUIRE);

	for (; nrecs < n && nrecs < MAXREC; nrecs++) {
		const struct pt_trace_loss *l = (const void *)
			((const char *)pg + pg->loss_offset +
			 (nrecs % pg->loss_slots) * sizeof(*l));

		recs[nrecs] = *l;
		/* Valid only if the ring did not lap it meanwhile (abi.rst). */
		n = __atomic_load_n(&pg->loss_records, __ATOMIC_ACQUIRE);
		if (n - nrecs >= pg->loss_slots)
			lapped++;
	}
}

static void drain(int fd, const struct pt_trace_mmap_page *pg,
		  unsigned char *out, size_t *len, double secs)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	double t0 = st_now();

	while (st_now() - t0 < secs) {
		poll(&pfd, 1, 100);
		while (st_read(fd, out, len, CAP) > 0)
			collect(pg);
		collect(pg);
	}
}

/*
 * This test's checks of each record, then the stream between them
 * (st_check_stretches): returns the PTW sequence breaks across records.
 */
static unsigned long long check_stretches(const unsigned char *out, size_t len,
					  unsigned long long nrec, int known,
					  int ptw)
{
	unsigned long long i;

	for (i = 0; i < nrec; i++) {
		const struct pt_trace_loss *rec = &recs[i];

		if (i < 8 || i + 2 > nrec)
			printf("PTT-INFO loss %llu: pos %llu flags %#x bytes %llu\n",
			       i, (unsigned long long)rec->pos, rec->flags,
			       (unsigned long long)rec->bytes);
		CHECK(rec->seq == i, "record %llu seq %u", i, rec->seq);
		/* Never an unexplained drop: the hardware stopped. */
		CHECK(!(rec->flags & (PT_LOSS_HW_ERROR | PT_LOSS_DROPPED)),
		      "record %llu flags %#x", i, rec->flags);
	}
	return st_check_stretches(out, len, recs, nrec, ptw, known);
}

int main(void)
{
	unsigned long long i, nrec, sum = 0, nknown = 0, breaks;
	long long lost0, lost1, drop0, drop1, wd;
	struct pt_trace_mmap_page *pg;
	struct pt_trace_status st;
	struct pt_trace_caps caps;
	unsigned char *out = malloc(CAP);
	size_t len = 0, len1;
	__u64 pmis1;
	int fd, ptw;

	REQUIRE(out, "malloc");
	ptt_pin_cpu(1);
	fd = st_setup(0, BUF, 0, O_NONBLOCK, &caps);
	ptw = !!(caps.flags & PT_CAP_PTWRITE);
	if (st_model("drop_pmis") < 0)
		SKIP("the model has no drop_pmis hook");
	st_write_param("model_seq", "1");
	lost0 = st_model("lost_bytes");
	drop0 = st_model("pmis_dropped");
	pg = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	REQUIRE(pg != MAP_FAILED, "mmap control page: %s", strerror(errno));

	/* Phase 1: no PMI gets through. */
	REQUIRE(!ptt_write_str(MODEL_DIR "drop_pmis", "2000000000"), "drop_pmis");
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	drain(fd, pg, out, &len, 1.5);
	st_status(fd, &st);
	len1 = len;
	pmis1 = st.pmis;
	wd = st_stream_counter(0, "watchdog");
	/* Phase 2: PMIs again. */
	REQUIRE(!ptt_write_str(MODEL_DIR "drop_pmis", "0"), "drop_pmis 0");
	drop1 = st_model("pmis_dropped");
	drain(fd, pg, out, &len, 0.3);
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	while (st_read(fd, out, &len, CAP) > 0)
		;
	collect(pg);
	lost1 = st_model("lost_bytes");
	st_status(fd, &st);
	printf("PTT-INFO no PMIs: read %zu, watchdog %lld, pmis %llu, %lld PMIs swallowed\n",
	       len1, wd, (unsigned long long)pmis1, drop1 - drop0);
	printf("PTT-INFO then: read %zu, watchdog %lld, pmis %llu\n", len,
	       st_stream_counter(0, "watchdog"), (unsigned long long)st.pmis);
	printf("PTT-INFO records %llu, lost %llu (model %lld)\n",
	       (unsigned long long)st.loss_records,
	       (unsigned long long)st.lost_bytes, lost1 - lost0);

	CHECK(drop1 - drop0 > 0, "the model swallowed no PMI");
	CHECK(pmis1 == 0, "%llu PMIs handled while all were swallowed",
	      (unsigned long long)pmis1);
	CHECK(wd > 0, "the watchdog never serviced the stalled stream");
	/* The stream went on: more than two laps of the ring read. */
	CHECK(len1 > 2 * BUF, "read %zu bytes without PMIs", len1);
	CHECK(st.pmis > pmis1, "PMIs handled again once delivered");
	CHECK(st.head == len, "head %llu, read %zu",
	      (unsigned long long)st.head, len);
	CHECK(!(st.flags & PT_STATUS_HW_ERROR) && !st.errors, "no error");

	nrec = nrecs;
	CHECK(nrec == st.loss_records, "collected %llu, status %llu", nrec,
	      (unsigned long long)st.loss_records);
	REQUIRE(!lapped && nrec < MAXREC, "%llu records lost to the ring",
		lapped);
	for (i = 0; i < nrec; i++) {
		nknown += !!(recs[i].flags & PT_LOSS_BYTES_KNOWN);
		sum += recs[i].bytes;
	}
	CHECK(nknown == nrec, "BYTES_KNOWN on %llu of %llu records (model)",
	      nknown, nrec);
	CHECK(st.lost_bytes == sum && pg->lost_bytes == sum,
	      "lost_bytes: status %llu, control page %llu, records %llu",
	      (unsigned long long)st.lost_bytes,
	      (unsigned long long)pg->lost_bytes, sum);
	CHECK((long long)sum == lost1 - lost0,
	      "records say %llu bytes lost, the model %lld", sum,
	      lost1 - lost0);
	breaks = check_stretches(out, len, nrec, nknown == nrec, ptw);
	if (ptw)
		printf("PTT-INFO PTW sequence breaks at records: %llu\n",
		       breaks);
	CHECK(ptt_read_ll("/sys/kernel/debug/pt_trace/msr_faults") == 0,
	      "faulting MSR accesses");
	CHECK(st_model("gp_faults") == 0, "modelled #GP");

	ptt_write_str(MODEL_DIR "drop_pmis", "0");
	st_restore_model();
	munmap(pg, 4096);
	close(fd);
	free(out);
	return ptt_done();
}
