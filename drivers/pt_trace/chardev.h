/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /dev/ptN: one character device per online CPU (open, release, ioctl,
 * mmap), the user-space face of the core.
 */
#ifndef _PT_TRACE_CHARDEV_H
#define _PT_TRACE_CHARDEV_H

int pt_chardev_init(void);
void pt_chardev_exit(void);

#endif /* _PT_TRACE_CHARDEV_H */
