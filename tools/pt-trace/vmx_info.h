/* SPDX-License-Identifier: GPL-2.0 */
/* pt-trace info: the VMX situation (vmx_info.c). */
#ifndef PT_TRACE_VMX_INFO_H
#define PT_TRACE_VMX_INFO_H

#include <stdio.h>

void vmx_info_print(void);
/* vmx*, kvm.pt_mode and kvm.vcpu keys in a recording's sideband.txt. */
void vmx_info_sideband(FILE *sb);

#endif /* PT_TRACE_VMX_INFO_H */
