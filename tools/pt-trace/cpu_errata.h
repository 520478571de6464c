/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which Intel PT errata a CPU has, by family and model, for the decoders'
 * workarounds (struct pt_errata), also for CPUs newer than the libipt
 * the tool runs with.
 */
#ifndef PT_TRACE_CPU_ERRATA_H
#define PT_TRACE_CPU_ERRATA_H

#include <intel-pt.h>

/*
 * @cpu's errata into @errata: from the table in cpu_errata.c when it
 * lists the model, else libipt's pt_cpu_errata().  0, or libipt's
 * -pte_bad_cpu (errata all clear) when neither knows the CPU.
 */
int ptt_cpu_errata(struct pt_errata *errata, const struct pt_cpu *cpu);

/*
 * The names of the errata set in @errata ("bdm70 skd022 skl014"), in
 * struct pt_errata's order, into @buf; "" when none.  Returns the length.
 */
size_t ptt_errata_names(const struct pt_errata *errata, char *buf,
			size_t len);

/*
 * Erratum SKD007 in a packet walk: a two-byte CYC that is really the
 * first byte of an OVF (0xf7 0x02 0xf3 on silicon).  When the CYC
 * decoded at @pos (@pkt) is one, @pkt becomes that OVF and the return is
 * its length counted from @pos (3); else 0.  libipt 2.0.5 works around
 * it in the query decoder only; ptdump after 2.0.5 prints an OVF.
 */
int ptt_skd007_ovf(const struct pt_errata *errata, const uint8_t *pos,
		   const uint8_t *end, struct pt_packet *pkt);

#endif
