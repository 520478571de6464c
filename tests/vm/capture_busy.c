// SPDX-License-Identifier: GPL-2.0
/*
 * One opener at a time (EBUSY for the second), and a live mapping keeps
 * everything alive: after close(), rmmod is refused while the buffer is
 * still mapped, and the mapping stays readable.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/pt_trace.h>

#include "ptt_test.h"

int main(void)
{
	struct pt_trace_mmap_page *ctrl;
	__u64 size = 65536;
	__u8 b;
	__u8 *map;
	int fd, fd2;
	long r;

	fd = ptt_open_cpu(0, O_RDONLY);
	REQUIRE(fd >= 0, "open: %s", strerror(errno));
	fd2 = ptt_open_cpu(0, O_RDONLY);
	CHECK(fd2 < 0 && errno == EBUSY, "second open: %d %s", fd2,
	      strerror(errno));
	CHECK(ioctl(fd, PT_TRACE_IOC_SET_BUFSIZE, &size) == 0, "bufsize");
	CHECK(ioctl(fd, PT_TRACE_IOC_START) == 0, "start: %s", strerror(errno));
	map = mmap(NULL, 4096 + size, PROT_READ, MAP_SHARED, fd, 0);
	REQUIRE(map != MAP_FAILED, "mmap: %s", strerror(errno));
	/* Mapped: the buffer cannot be resized under the mapping. */
	CHECK(ioctl(fd, PT_TRACE_IOC_STOP) == 0, "stop");
	size = 8192;
	CHECK(ioctl(fd, PT_TRACE_IOC_SET_BUFSIZE, &size) == -1 &&
	      errno == EBUSY, "resize while mapped: %s", strerror(errno));
	close(fd);

	/* Closed but mapped: still busy, rmmod refused. */
	fd2 = ptt_open_cpu(0, O_RDONLY);
	CHECK(fd2 < 0 && errno == EBUSY, "open while mapped: %d %s", fd2,
	      strerror(errno));
	r = syscall(SYS_delete_module, "pt_trace", O_NONBLOCK);
	CHECK(r == -1 && (errno == EWOULDBLOCK || errno == EBUSY),
	      "rmmod with a live mapping: %ld %s", r, strerror(errno));
	ctrl = (void *)map;
	CHECK(ctrl->version == PT_TRACE_ABI_VERSION, "ctrl version %u",
	      ctrl->version);
	CHECK(ctrl->data_size == 65536, "data_size");
	b = __atomic_load_n(&map[4096 + 65535], __ATOMIC_RELAXED);
	(void)b;
	munmap(map, 4096 + 65536);

	/* Unmapped: the device is free again. */
	fd = ptt_open_cpu(0, O_RDONLY);
	CHECK(fd >= 0, "open after munmap: %s", strerror(errno));
	close(fd);
	return ptt_done();
}
