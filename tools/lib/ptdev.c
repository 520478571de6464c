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

/*
 * Each message says what happened and what to do about it, on one line
 * that can be found with grep; Documentation/tools.rst explains more.
 */
const char *ptdev_why(int err, int cpu, enum ptdev_op op)
{
	static char buf[512];
	const char *dev = "/dev/pt";

	switch (-err) {
	case ENOENT:
	case ENODEV:
	case ENXIO:
		if (op == PTDEV_START)
			snprintf(buf, sizeof(buf),
				 "CPU %d is offline: bring it online or leave it out of -C",
				 cpu);
		else
			snprintf(buf, sizeof(buf),
				 "%s%d does not exist: load the driver (modprobe pt_trace) or pick an online CPU with -C; see Documentation/tools.rst",
				 dev, cpu);
		break;
	case EACCES:
	case EPERM:
		if (op == PTDEV_OPEN)
			snprintf(buf, sizeof(buf),
				 "permission denied: %s%d is for root and group pttrace only (a trace shows every branch the CPU takes); run as root or join group pttrace (the installed udev rule), see Documentation/tools.rst (Permissions)",
				 dev, cpu);
		else if (op == PTDEV_MMAP)
			/* the driver charges buffers to RLIMIT_MEMLOCK */
			snprintf(buf, sizeof(buf),
				 "the trace buffers exceed your locked-memory limit (RLIMIT_MEMLOCK, ulimit -l): give a smaller -b, fewer CPUs (-C), or raise the limit");
		else
			snprintf(buf, sizeof(buf),
				 "permission denied: tracing the kernel, or another user's process, needs CAP_PERFMON or CAP_SYS_ADMIN; run as root or trace user space only (-u); see Documentation/tools.rst (Permissions)");
		break;
	case EBUSY:
		if (op == PTDEV_OPEN)
			snprintf(buf, sizeof(buf),
				 "%s%d is busy: another program (another pt-trace?) has it open; only one may configure a CPU at a time",
				 dev, cpu);
		else
			snprintf(buf, sizeof(buf),
				 "CPU %d's trace unit is in use (by perf's intel_pt, or already running): stop the other tracer first",
				 cpu);
		break;
	case EOPNOTSUPP:
		snprintf(buf, sizeof(buf),
			 "this CPU (or model profile) lacks a feature the options ask for: compare them with 'pt-trace info'");
		break;
	case EINVAL:
		snprintf(buf, sizeof(buf),
			 "the driver rejected the configuration (a value outside what 'pt-trace info' lists, or a buffer size it cannot lay out; see Documentation/abi.rst)");
		break;
	case E2BIG:
		snprintf(buf, sizeof(buf),
			 "the driver is older than this tool (it does not know fields the tool sets): rebuild them together");
		break;
	case ENOMEM:
		snprintf(buf, sizeof(buf),
			 "out of memory for the trace buffer: try a smaller --buffer-size");
		break;
	case EPROTO:
		snprintf(buf, sizeof(buf),
			 "the control page of %s%d makes no sense (driver and tool from different versions?)",
			 dev, cpu);
		break;
	default:
		snprintf(buf, sizeof(buf), "%s", strerror(-err));
		break;
	}
	return buf;
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
