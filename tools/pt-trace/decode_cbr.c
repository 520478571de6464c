// SPDX-License-Identifier: GPL-2.0
/*
 * decode --summary's core frequency from CBR packets (decode_cbr.h).
 * The bus clock is the recording's nominal frequency over its maximum
 * non-turbo ratio when the sideband has both and they divide into a
 * whole number of MHz; otherwise it is not known and only the ratios are
 * printed (no frequency is made up).
 */
#include <intel-pt.h>

#include "decode_cbr.h"
#include "pkt_walk.h"

void dcbr_init(struct decode_cbr *c, const struct ptsb *sb,
	       unsigned int nom_freq)
{
	uint64_t mhz, ratio = nom_freq;

	c->n = 0;
	c->bus_mhz = 0;
	c->bus_source = NULL;
	/* CPUID 0x16's bus frequency, unless --nom-freq asks otherwise */
	if (sb && !nom_freq && !ptsb_get_u64(sb, "cpuid16.ecx", &mhz) &&
	    mhz && mhz <= 1000) {
		c->bus_mhz = (unsigned int)mhz;
		c->bus_source = "cpuid16.ecx: CPUID 0x16 bus frequency";
		return;
	}
	if (!sb || ptsb_get_u64(sb, "nominal_mhz", &mhz) || !mhz)
		return;
	if (!ratio && (ptsb_get_u64(sb, "nom_freq", &ratio) || !ratio))
		return;
	/* 100 MHz since Nehalem; a quotient off by a rounding is taken */
	if (mhz / ratio == 0 || mhz / ratio > 1000 ||
	    mhz % ratio > ratio / 10 + 1)
		return;
	c->bus_mhz = (unsigned int)(mhz / ratio);
	c->bus_source = nom_freq ? "nominal_mhz / --nom-freq" :
			"nominal_mhz / nom_freq";
}

static void dcbr_add(struct decode_cbr *c, uint8_t ratio)
{
	if (!c->n++) {
		c->first = ratio;
		c->min = ratio;
		c->max = ratio;
	} else {
		if (ratio < c->min)
			c->min = ratio;
		if (ratio > c->max)
			c->max = ratio;
	}
	c->last = ratio;
}

static int dcbr_packet(void *arg, const struct pt_packet *pkt, uint64_t off,
		       int err)
{
	(void)off;
	if (!err && pkt->type == ppt_cbr)
		dcbr_add(arg, pkt->payload.cbr.ratio);
	return 0;
}

/* Every CBR packet, decoded instructions or not; PSB+'s repeats too. */
void dcbr_scan(struct decode_cbr *c, const uint8_t *buf, size_t len)
{
	pkt_walk_mapped(buf, len, dcbr_packet, c);
}

static void dcbr_mhz(const struct decode_cbr *c, struct outbuf *ob,
		     uint8_t ratio)
{
	if (c->bus_mhz)
		ob_printf(ob, "%u (%u MHz)", ratio, ratio * c->bus_mhz);
	else
		ob_printf(ob, "%u", ratio);
}

void dcbr_print(const struct decode_cbr *c, struct outbuf *ob)
{
	if (!c->n)
		return;
	ob_printf(ob, "# cbr: %llu packets, core:bus ratio first ",
		  (unsigned long long)c->n);
	dcbr_mhz(c, ob, c->first);
	ob_puts(ob, ", last ");
	dcbr_mhz(c, ob, c->last);
	ob_puts(ob, ", min ");
	dcbr_mhz(c, ob, c->min);
	ob_puts(ob, ", max ");
	dcbr_mhz(c, ob, c->max);
	if (c->bus_mhz)
		ob_printf(ob, "; bus clock %u MHz (%s)\n", c->bus_mhz,
			  c->bus_source);
	else
		ob_puts(ob, "; bus clock unknown: no frequency\n");
}
