/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ToPA PMI handler on the NMI_LOCAL chain (pmi.c); registered for
 * the module's whole life by the core.
 */
#ifndef _PT_TRACE_PMI_H
#define _PT_TRACE_PMI_H

int pt_pmi_init(void);
void pt_pmi_exit(void);

#endif /* _PT_TRACE_PMI_H */
