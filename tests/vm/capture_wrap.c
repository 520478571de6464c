// SPDX-License-Identifier: GPL-2.0
/*
 * Flight recorder wrap-around: a 4 KiB buffer and a long workload wrap;
 * status and the control page agree (head = size + offset, WRAPPED), and
 * the buffer read oldest-first from the write offset decodes.  A short
 * run into a large buffer does not claim to have wrapped.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/pt_trace.h>

#include "ptt_test.h"

static unsigned long sink;

static int trace(int fd, __u64 size, unsigned long loops,
		 struct pt_trace_status *st)
{
	if (ioctl(fd, PT_TRACE_IOC_SET_BUFSIZE, &size) ||
	    ioctl(fd, PT_TRACE_IOC_START))
		return -errno;
	for (unsigned long i = 0; i < loops; i++) {
		sink += i;
		__asm__ __volatile__("" : : "r"(sink) : "memory");
		if (!(i % 512))
			getppid();
	}
	if (ioctl(fd, PT_TRACE_IOC_STOP) ||
	    ioctl(fd, PT_TRACE_IOC_GET_STATUS, st))
		return -errno;
	return 0;
}

int main(void)
{
	struct pt_trace_status st = { .size = sizeof(st) };
	struct pt_trace_mmap_page *ctrl;
	struct ptt_packet_stats ps;
	__u8 *map, lin[4096];
	int fd, r;

	REQUIRE(ptt_pin_cpu(0) == 0, "pin");
	fd = ptt_open_cpu(0, O_RDONLY);
	REQUIRE(fd >= 0, "open: %s", strerror(errno));

	r = trace(fd, 4096, 3000000, &st);
	REQUIRE(r == 0, "trace: %s", strerror(-r));
	if (!st.head)
		SKIP("the model wrote no trace");
	map = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, 0);
	REQUIRE(map != MAP_FAILED, "mmap: %s", strerror(errno));
	ctrl = (void *)map;
	CHECK(st.flags & PT_STATUS_WRAPPED, "4 KiB did not wrap (head %llu)",
	      (unsigned long long)st.head);
	CHECK(st.head == st.buffer_size + st.offset, "head %llu offset %llu",
	      (unsigned long long)st.head, (unsigned long long)st.offset);
	CHECK(ctrl->data_head == st.head, "ctrl head %llu",
	      (unsigned long long)ctrl->data_head);
	CHECK(ctrl->flags & PT_STATUS_WRAPPED, "ctrl flags %#x", ctrl->flags);
	for (unsigned int i = 0; i < 4096; i++)
		lin[i] = map[4096 + (st.offset + i) % 4096];
	if (ptt_decode_packets(lin, sizeof(lin), &ps) == 0)
		CHECK(ps.errors == 0, "%llu decode errors",
		      (unsigned long long)ps.errors);
	else
		fprintf(stderr, "PTT-INFO no PSB in the last 4 KiB\n");
	munmap(map, 8192);

	/* A short run into 1 MiB: no wrap, head == offset. */
	r = trace(fd, 1 << 20, 1000, &st);
	REQUIRE(r == 0, "trace: %s", strerror(-r));
	CHECK(!(st.flags & PT_STATUS_WRAPPED) && st.head == st.offset,
	      "1 MiB: flags %#x head %llu offset %llu", st.flags,
	      (unsigned long long)st.head, (unsigned long long)st.offset);
	close(fd);
	return ptt_done();
}
