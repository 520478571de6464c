// SPDX-License-Identifier: GPL-2.0
/*
 * Buffer sizes from 4 KiB to hundreds of MiB (what the VM's memory
 * allows): each is allocated, started, stopped, mapped whole and read at
 * both ends; sizes the layout cannot take are refused with EINVAL.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/pt_trace.h>

#include "ptt_test.h"

static int try_size(int fd, const struct pt_trace_caps *caps, __u64 size)
{
	struct pt_trace_status st = { .size = sizeof(st) };
	struct pt_trace_mmap_page *ctrl;
	int pow2 = !(size & (size - 1));
	__u8 b;
	__u8 *map;

	if (!(caps->flags & PT_CAP_TOPA_MULTI) && (!pow2 || size > (4u << 20))) {
		CHECK(ioctl(fd, PT_TRACE_IOC_SET_BUFSIZE, &size) == -1 &&
		      errno == EINVAL, "size %llu on a one-chunk CPU: %s",
		      (unsigned long long)size, strerror(errno));
		return 0;
	}
	if (ioctl(fd, PT_TRACE_IOC_SET_BUFSIZE, &size)) {
		CHECK(0, "SET_BUFSIZE %llu: %s", (unsigned long long)size,
		      strerror(errno));
		return -1;
	}
	if (ioctl(fd, PT_TRACE_IOC_START)) {
		/* Not enough memory in the VM is not a failure. */
		CHECK(errno == ENOMEM, "START %llu: %s",
		      (unsigned long long)size, strerror(errno));
		fprintf(stderr, "PTT-INFO %llu bytes: ENOMEM\n",
			(unsigned long long)size);
		return 0;
	}
	CHECK(ioctl(fd, PT_TRACE_IOC_STOP) == 0, "STOP: %s", strerror(errno));
	CHECK(ioctl(fd, PT_TRACE_IOC_GET_STATUS, &st) == 0, "STATUS");
	CHECK(st.buffer_size == size, "buffer_size %llu != %llu",
	      (unsigned long long)st.buffer_size, (unsigned long long)size);
	map = mmap(NULL, 4096 + size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		CHECK(0, "mmap %llu: %s", (unsigned long long)size,
		      strerror(errno));
		return -1;
	}
	ctrl = (void *)map;
	CHECK(ctrl->data_size == size, "ctrl data_size %llu",
	      (unsigned long long)ctrl->data_size);
	b = __atomic_load_n(&map[4096], __ATOMIC_RELAXED);
	b = __atomic_load_n(&map[4096 + size - 1], __ATOMIC_RELAXED);
	(void)b;
	/* Wrong lengths and offsets are refused. */
	CHECK(mmap(NULL, 4096 + size + 4096, PROT_READ, MAP_SHARED, fd, 0) ==
	      MAP_FAILED && errno == EINVAL, "oversized mmap");
	CHECK(mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 8192) == MAP_FAILED &&
	      errno == EINVAL, "mmap at a wrong offset");
	CHECK(mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) ==
	      MAP_FAILED &&
	      (errno == EPERM || errno == EACCES), "writable mmap");
	munmap(map, 4096 + size);
	/* The data alone, at data_offset. */
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 4096);
	CHECK(map != MAP_FAILED, "data-only mmap: %s", strerror(errno));
	if (map != MAP_FAILED) {
		CHECK(mprotect(map, size, PROT_READ | PROT_WRITE) == -1,
		      "mprotect to writable succeeded");
		munmap(map, size);
	}
	fprintf(stderr, "PTT-INFO %llu bytes ok (output %u)\n",
		(unsigned long long)size, st.output);
	return 0;
}

int main(void)
{
	static const __u64 sizes[] = {
		4096, 8192, 12288, 1 << 20, (1 << 20) + 4096, 4 << 20,
		16 << 20, 64 << 20, 256ULL << 20,
	};
	struct pt_trace_caps caps = { .size = sizeof(caps) };
	int fd;

	fd = ptt_open_cpu(0, O_RDONLY);
	REQUIRE(fd >= 0, "open: %s", strerror(errno));
	REQUIRE(ioctl(fd, PT_TRACE_IOC_GET_CAPS, &caps) == 0, "caps");
	CHECK(caps.min_buffer_size == 4096, "min %llu",
	      (unsigned long long)caps.min_buffer_size);
	for (unsigned int i = 0; i < ARRAY_SIZE(sizes); i++) {
		if (sizes[i] > caps.max_buffer_size) {
			fprintf(stderr, "PTT-INFO %llu > max %llu: skipped\n",
				(unsigned long long)sizes[i],
				(unsigned long long)caps.max_buffer_size);
			continue;
		}
		if (try_size(fd, &caps, sizes[i]))
			break;
	}
	close(fd);
	return ptt_done();
}
