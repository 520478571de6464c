// SPDX-License-Identifier: GPL-2.0
/*
 * ioctl and mmap wrappers.  Every structure gets its 'size' set here so
 * that callers cannot forget it (the driver rejects a zero size).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ptdev.h"

int ptdev_open(int cpu, int flags)
{
	char path[32];
	int fd;

	snprintf(path, sizeof(path), "/dev/pt%d", cpu);
	fd = open(path, flags | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* The hints, one whole line each so that they can be found with grep. */
enum { HINT_NODEV, HINT_PERM, HINT_BUSY, HINT_INVAL, HINT_2BIG };
static const char *const ptdev_hints[] = {
	/* HINT_NODEV */
	"no such device: is the pt_trace module loaded? (insmod pt_trace.ko; see Documentation/tools.rst)",
	/* HINT_PERM */
	"permission denied: /dev/ptN is root-only, see Documentation/tools.rst",
	/* HINT_BUSY */
	"device busy: another tracer (perf intel_pt, another pt-trace) owns this CPU's trace unit",
	/* HINT_INVAL */
	"the driver rejected the configuration: check the options against 'pt-trace info'",
	/* HINT_2BIG */
	"this driver is older than the tool (unknown fields set)",
};

const char *ptdev_hint(int err)
{
	switch (-err) {
	case ENOENT:
	case ENODEV:
	case ENXIO:
		return ptdev_hints[HINT_NODEV];
	case EACCES:
	case EPERM:
		return ptdev_hints[HINT_PERM];
	case EBUSY:
		return ptdev_hints[HINT_BUSY];
	case EINVAL:
		return ptdev_hints[HINT_INVAL];
	case E2BIG:
		return ptdev_hints[HINT_2BIG];
	case ENOMEM:
		return "out of memory: try a smaller --buffer-size";
	default:
		return strerror(-err);
	}
}

static int ptdev_ioctl(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) < 0 ? -errno : 0;
}

int ptdev_get_caps(int fd, struct pt_trace_caps *caps)
{
	memset(caps, 0, sizeof(*caps));
	caps->size = sizeof(*caps);
	return ptdev_ioctl(fd, PT_TRACE_IOC_GET_CAPS, caps);
}

int ptdev_set_config(int fd, const struct pt_trace_config *config)
{
	struct pt_trace_config c = *config;

	c.size = sizeof(c);
	return ptdev_ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &c);
}

int ptdev_get_config(int fd, struct pt_trace_config *config)
{
	memset(config, 0, sizeof(*config));
	config->size = sizeof(*config);
	return ptdev_ioctl(fd, PT_TRACE_IOC_GET_CONFIG, config);
}

int ptdev_set_cr3(int fd, struct pt_trace_cr3 *cr3)
{
	cr3->size = sizeof(*cr3);
	cr3->reserved = 0;
	return ptdev_ioctl(fd, PT_TRACE_IOC_SET_CR3, cr3);
}

int ptdev_set_cyc(int fd, int enable, uint32_t threshold)
{
	struct pt_trace_cyc c = {
		.size = sizeof(c),
		.enable = !!enable,
		.threshold = threshold,
	};

	return ptdev_ioctl(fd, PT_TRACE_IOC_SET_CYC, &c);
}

int ptdev_set_addr(int fd, uint32_t index, uint32_t cfg, uint64_t start,
		   uint64_t end)
{
	struct pt_trace_addr a = {
		.size = sizeof(a),
		.index = index,
		.cfg = cfg,
		.start = start,
		.end = end,
	};

	return ptdev_ioctl(fd, PT_TRACE_IOC_SET_ADDR, &a);
}

int ptdev_set_bufsize(int fd, uint64_t bytes)
{
	return ptdev_ioctl(fd, PT_TRACE_IOC_SET_BUFSIZE, &bytes);
}

int ptdev_start(int fd)
{
	return ioctl(fd, PT_TRACE_IOC_START) < 0 ? -errno : 0;
}

int ptdev_stop(int fd)
{
	return ioctl(fd, PT_TRACE_IOC_STOP) < 0 ? -errno : 0;
}

int ptdev_get_status(int fd, struct pt_trace_status *status)
{
	memset(status, 0, sizeof(*status));
	status->size = sizeof(*status);
	return ptdev_ioctl(fd, PT_TRACE_IOC_GET_STATUS, status);
}

int ptdev_mmap(int fd, struct ptdev_map *map, int writable_ctrl)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p;
	uint64_t off, len;

	memset(map, 0, sizeof(*map));
	map->ctrl_len = (size_t)page;
	p = mmap(NULL, map->ctrl_len,
		 PROT_READ | (writable_ctrl ? PROT_WRITE : 0), MAP_SHARED, fd,
		 PT_TRACE_MMAP_CTRL_OFFSET);
	if (p == MAP_FAILED)
		return -errno;
	map->ctrl = p;
	off = map->ctrl->data_offset;
	len = map->ctrl->data_size;
	if (!len || off % (uint64_t)page || len > SIZE_MAX) {
		ptdev_unmap(map);
		return -EPROTO;
	}
	p = mmap(NULL, (size_t)len, PROT_READ, MAP_SHARED, fd, (off_t)off);
	if (p == MAP_FAILED) {
		int err = -errno;

		ptdev_unmap(map);
		return err;
	}
	map->data = p;
	map->data_len = (size_t)len;
	return 0;
}

void ptdev_unmap(struct ptdev_map *map)
{
	if (map->data)
		munmap((void *)map->data, map->data_len);
	if (map->ctrl)
		munmap((void *)map->ctrl, map->ctrl_len);
	memset(map, 0, sizeof(*map));
}

int ptdev_nr_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	return n > 0 ? (int)n : 1;
}
