/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-CPU tracing core: configuration, start/stop and state of each
 * CPU's trace, brought up and down with the CPUs through cpuhp.
 */
#ifndef _PT_TRACE_CORE_H
#define _PT_TRACE_CORE_H

struct dentry;

/* /sys/kernel/debug/pt_trace/, created at load. */
extern struct dentry *pt_debugfs_root;

int pt_core_init(void);
void pt_core_exit(void);

#endif /* _PT_TRACE_CORE_H */
