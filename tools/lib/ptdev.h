/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one thin user-space layer over include/uapi/linux/pt_trace.h:
 * open /dev/ptN, the ioctls with their size fields filled in, and the
 * mmap of the control page and the data.
 */
#ifndef PT_TRACE_PTDEV_H
#define PT_TRACE_PTDEV_H

#include <stddef.h>
#include <stdint.h>

#include <linux/pt_trace.h>

struct ptdev_map {
	/*
	 * Shared with the driver: data_head, flags and the loss counters
	 * change under us, so read them with __atomic_load_n() (acquire
	 * for data_head) and write data_tail with a release store.
	 */
	struct pt_trace_mmap_page *ctrl;
	size_t ctrl_len;
	const uint8_t *data;
	size_t data_len;
};

/* open("/dev/ptN"): the fd or -errno. */
int ptdev_open(int cpu, int flags);

/* What failed, for ptdev_why(): the same errno means different things. */
enum ptdev_op {
	PTDEV_OPEN,
	PTDEV_CONFIG,		/* SET_CONFIG, SET_CYC, SET_ADDR, SET_CR3 */
	PTDEV_START,
	PTDEV_MMAP,
	PTDEV_OTHER,
};

/*
 * What to tell the user about a failure of @op on /dev/pt@cpu: what
 * happened and what to do, one line.  The text lives in a static buffer
 * until the next call.
 */
const char *ptdev_why(int err, int cpu, enum ptdev_op op);

int ptdev_get_caps(int fd, struct pt_trace_caps *caps);
int ptdev_set_config(int fd, const struct pt_trace_config *config);
int ptdev_get_config(int fd, struct pt_trace_config *config);
int ptdev_set_cr3(int fd, struct pt_trace_cr3 *cr3);
int ptdev_set_cyc(int fd, int enable, uint32_t threshold);
int ptdev_set_addr(int fd, uint32_t index, uint32_t cfg, uint64_t start,
		   uint64_t end);
int ptdev_set_bufsize(int fd, uint64_t bytes);
int ptdev_start(int fd);
int ptdev_stop(int fd);
int ptdev_get_status(int fd, struct pt_trace_status *status);

/* Map the control page, then the data it describes; 0 or -errno. */
int ptdev_mmap(int fd, struct ptdev_map *map, int writable_ctrl);
void ptdev_unmap(struct ptdev_map *map);

/* Number of configured CPUs (highest possible /dev/ptN + 1). */
int ptdev_nr_cpus(void);

#endif /* PT_TRACE_PTDEV_H */
