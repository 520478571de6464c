/* SPDX-License-Identifier: GPL-2.0 */
/* pt-trace info: the Branch Trace Store line (bts_info.c). */
#ifndef PT_TRACE_BTS_INFO_H
#define PT_TRACE_BTS_INFO_H

void bts_info_print(void);

#endif /* PT_TRACE_BTS_INFO_H */
