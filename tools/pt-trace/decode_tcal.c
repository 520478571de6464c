// SPDX-License-Identifier: GPL-2.0
/*
 * libipt's CYC calibration followed from the packets, and the packets
 * that set it (decode_tcal.h).  The rules are libipt's (2.0 to 2.2,
 * libipt/src/pt_time.c's pt_tcal_*() and which of them its query
 * decoder calls for which packet), written here from their description:
 *
 * - a sync starts from nothing; every PSB (the sync's too: pt_qry_start()
 *   decodes it as any) marks the next MTC for the SKL168 check
 *   (errata.skl168);
 * - a TSC in a PSB+ gives a ratio from the cycles since the TSC before,
 *   unless an MTC was seen; a TSC elsewhere only starts that count;
 * - a CBR in a PSB+ gives the ratio nom_freq / CBR (when nom_freq is
 *   known); a CBR elsewhere starts everything again first;
 * - an MTC gives the ratio from the crystal ticks since the MTC before
 *   and the cycles between (TSC ticks = CTC * cpuid15.ebx / eax), not
 *   from the first MTC, and not where no cycles were counted (the next
 *   MTC's period then spans both); SKL168: not at the first MTC after a
 *   PSB where an MTC or a wrapping CYC looks lost;
 * - a CYC adds its cycles to both counts;
 * - an OVF starts everything again, as a sync (2.0's pt_qry_decode_ovf()
 *   resets the query decoder but for the time).
 * Packet errors libipt reports (a CTC that went back twice, a TSC delta
 * too wide, a CBR of 0) make its decoder search for the next PSB.
 */
#include <string.h>

#include "decode_tcal.h"
#include "pkt_walk.h"

#define FCR_SHR		8	/* libipt's pt_tcal_fcr_shr */
#define TSC_BITS	56	/* a TSC packet's payload */
#define MTC_BITS	8	/* an MTC packet's payload */

void dtcal_init(struct dtcal *tc)
{
	memset(tc, 0, sizeof(*tc));
	tc->min_fcr = UINT64_MAX;
}

static int dtcal_have_fcr(const struct dtcal *tc)
{
	return tc->min_fcr <= tc->max_fcr;
}

int dtcal_eq(const struct dtcal *a, const struct dtcal *b)
{
	if (a->have_mtc != b->have_mtc ||
	    dtcal_have_fcr(a) != dtcal_have_fcr(b))
		return 0;
	if (dtcal_have_fcr(a) && a->fcr != b->fcr)
		return 0;
	if (a->have_mtc)
		return a->ctc == b->ctc && a->cyc_mtc == b->cyc_mtc;
	return a->tsc == b->tsc && a->cyc_tsc == b->cyc_tsc;
}

int dtcal_supported(void)
{
	struct pt_version v = pt_library_version();

	return v.major == 2 && v.minor == 0;
}

static void dtcal_set_fcr(struct dtcal *tc, uint64_t fcr)
{
	tc->fcr = fcr;
	if (fcr < tc->min_fcr)
		tc->min_fcr = fcr;
	if (fcr > tc->max_fcr)
		tc->max_fcr = fcr;
}

/* Crystal ticks to TSC ticks; -1 without CPUID 0x15 (libipt goes on). */
static int dtcal_ctc_fc(const struct pt_config *cfg, uint64_t ctc,
			uint64_t *fc)
{
	if (!cfg->cpuid_0x15_eax || !cfg->cpuid_0x15_ebx)
		return -1;
	*fc = ctc * cfg->cpuid_0x15_ebx / cfg->cpuid_0x15_eax;
	return 0;
}

/* A ratio from @fc TSC ticks over @cyc cycles; -1: too wide (an error) */
static int dtcal_ratio(uint64_t fc, uint64_t cyc, uint64_t *fcr)
{
	if (fc & ~(~0ull >> FCR_SHR))
		return -1;
	*fcr = (fc << FCR_SHR) / cyc;
	return 0;
}

