/* SPDX-License-Identifier: GPL-2.0 */
/* pt-trace info: the VMX situation (vmx_info.c). */
#ifndef PT_TRACE_VMX_INFO_H
#define PT_TRACE_VMX_INFO_H

#include <stdint.h>
#include <stdio.h>

void vmx_info_print(void);
/* vmx*, kvm.pt_mode and kvm.vcpu keys in a recording's sideband.txt. */
void vmx_info_sideband(FILE *sb);
/* record: a warning when kvm_intel's pt_mode keeps guests out of traces. */
void vmx_info_record_warn(void);
/* record: a warning when guests traced on @cpu cannot be told apart. */
void vmx_info_record_cpu_warn(int fd, int cpu, uint64_t ctl);
/* record: why START failed on a CPU in VMX operation, or NULL. */
const char *vmx_info_start_why(int fd, int cpu, int err);

#endif /* PT_TRACE_VMX_INFO_H */
