/* SPDX-License-Identifier: GPL-2.0 */
/* pt-trace info: the Branch Trace Store line (bts_info.c). */
#ifndef PT_TRACE_BTS_INFO_H
#define PT_TRACE_BTS_INFO_H

void bts_info_print(void);
/* The driver's bts/pti: 1 when it refuses BTS (page table isolation). */
int bts_info_pti(void);

#endif /* PT_TRACE_BTS_INFO_H */