static int dtcal_header_tsc(struct dtcal *tc, uint64_t tsc)
{
	uint64_t last = tc->tsc, cyc = tc->cyc_tsc, fcr;

	tc->tsc = tsc;
	tc->cyc_tsc = 0;
	if (!last || !cyc || tc->have_mtc)
		return 0;
	if (tsc < last) {
		tsc += 1ull << TSC_BITS;
		if (tsc < last)
			return -1;
	}
	if (dtcal_ratio(tsc - last, cyc, &fcr) < 0)
		return -1;
	dtcal_set_fcr(tc, fcr);
	return 0;
}

static int dtcal_header_cbr(struct dtcal *tc, const struct pt_config *cfg,
			    uint8_t ratio)
{
	if (!cfg->nom_freq)
		return 0;
	if (!ratio)
		return -1;
	dtcal_set_fcr(tc, ((uint64_t)cfg->nom_freq << FCR_SHR) / ratio);
	return 0;
}

static int dtcal_mtc(struct dtcal *tc, const struct pt_config *cfg,
		     uint8_t payload)
{
	uint32_t last = tc->ctc, ctc = (uint32_t)payload << cfg->mtc_freq;
	uint64_t cyc = tc->cyc_mtc, fc, fcr;
	int check = tc->check_skl168;

	tc->check_skl168 = 0;
	if (!tc->have_mtc) {
		tc->cyc_mtc = 0;
		tc->ctc = ctc;
		tc->have_mtc = 1;
		return 0;
	}
	if (!cyc)
		return 0;	/* the next MTC's period spans this one */
	tc->cyc_mtc = 0;
	tc->ctc = ctc;
	if (ctc < last) {	/* one wrap of the MTC's bits */
		ctc += 1u << (cfg->mtc_freq + MTC_BITS);
		if (ctc < last)
			return -1;
	}
	if (dtcal_ctc_fc(cfg, ctc - last, &fc) < 0)
		return 0;
	if (dtcal_ratio(fc, cyc, &fcr) < 0)
		return -1;
	if (check) {
		/* an MTC lost since the PSB */
		if ((1u << cfg->mtc_freq) < ctc - last)
			return 0;
		/* a wrapping CYC lost (fewer cycles than the ratio says) */
		if (cfg->mtc_freq < 10 && dtcal_have_fcr(tc) &&
		    (tc->fcr * (cyc + 0xf00)) >> FCR_SHR < fc)
			return 0;
	}
	dtcal_set_fcr(tc, fcr);
	return 0;
}

struct dtcal_walk {
	struct dtcal *tc;
	const struct pt_config *cfg;
	int sync;		/* the next PSB is a sync */
	int lost;		/* searching for a PSB after an error */
	int in_psb;
	unsigned int restarts;
};

static int dtcal_packet(void *arg, const struct pt_packet *pkt,
			uint64_t off, int err)
{
	struct dtcal_walk *w = arg;
	struct dtcal *tc = w->tc;
	int bad = 0;

	(void)off;
	if (err < 0) {
		/* pkt_walk() goes on at the next PSB: libipt's sync there */
		bad = 1;
		goto restart;
	}
	if (w->lost && pkt->type != ppt_psb)
		return 0;
	switch (pkt->type) {
	case ppt_psb:
		w->lost = 0;
		w->in_psb = 1;
		if (w->sync)
			dtcal_init(tc);
		if (w->cfg->errata.skl168)
			tc->check_skl168 = 1;
		w->sync = 0;
		break;
	case ppt_psbend:
		w->in_psb = 0;
		break;
	case ppt_tsc:
		if (!w->in_psb) {
			tc->tsc = pkt->payload.tsc.tsc;
			tc->cyc_tsc = 0;
		} else {
			bad = dtcal_header_tsc(tc, pkt->payload.tsc.tsc);
		}
		break;
	case ppt_cbr:
		if (!w->in_psb)
			dtcal_init(tc);	/* a frequency change */
		bad = dtcal_header_cbr(tc, w->cfg, pkt->payload.cbr.ratio);
		break;
	case ppt_mtc:
		bad = dtcal_mtc(tc, w->cfg, pkt->payload.mtc.ctc);
		break;
	case ppt_cyc:
		tc->cyc_mtc += pkt->payload.cyc.value;
		tc->cyc_tsc += pkt->payload.cyc.value;
		break;
	case ppt_ovf:
		if (w->in_psb)
			bad = 1;	/* no OVF in a PSB+: libipt fails there */
		else
			dtcal_init(tc);
		break;
	default:
		break;
	}
	if (!bad)
		return 0;
restart:
	w->restarts++;
	w->lost = 1;
	w->sync = 1;
	w->in_psb = 0;
	return 0;
}

