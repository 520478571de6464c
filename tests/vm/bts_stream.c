// SPDX-License-Identifier: GPL-2.0
/*
 * bts_stream (issue 15): /dev/btsN's threshold mode (BTINT=1), the DS
 * buffer drained into the streaming ring by the PMI.  A reader that
 * pauses twice on a small ring: records that found the ring full are
 * dropped and counted exactly, in PT_LOSS_NO_SPACE loss records with
 * PT_LOSS_BYTES_KNOWN at the stream position they would have had.  So
 * the bytes read plus the records' bytes are exactly the model's stored
 * records, and the hardware never found the DS buffer full (the
 * threshold PMI came in time: model bts_dropped unchanged).  Every
 * record read is whole and within the filter; read(2) ends with 0 after
 * STOP; status, control page and records agree on the loss; PMIs were
 * counted; DEBUGCTL is clear and DS_AREA restored after STOP.
 */
#include "bts_common.h"

#define CAP	(8u << 20)
#define RING	(8u << 10)
#define PARAM	"/sys/module/pt_trace_model/parameters/model_bts_per_tick"

static unsigned char out[CAP];

static const struct pt_trace_loss *loss(const struct pt_trace_mmap_page *pg,
					unsigned long long i)
{
	return (const void *)((const char *)pg + pg->loss_offset +
			      (i % pg->loss_slots) * sizeof(struct pt_trace_loss));
}

int main(void)
{
	unsigned long long dbg0, ds0, dbg1, ds1, i, nrec, sum = 0, last = 0;
	long long rec0, rec1, drop0, drop1;
	__u64 ctl = bts_ctl_here();
	struct pt_trace_mmap_page *pg;
	struct pt_trace_status st;
	size_t len = 0;
	int fd, p;
	ssize_t n;

	bts_require();
	ptt_pin_cpu(0);
	/*
	 * Twice the model's default rate: on a loaded host its ticks come
	 * late, and a paused reader must still overrun the ring.  A batch
	 * stays below the DS buffer's headroom (half of ring / 4 = 42
	 * records), as a PMI's latency does on silicon.
	 */
	ptt_write_str(PARAM, "32");
	fd = bts_open(0, O_RDWR | O_NONBLOCK);
	REQUIRE(!bts_config(fd, ctl, PT_MODE_STREAM, RING, 4096),
		"SET_CONFIG stream: %s", strerror(errno));
	REQUIRE(!bts_model_regs(0, &dbg0, &ds0), "model detail");
	rec0 = bts_model("bts_records");
	drop0 = bts_model("bts_dropped");
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	for (p = 0; p < 2; p++) {
		bts_busy(0.4);		/* the paused reader */
		bts_drain(fd, out, CAP, &len);
		bts_busy(0.2);
		bts_drain(fd, out, CAP, &len);
	}
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	rec1 = bts_model("bts_records");
	drop1 = bts_model("bts_dropped");
	ptt_write_str(PARAM, "16");
	bts_drain(fd, out, CAP, &len);
	n = read(fd, out, 1);
	CHECK(n == 0, "read after STOP and drain: %zd (%s)", n,
	      n < 0 ? strerror(errno) : "data");
	bts_status(fd, &st);
	pg = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	REQUIRE(pg != MAP_FAILED, "mmap control page: %s", strerror(errno));
	nrec = __atomic_load_n(&pg->loss_records, __ATOMIC_ACQUIRE);
	printf("PTT-INFO read %zu (%zu records), loss records %llu, ", len,
	       len / BTS_REC, nrec);
	printf("lost %llu, pmis %llu, model stored %lld, hw dropped %lld\n",
	       (unsigned long long)st.lost_bytes,
	       (unsigned long long)st.pmis, rec1 - rec0, drop1 - drop0);
	REQUIRE(nrec <= pg->loss_slots, "more loss records than slots");
	for (i = 0; i < nrec; i++) {
		const struct pt_trace_loss *l = loss(pg, i);

		CHECK(l->flags == (PT_LOSS_NO_SPACE | PT_LOSS_BYTES_KNOWN),
		      "record %llu flags %#x", i, l->flags);
		CHECK(l->bytes && l->bytes % BTS_REC == 0,
		      "record %llu bytes %llu", i,
		      (unsigned long long)l->bytes);
		CHECK(l->pos % BTS_REC == 0 && l->pos >= last && l->pos <= len,
		      "record %llu at %llu (last %llu, read %zu)", i,
		      (unsigned long long)l->pos, last, len);
		CHECK(l->end_ns >= l->start_ns, "record %llu time", i);
		last = l->pos;
		sum += l->bytes;
	}
	CHECK(nrec > 0, "a reader paused for 0.4 s on a %u-byte ring lost nothing",
	      RING);
	CHECK(st.loss_records == nrec, "status %llu loss records, page %llu",
	      (unsigned long long)st.loss_records, nrec);
	CHECK(st.lost_bytes == sum && pg->lost_bytes == sum,
	      "lost: status %llu, page %llu, records %llu",
	      (unsigned long long)st.lost_bytes,
	      (unsigned long long)pg->lost_bytes, sum);
	CHECK(len % BTS_REC == 0, "read %zu: not whole records", len);
	CHECK(len + sum == (unsigned long long)(rec1 - rec0) * BTS_REC,
	      "read %zu + lost %llu != %lld stored records", len, sum,
	      rec1 - rec0);
	CHECK(drop1 == drop0, "the DS buffer overflowed: %lld records",
	      drop1 - drop0);
	CHECK(st.pmis > 0, "no PMI counted");
	CHECK(!bts_check_recs(out, len, ctl), "%llu bad records",
	      bts_check_recs(out, len, ctl));
	REQUIRE(!bts_model_regs(0, &dbg1, &ds1), "model detail");
	CHECK(!(dbg1 & 0x7c0), "DEBUGCTL %#llx after STOP", dbg1);
	CHECK(ds1 == ds0, "DS_AREA %#llx after STOP, %#llx before", ds1, ds0);
	close(fd);
	return ptt_done();
}
