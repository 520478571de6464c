/* SPDX-License-Identifier: GPL-2.0 */
/* /sys/kernel/pt_trace/: the capabilities, one file each, the backend, VMX, BTS. */
#ifndef _PT_TRACE_SYSFS_H
#define _PT_TRACE_SYSFS_H

struct attribute_group;

/* sysfs_vmx.c: /sys/kernel/pt_trace/vmx/ */
extern const struct attribute_group pt_sysfs_vmx_group;
/* sysfs_bts.c: /sys/kernel/pt_trace/bts/ */
extern const struct attribute_group pt_sysfs_bts_group;

int pt_sysfs_init(void);
void pt_sysfs_exit(void);

#endif /* _PT_TRACE_SYSFS_H */
