/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ToPA PMI (streaming capture, next step): an NMI_LOCAL handler that
 * decides from the per-CPU core state whether an NMI is its own, stops,
 * accounts, re-arms the ToPA markers and restarts.  The core calls
 * pt_pmi_init()/pt_pmi_exit() around its own life; until streaming lands
 * the flight recorder asks for no PMI (no INT in any ToPA entry) and
 * these do nothing.
 */
#ifndef _PT_TRACE_PMI_H
#define _PT_TRACE_PMI_H

int pt_pmi_init(void);
void pt_pmi_exit(void);

#endif /* _PT_TRACE_PMI_H */
