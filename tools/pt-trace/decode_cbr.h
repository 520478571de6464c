/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The core frequency a trace's CBR packets give (decode_cbr.c): CBR is
 * the core:bus clock ratio (SDM Vol. 3C 36.4.2.13), so the frequency is
 * the ratio times the bus clock, which the recording's sideband gives as
 * nominal_mhz / nom_freq (CPUID 0x16's base frequency or nom_freq x 100,
 * over MSR_PLATFORM_INFO's maximum non-turbo ratio).
 */
#ifndef PT_TRACE_DECODE_CBR_H
#define PT_TRACE_DECODE_CBR_H

#include <stddef.h>
#include <stdint.h>

#include "outbuf.h"
#include "sideband.h"

struct decode_cbr {
	uint64_t n;		/* CBR packets (PSB+'s repeats too) */
	uint8_t first, last, min, max;
	unsigned int bus_mhz;	/* 0: not known */
	const char *bus_source;
};

/* The bus clock from the sideband (@sb may be NULL) and --nom-freq. */
void dcbr_init(struct decode_cbr *c, const struct ptsb *sb,
	       unsigned int nom_freq);
/* The CBR packets of one trace (a pass; @buf: a ptt_map_file() mapping). */
void dcbr_scan(struct decode_cbr *c, const uint8_t *buf, size_t len);
/* The "# cbr" line of decode --summary (none without CBR packets). */
void dcbr_print(const struct decode_cbr *c, struct outbuf *ob);

#endif /* PT_TRACE_DECODE_CBR_H */
