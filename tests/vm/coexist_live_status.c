// SPDX-License-Identifier: GPL-2.0
/*
 * Honest live status (issue 10, M5): GET_STATUS of a running flight
 * recorder publishes in data_head only bytes that are in memory.
 *
 * The model runs with model_stale=1: while TraceEn=1 the last tick's
 * packets are not in memory yet and the output pointers, read live, are
 * sometimes ahead of memory and sometimes behind (SDM 36.2.7.7,
 * 36.2.6.2: unreliable until TraceEn 1->0 and a fence).  For ToPA and
 * single-range output (where the CPU has them): while tracing into a
 * 4 MiB buffer that does not wrap, take live statuses; at each, the
 * control page's data_head must equal the status head, and the newest
 * bytes below it, copied from the mapping at once, must be the bytes
 * the buffer holds after STOP.  A driver that reads the pointers live
 * publishes bytes the hardware has not written yet (zeros in this
 * fresh buffer), which later change.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/pt_trace.h>

#include "ptt_test.h"

#define PARAM_DIR	"/sys/module/pt_trace_model/parameters/"
#define BUF_SIZE	(4u << 20)
#define PEEKS		40
#define TAIL		1024	/* newest bytes kept per peek */

struct peek {
	__u64 head;
	__u8 bytes[TAIL];
};

static void run(int fd, __u32 output, const char *name)
{
	struct pt_trace_config cfg = { .size = sizeof(cfg) };
	struct pt_trace_status st = { .size = sizeof(st) };
	struct pt_trace_mmap_page *ctrl;
	static struct peek peeks[PEEKS];
	unsigned int n = 0, bad = 0, i;
	__u8 *map, *data;

	cfg.output = output;
	cfg.mode = PT_MODE_FLIGHT;
	cfg.ctl = PT_CTL_BRANCHEN | PT_CTL_USER;
	cfg.buffer_size = BUF_SIZE;
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &cfg), "%s: SET_CONFIG: %s",
		name, strerror(errno));
	map = mmap(NULL, 4096 + BUF_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	REQUIRE(map != MAP_FAILED, "%s: mmap: %s", name, strerror(errno));
	ctrl = (struct pt_trace_mmap_page *)map;
	data = map + 4096;
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "%s: START: %s", name,
		strerror(errno));
	while (n < PEEKS) {
		__u64 head;

		ptt_busy(20000);
		REQUIRE(!ioctl(fd, PT_TRACE_IOC_GET_STATUS, &st),
			"%s: GET_STATUS: %s", name, strerror(errno));
		head = __atomic_load_n(&ctrl->data_head, __ATOMIC_ACQUIRE);
		CHECK(head == st.head, "%s: data_head %llu, status head %llu",
		      name, (unsigned long long)head,
		      (unsigned long long)st.head);
		if (st.flags & PT_STATUS_WRAPPED || head > BUF_SIZE / 2)
			break;
		if (head < TAIL)
			continue;
		peeks[n].head = head;
		memcpy(peeks[n].bytes, data + head - TAIL, TAIL);
		n++;
	}
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_STOP), "%s: STOP: %s", name,
		strerror(errno));
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_GET_STATUS, &st), "%s: GET_STATUS",
		name);
	CHECK(!(st.flags & PT_STATUS_WRAPPED), "%s: wrapped", name);
	for (i = 0; i < n; i++) {
		const __u8 *now = data + peeks[i].head - TAIL;
		unsigned int j = 0;

		while (j < TAIL && now[j] == peeks[i].bytes[j])
			j++;
		if (j == TAIL)
			continue;
		if (bad++)
			continue;
		printf("PTT-INFO %s: peek %u at head %llu: byte %llu was %#x,",
		       name, i, (unsigned long long)peeks[i].head,
		       (unsigned long long)(peeks[i].head - TAIL + j),
		       peeks[i].bytes[j]);
		printf(" is %#x after STOP\n", now[j]);
	}
	printf("PTT-INFO %s: %u live statuses, final head %llu\n", name, n,
	       (unsigned long long)st.head);
	CHECK(n >= 5, "%s: only %u live statuses with data", name, n);
	CHECK(!bad, "%s: %u of %u statuses published bytes not in memory yet",
	      name, bad, n);
	munmap(map, 4096 + BUF_SIZE);
}

int main(void)
{
	struct pt_trace_caps caps = { .size = sizeof(caps) };
	int fd;

	REQUIRE(ptt_pin_cpu(0) == 0, "pin");
	REQUIRE(!ptt_write_str(PARAM_DIR "model_stale", "1"),
		"model_stale: the model cannot hold bytes back");
	fd = ptt_open_cpu(0, O_RDWR);
	REQUIRE(fd >= 0, "open: %s", strerror(errno));
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_GET_CAPS, &caps), "caps: %s",
		strerror(errno));
	if (caps.flags & PT_CAP_TOPA)
		run(fd, PT_OUTPUT_TOPA, "ToPA");
	if (caps.flags & PT_CAP_SINGLE_RANGE)
		run(fd, PT_OUTPUT_SINGLE, "single range");
	close(fd);
	return ptt_done();
}
