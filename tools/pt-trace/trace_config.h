/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libipt decoder configuration from the sideband file and command-line
 * options (CPU identity for errata, MTC frequency, nominal ratio,
 * CPUID 0x15), shared by dump and decode.
 */
#ifndef PT_TRACE_TRACE_CONFIG_H
#define PT_TRACE_TRACE_CONFIG_H

#include <intel-pt.h>

#include "sideband.h"

/* "F/M[/S]", decimal or 0x; 0 or -EINVAL. */
int ptt_config_set_cpu(struct pt_config *config, const char *arg);

/* Take what the sideband knows; later options may override it. */
void ptt_config_from_sideband(struct pt_config *config,
			      const struct ptsb *sb);

/*
 * Load DIR/sideband.txt next to a trace file DIR/cpuN.pt.  Returns 0 and
 * sets *cpu (-1 when the name says nothing) or -errno when there is none.
 */
int ptt_find_sideband(const char *trace_path, struct ptsb *sb, int *cpu);

#endif /* PT_TRACE_TRACE_CONFIG_H */
