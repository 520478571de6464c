/* SPDX-License-Identifier: GPL-2.0 */
/* /sys/kernel/pt_trace/: the capabilities, one file each, and the backend. */
#ifndef _PT_TRACE_SYSFS_H
#define _PT_TRACE_SYSFS_H

int pt_sysfs_init(void);
void pt_sysfs_exit(void);

#endif /* _PT_TRACE_SYSFS_H */
