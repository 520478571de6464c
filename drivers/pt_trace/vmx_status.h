/* SPDX-License-Identifier: GPL-2.0 */
/* vmx_status.c: GET_STATUS's vmx field. */
#ifndef _PT_TRACE_VMX_STATUS_H
#define _PT_TRACE_VMX_STATUS_H

#include <linux/types.h>

/* PT_STATUS_VMX_* of online CPU @cpu, asked there; under cpus_read_lock. */
u32 pt_vmx_status(unsigned int cpu);

#endif /* _PT_TRACE_VMX_STATUS_H */