unsigned int dtcal_scan(struct dtcal *tc, const struct pt_config *cfg,
			const uint8_t *buf, uint64_t from, uint64_t to,
			int sync)
{
	struct dtcal_walk w = { .tc = tc, .cfg = cfg, .sync = sync };

	if (to > from)
		pkt_walk(buf + from, to - from, dtcal_packet, &w);
	return w.restarts;
}

/* What a PSB+ holds that the prefix copies or depends on. */
struct dtcal_psb {
	size_t mode_off, mode_len;	/* its MODE.Exec, raw */
	size_t fup_off, fup_len;	/* its FUP, raw */
	int has_tsc, has_cbr;
};

static int dtcal_read_psb(const uint8_t *psb, size_t len, struct dtcal_psb *h)
{
	struct pt_config cfg;
	struct pt_packet_decoder *dec;
	int ret = -1;

	memset(h, 0, sizeof(*h));
	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)psb;
	cfg.end = (uint8_t *)psb + len;
	dec = pt_pkt_alloc_decoder(&cfg);
	if (!dec)
		return -1;
	if (pt_pkt_sync_set(dec, 0) < 0)
		goto out;
	for (;;) {
		struct pt_packet pkt;
		uint64_t off;
		int size;

		if (pt_pkt_get_offset(dec, &off) < 0)
			break;
		size = pt_pkt_next(dec, &pkt, sizeof(pkt));
		if (size < 0)
			break;
		if (off == 0 && pkt.type != ppt_psb)
			break;
		switch (pkt.type) {
		case ppt_psbend:
			ret = 0;
			goto out;
		case ppt_mode:
			if (pkt.payload.mode.leaf == pt_mol_exec) {
				h->mode_off = off;
				h->mode_len = (size_t)size;
			}
			break;
		case ppt_fup:
			h->fup_off = off;
			h->fup_len = (size_t)size;
			break;
		case ppt_tsc:
			h->has_tsc = 1;
			break;
		case ppt_cbr:
			h->has_cbr = pkt.payload.cbr.ratio != 0;
			break;
		default:
			break;
		}
	}
out:
	pt_pkt_free_decoder(dec);
	return ret;
}

/*
 * Two MTCs @delta crystal ticks apart with @k cycles between make the
 * ratio @fcr: the widest span that does (MTC payloads of 8 bits).
 */
static int dtcal_mtc_pair(const struct pt_config *cfg, uint64_t fcr,
			  uint32_t *delta, uint64_t *k)
{
	unsigned int m;

	for (m = 255; m > 0; m--) {
		uint64_t fc, r;

		if (dtcal_ctc_fc(cfg, (uint64_t)m << cfg->mtc_freq, &fc) < 0)
			return -1;
		if (fc & ~(~0ull >> FCR_SHR))
			continue;
		if (!fcr) {
			*k = (fc << FCR_SHR) + 1;
		} else {
			*k = (fc << FCR_SHR) / fcr;
			if (!*k || dtcal_ratio(fc, *k, &r) < 0 || r != fcr)
				continue;
		}
		*delta = m << cfg->mtc_freq;
		return 0;
	}
	return -1;
}

struct dtcal_out {
	struct pt_encoder *enc;
	int err;
};

