/* SPDX-License-Identifier: GPL-2.0 */
/* pt-trace info: the VMX situation (vmx_info.c). */
#ifndef PT_TRACE_VMX_INFO_H
#define PT_TRACE_VMX_INFO_H

void vmx_info_print(void);

#endif /* PT_TRACE_VMX_INFO_H */
