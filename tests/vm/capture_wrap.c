// SPDX-License-Identifier: GPL-2.0
/*
 * Flight recorder wrap-around.
 *
 * 1. A 4 KiB buffer (the output the driver picks) and a long workload
 *    wrap: status and the control page agree, WRAPPED is set, and the
 *    buffer read oldest-first from the write offset decodes.  Below
 *    the 1 MiB lap-PMI floor no PMI is armed (an NMI per lap would
 *    flood on silicon), so with any output head = size + offset: the
 *    wrap heuristic cannot count laps; and no PMI was taken.
 * 2. ToPA forced (when the CPU has it), 1 MiB (the floor), traced until
 *    it lapped several times: the laps are counted exactly by the PMI of
 *    the INT on the last region, so head, which must be more than twice
 *    the size, equals the bytes the model wrote for this trace (its
 *    bytes_written delta; only CPU 0 traces) plus the PAD bytes the
 *    driver completed single-entry regions with (debugfs pad_bytes),
 *    byte for byte.  Live GET_STATUS reads (each pauses the hardware)
 *    agree with the final one.
 * 3. A short run into 1 MiB does not claim to have wrapped.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <linux/pt_trace.h>

#include "ptt_test.h"
#include "stream_wd.h"

#define MODEL_DIR	"/sys/kernel/debug/pt_trace/model/"
#define PARAM_DIR	"/sys/module/pt_trace_model/parameters/"
#define TOPA_SIZE	(1024u * 1024)

static int status(int fd, struct pt_trace_status *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	return ioctl(fd, PT_TRACE_IOC_GET_STATUS, st) ? -errno : 0;
}

static int trace(int fd, __u64 size, unsigned long loops,
		 struct pt_trace_status *st)
{
	if (ioctl(fd, PT_TRACE_IOC_SET_BUFSIZE, &size) ||
	    ioctl(fd, PT_TRACE_IOC_START))
		return -errno;
	ptt_busy(loops);
	if (ioctl(fd, PT_TRACE_IOC_STOP))
		return -errno;
	return status(fd, st);
}

static void param(const char *name, const char *val)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), PARAM_DIR "%s", name);
	f = fopen(path, "w");
	if (f) {
		fputs(val, f);
		fclose(f);
	}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The last data_size bytes, oldest first, decode. */
static void check_decode(int fd, const struct pt_trace_status *st,
			 const char *what)
{
	size_t size = st->buffer_size;
	struct ptt_packet_stats ps;
	__u8 *map, *lin = malloc(size);

	REQUIRE(lin, "malloc");
	map = mmap(NULL, 4096 + size, PROT_READ, MAP_SHARED, fd, 0);
	REQUIRE(map != MAP_FAILED, "mmap: %s", strerror(errno));
	CHECK(((struct pt_trace_mmap_page *)map)->data_head == st->head,
	      "%s: ctrl head %llu, status %llu", what,
	      (unsigned long long)((struct pt_trace_mmap_page *)map)->data_head,
	      (unsigned long long)st->head);
	CHECK(((struct pt_trace_mmap_page *)map)->flags & PT_STATUS_WRAPPED,
	      "%s: ctrl flags %#x", what,
	      ((struct pt_trace_mmap_page *)map)->flags);
	for (size_t i = 0; i < size; i++)
		lin[i] = map[4096 + (st->offset + i) % size];
	if (ptt_decode_packets(lin, size, &ps) == 0)
		CHECK(ps.errors == 0, "%s: %llu decode errors at +%llu", what,
		      (unsigned long long)ps.errors,
		      (unsigned long long)ps.first_error_offset);
	else
		printf("PTT-INFO %s: no PSB in the last %zu bytes\n", what,
		       size);
	munmap(map, 4096 + size);
	free(lin);
}