static void dtcal_put(struct dtcal_out *o, enum pt_packet_type type,
		      uint64_t v)
{
	struct pt_packet pkt;

	memset(&pkt, 0, sizeof(pkt));
	pkt.type = type;
	switch (type) {
	case ppt_mtc:
		pkt.payload.mtc.ctc = (uint8_t)v;
		break;
	case ppt_cyc:
		pkt.payload.cyc.value = v;
		break;
	case ppt_tsc:
		pkt.payload.tsc.tsc = v;
		break;
	default:
		break;
	}
	if (!o->err && pt_enc_next(o->enc, &pkt) < 0)
		o->err = 1;
}

static void dtcal_raw(struct dtcal_out *o, uint8_t *out, size_t size,
		      const uint8_t *raw, size_t len)
{
	uint64_t at;

	if (o->err || !len)
		return;
	if (pt_enc_get_offset(o->enc, &at) < 0 || at + len > size) {
		o->err = 1;
		return;
	}
	memcpy(out + at, raw, len);
	if (pt_enc_sync_set(o->enc, at + len) < 0)
		o->err = 1;
}

long dtcal_prefix(const struct dtcal *want, const struct pt_config *cfg,
		  const uint8_t *psb, size_t len, uint8_t *out, size_t size)
{
	struct dtcal_psb h;
	struct dtcal got, cmp = *want;
	struct dtcal_out o = { 0 };
	struct pt_config ecfg;
	uint32_t mask = (1u << (cfg->mtc_freq + MTC_BITS)) - 1;
	uint64_t end;
	int need_fcr;

	if (dtcal_fresh(want))
		return 0;
	if (dtcal_read_psb(psb, len, &h) < 0)
		return -1;
	/* its PSB+'s CBR replaces the ratio before any CYC is timed */
	need_fcr = dtcal_have_fcr(want) && !(cfg->nom_freq && h.has_cbr);
	/*
	 * Without an MTC a ratio is made only from PSB+ TSCs (or CBRs),
	 * and a TSC's time is libipt's too: one the PSB+ does not replace
	 * is not written.
	 */
	if (!want->have_mtc && (need_fcr || (want->tsc && !h.has_tsc)))
		return -1;
	pt_config_init(&ecfg);
	ecfg.begin = out;
	ecfg.end = out + size;
	o.enc = pt_alloc_encoder(&ecfg);
	if (!o.enc)
		return -1;
	dtcal_put(&o, ppt_psb, 0);
	dtcal_raw(&o, out, size, psb + h.mode_off, h.mode_len);
	dtcal_raw(&o, out, size, psb + h.fup_off, h.fup_len);
	dtcal_put(&o, ppt_psbend, 0);
	if (want->have_mtc) {
		if (need_fcr) {
			uint32_t delta;
			uint64_t k;

			if (dtcal_mtc_pair(cfg, want->fcr, &delta, &k) < 0) {
				o.err = 1;
			} else {
				dtcal_put(&o, ppt_mtc,
					  ((want->ctc - delta) & mask) >>
					  cfg->mtc_freq);
				dtcal_put(&o, ppt_cyc, k);
			}
		}
		dtcal_put(&o, ppt_mtc, want->ctc >> cfg->mtc_freq);
		if (want->cyc_mtc)
			dtcal_put(&o, ppt_cyc, want->cyc_mtc);
	} else {
		if (want->tsc)
			dtcal_put(&o, ppt_tsc, want->tsc);
		if (want->cyc_tsc)
			dtcal_put(&o, ppt_cyc, want->cyc_tsc);
	}
	if (o.err || pt_enc_get_offset(o.enc, &end) < 0)
		end = 0;
	pt_free_encoder(o.enc);
	if (!end)
		return -1;
	/* The packets checked: followed as a decoder that syncs there. */
	dtcal_init(&got);
	dtcal_scan(&got, cfg, out, 0, end, 1);
	if (!need_fcr) {
		cmp.fcr = got.fcr;
		cmp.min_fcr = got.min_fcr;
		cmp.max_fcr = got.max_fcr;
	}
	return dtcal_eq(&got, &cmp) ? (long)end : -1;
}
