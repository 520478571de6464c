/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libipt decoder configuration from the sideband file and command-line
 * options (CPU identity for errata, MTC frequency, nominal ratio,
 * CPUID 0x15), shared by dump and decode.
 */
#ifndef PT_TRACE_TRACE_CONFIG_H
#define PT_TRACE_TRACE_CONFIG_H

#include <stdint.h>

#include <intel-pt.h>

#include "sideband.h"

/* "F/M[/S]", decimal or 0x; 0 or -EINVAL. */
int ptt_config_set_cpu(struct pt_config *config, const char *arg);

/*
 * 0, or libipt's error (negative) when neither cpu_errata.c's table nor
 * libipt knows @config's CPU: dump and decode print it in their listing
 * as ptdump ("[0: failed to determine errata: ...]") and ptxed ("[0, 0:
 * config error: ...]") do.
 */
int ptt_config_errata_err(const struct pt_config *config);

/*
 * The timing parameters given on the command line: @arg[0..3] are
 * MTCFreq (0-15), the nominal ratio (0-255), CPUID 0x15 EAX and EBX, each
 * NULL when not given.  0, or -EINVAL after saying which is bad.
 */
int ptt_config_set_params(struct pt_config *config, const char *const arg[4]);

/*
 * One more address range of kind @cfg (PT_ADDR_CFG_FILTER or _STOP) that
 * the trace was recorded with, [@a, @b], into @config->addr_filter, the
 * IA32_RTIT_CTL.ADDRn_CFG and ADDRn_A/B that libipt's workaround for
 * erratum SKL014 looks at.  0, or -ENOSPC when all four are taken.
 */
int ptt_config_add_range(struct pt_config *config, uint32_t cfg, uint64_t a,
			 uint64_t b);

/* The same from "A-B" (inclusive): 0, -EINVAL or -ENOSPC. */
int ptt_config_add_range_arg(struct pt_config *config, uint32_t cfg,
			     const char *arg);

/*
 * Take what the sideband knows (the ranges of its filter= and stop_at=
 * lines too); later options may override it.
 */
void ptt_config_from_sideband(struct pt_config *config,
			      const struct ptsb *sb);

/*
 * Load DIR/sideband.txt next to a trace file DIR/cpuN.pt.  Returns 0 and
 * sets *cpu (-1 when the name says nothing) or -errno when there is none.
 */
int ptt_find_sideband(const char *trace_path, struct ptsb *sb, int *cpu);

/*
 * The loss file of a trace: @given (which must load: PTT_EXIT_INPUT
 * otherwise, after saying why) or X.loss beside X.pt (a damaged one is
 * a warning, a missing one nothing).  *have says whether @lf holds one;
 * @lf is empty otherwise.  PTT_EXIT_OK or an exit code.
 */
struct ptl_file;
int ptt_load_loss(const char *trace_path, const char *given,
		  struct ptl_file *lf, int *have);

/*
 * The TSC rate for turning timestamps into time: the sideband's measured
 * tsc_hz, else CPUID 0x15's, else the nominal frequency (config->nom_freq
 * or nominal_mhz).  @source names where it came from.  0, or -ENOENT
 * with 1 GHz when nothing says.
 */
int ptt_tsc_hz(const struct ptsb *sb, const struct pt_config *config,
	       double *hz, const char **source);

/*
 * CPU @cpu's TSC minus the first traced CPU's (sideband tsc_offset), or 0
 * when it is within the measurement error.  0, or -ENOENT (offset 0)
 * when the sideband has none for @cpu.
 */
int ptt_tsc_offset(const struct ptsb *sb, int cpu, int64_t *offset);
/*
 * CPU @cpu's TSC that record read on it after it stopped tracing there
 * (sideband tsc.end): every packet of that CPU's trace is older.  0, or
 * -ENOENT.
 */
int ptt_tsc_end(const struct ptsb *sb, int cpu, uint64_t *tsc);

#endif /* PT_TRACE_TRACE_CONFIG_H */