/* Part 2: exact laps with ToPA output. */
static void topa_laps(int fd, const struct pt_trace_caps *caps)
{
	struct pt_trace_config cfg = { .size = sizeof(cfg) };
	struct pt_trace_status st, live;
	unsigned long long last = 0, peeks = 0;
	long long w0, w1, pad, laps;
	/* Since load; an earlier test in this VM may have added some. */
	long long msr0 = ptt_read_ll("/sys/kernel/debug/pt_trace/msr_faults");
	long long gp0 = ptt_read_ll(MODEL_DIR "gp_faults");
	double t0;

	cfg.output = PT_OUTPUT_TOPA;
	cfg.mode = PT_MODE_FLIGHT;
	cfg.ctl = PT_CTL_BRANCHEN | PT_CTL_USER;
	cfg.buffer_size = TOPA_SIZE;
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &cfg),
		"SET_CONFIG ToPA %u: %s", TOPA_SIZE, strerror(errno));
	/*
	 * 20 MB/s in ticks smaller than the single-entry early distance,
	 * so that the early PMI often finds the region not wrapped yet and
	 * the driver pads it (the margin path).
	 */
	param("model_tick_bytes", "2048");
	param("model_period_us", "100");
	param("model_early_pmi", "4000");
	w0 = ptt_read_ll(MODEL_DIR "bytes_written");
	REQUIRE(w0 >= 0, "model bytes_written");
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	/* Until it lapped several times (live reads), at most 10 s. */
	t0 = now();
	do {
		ptt_busy(200000);
		REQUIRE(!status(fd, &live), "GET_STATUS live");
		CHECK(live.head >= last, "live head went back: %llu < %llu",
		      (unsigned long long)live.head, last);
		CHECK(live.head % TOPA_SIZE == live.offset &&
		      !!(live.flags & PT_STATUS_WRAPPED) ==
		      (live.head >= TOPA_SIZE),
		      "live: head %llu offset %llu flags %#x",
		      (unsigned long long)live.head,
		      (unsigned long long)live.offset, live.flags);
		last = live.head;
		peeks++;
	} while (live.head <= 5 * TOPA_SIZE && now() - t0 < 10);
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	w1 = ptt_read_ll(MODEL_DIR "bytes_written");
	param("model_tick_bytes", "2048");
	param("model_period_us", "1000");
	param("model_early_pmi", "256");
	REQUIRE(!status(fd, &st), "GET_STATUS");
	pad = st_stream_counter(0, "pad_bytes");
	laps = st_stream_counter(0, "laps");
	printf("PTT-INFO ToPA %s %u: head %llu = %lld laps + %llu, pmis %llu\n",
	       (caps->flags & PT_CAP_TOPA_MULTI) ? "multi-entry" :
	       "single-entry", TOPA_SIZE, (unsigned long long)st.head, laps,
	       (unsigned long long)st.offset, (unsigned long long)st.pmis);
	printf("PTT-INFO model wrote %lld, pad %lld, %llu live reads\n",
	       w1 - w0, pad, peeks);
	CHECK(st.output == PT_OUTPUT_TOPA, "output %u", st.output);
	CHECK(st.flags & PT_STATUS_WRAPPED, "not WRAPPED");
	CHECK(st.head > 2 * TOPA_SIZE, "head %llu after %.1f s",
	      (unsigned long long)st.head, now() - t0);
	CHECK(st.head >= last, "final head %llu < live %llu",
	      (unsigned long long)st.head, last);
	CHECK(st.head % TOPA_SIZE == st.offset, "head %llu offset %llu",
	      (unsigned long long)st.head, (unsigned long long)st.offset);
	CHECK(laps >= 0 && (unsigned long long)laps == st.head / TOPA_SIZE,
	      "debugfs laps %lld, head %llu", laps,
	      (unsigned long long)st.head);
	/* One PMI per lap; the last may be counted at STOP instead. */
	CHECK(laps >= (long long)st.pmis && laps <= (long long)st.pmis + 1,
	      "laps %lld, PMIs %llu", laps, (unsigned long long)st.pmis);
	CHECK(pad >= 0 && (pad == 0 || !(caps->flags & PT_CAP_TOPA_MULTI)),
	      "pad %lld on multi-entry ToPA", pad);
	/* Exact: every position is a byte the model wrote, or PAD. */
	CHECK((long long)st.head == w1 - w0 + pad,
	      "head %llu, model wrote %lld + pad %lld",
	      (unsigned long long)st.head, w1 - w0, pad);
	check_decode(fd, &st, "ToPA");
	CHECK(ptt_read_ll("/sys/kernel/debug/pt_trace/msr_faults") == msr0,
	      "faulting MSR accesses");
	CHECK(ptt_read_ll(MODEL_DIR "gp_faults") == gp0, "modelled #GP");
}

int main(void)
{
	struct pt_trace_status st = { .size = sizeof(st) };
	struct pt_trace_caps caps = { .size = sizeof(caps) };
	int fd, r;

	REQUIRE(ptt_pin_cpu(0) == 0, "pin");
	fd = ptt_open_cpu(0, O_RDWR);
	REQUIRE(fd >= 0, "open: %s", strerror(errno));
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_GET_CAPS, &caps), "caps: %s",
		strerror(errno));

	r = trace(fd, 4096, 3000000, &st);
	REQUIRE(r == 0, "trace: %s", strerror(-r));
	if (!st.head)
		SKIP("the model wrote no trace");
	printf("PTT-INFO 4 KiB %s: head %llu offset %llu\n",
	       st.output == PT_OUTPUT_TOPA ? "ToPA" : "single range",
	       (unsigned long long)st.head, (unsigned long long)st.offset);
	CHECK(st.flags & PT_STATUS_WRAPPED, "4 KiB did not wrap (head %llu)",
	      (unsigned long long)st.head);
	CHECK(st.head == st.buffer_size + st.offset,
	      "4 KiB: head %llu offset %llu", (unsigned long long)st.head,
	      (unsigned long long)st.offset);
	CHECK(st.pmis == 0, "4 KiB: %llu lap PMIs below the floor",
	      (unsigned long long)st.pmis);
	check_decode(fd, &st, "4 KiB");

	if (caps.flags & PT_CAP_TOPA)
		topa_laps(fd, &caps);
	else
		printf("PTT-INFO no ToPA: exact laps not checked\n");

	/* A short run into 1 MiB: no wrap, head == offset. */
	r = trace(fd, 1 << 20, 1000, &st);
	REQUIRE(r == 0, "trace: %s", strerror(-r));
	CHECK(!(st.flags & PT_STATUS_WRAPPED) && st.head == st.offset,
	      "1 MiB: flags %#x head %llu offset %llu", st.flags,
	      (unsigned long long)st.head, (unsigned long long)st.offset);
	close(fd);
	return ptt_done();
}
