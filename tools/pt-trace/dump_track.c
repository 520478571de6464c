// SPDX-License-Identifier: GPL-2.0
/*
 * ptdump's tracking columns (see dump_track.h).  The arithmetic follows
 * the rules of the Intel SDM's "Calculating time" section as libipt
 * 2.0.5 applies them; where libipt makes a choice (which packets
 * calibrate, what an unknown high CTC part is taken to be) the choice
 * is the same, since the columns must match ptdump's digit for digit.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "compiler.h"
#include "dump_track.h"
#include "outbuf.h"

#define MTC_BITS	8	/* CTC bits an MTC carries, from MTCFreq up */
#define TMA_CTC_BITS	16	/* CTC bits a TMA carries, from bit 0 */
#define TSC_BITS	56

static uint64_t dt_sext48(uint64_t v)
{
	return (v & (1ULL << 47)) ? v | ~((1ULL << 48) - 1) :
				    v & ((1ULL << 48) - 1);
}

int dt_last_ip_update(struct dt_last_ip *li, const struct pt_packet_ip *ip)
{
	uint64_t keep;

	switch (ip->ipc) {
	case pt_ipc_suppressed:
		li->suppressed = 1;
		return 0;
	case pt_ipc_sext_48:
		li->ip = dt_sext48(ip->ip);
		li->have_ip = 1;
		li->suppressed = 0;
		return 0;
	case pt_ipc_update_16:
		keep = ~0xffffULL;
		break;
	case pt_ipc_update_32:
		keep = ~0xffffffffULL;
		break;
	case pt_ipc_update_48:
		keep = ~0xffffffffffffULL;
		break;
	case pt_ipc_full:
		keep = 0;
		break;
	default:
		return -pte_bad_packet;
	}
	li->ip = (li->ip & keep) | (ip->ip & ~keep);
	li->have_ip = 1;
	li->suppressed = 0;
	return 0;
}

int dt_last_ip_get(const struct dt_last_ip *li, uint64_t *ip)
{
	*ip = 0;
	if (!li->have_ip)
		return -pte_noip;
	if (li->suppressed)
		return -pte_ip_suppressed;
	*ip = li->ip;
	return 0;
}

/* CTC ticks from @last to @now, allowing for one wrap of the MTC range. */
static int dt_ctc_delta(uint32_t now, uint32_t last, const struct pt_config *c,
			uint32_t *delta)
{
	if (now < last) {
		now += 1U << (c->mtc_freq + MTC_BITS);
		if (now < last)
			return -pte_bad_packet;
	}
	*delta = now - last;
	return 0;
}

/* CTC ticks in TSC ticks: CPUID 0x15's ratio. */
static int dt_ctc_to_fc(uint64_t ctc, const struct pt_config *c, uint64_t *fc)
{
	if (!c->cpuid_0x15_eax || !c->cpuid_0x15_ebx)
		return -pte_bad_config;
	*fc = ctc * c->cpuid_0x15_ebx / c->cpuid_0x15_eax;
	return 0;
}

/* A TSC is the whole time: what MTC and CYC added is forgotten. */
static void dt_time_tsc(struct dt_time *t, uint64_t tsc)
{
	uint32_t ctc_cyc = t->ctc_cyc;	/* kept, as libipt does */

	memset(t, 0, sizeof(*t));
	t->ctc_cyc = ctc_cyc;
	t->have_tsc = 1;
	t->tsc = tsc;
	t->base = tsc;
}

static int dt_time_tma(struct dt_time *t, const struct pt_packet_tma *tma,
		       const struct pt_config *c)
{
	unsigned int top = c->mtc_freq + MTC_BITS;

	if (!t->have_tsc || t->have_tma)
		return -pte_bad_context;
	if (t->have_mtc)
		return -pte_internal;
	t->have_tma = 1;
	t->base -= tma->fc;
	t->fc += tma->fc;
	/* With all the MTC's bits in the TMA, the TMA serves as an MTC. */
	if (top <= TMA_CTC_BITS)
		t->have_mtc = 1;
	t->ctc = tma->ctc & ((1U << top) - 1);
	t->ctc_cyc = t->ctc;
	return 0;
}

static int dt_time_mtc(struct dt_time *t, const struct pt_packet_mtc *mtc,
		       const struct pt_config *c)
{
	uint32_t ctc = (uint32_t)mtc->ctc << c->mtc_freq, last = t->ctc, delta;
	int had_mtc = t->have_mtc, err;
	uint64_t ticks;

	/* MTCs between a TSC and its TMA would look like a wrap: ignored. */
	if (t->have_tsc && !t->have_tma)
		return 0;
	if (t->fc || t->lost_cyc || !had_mtc)
		t->ctc_cyc = ctc;
	t->have_mtc = 1;
	t->fc = 0;
	t->ctc = ctc;
	t->lost_cyc = 0;
	if (!had_mtc) {
		uint32_t lo = ctc & 0xffff, hi = ctc & ~0xffffU;

		/* Where in the first MTC period tracing began is unknown. */
		if (!t->have_tma)
			return 0;
		if (last & ~0xffffU)
			return -pte_internal;
		/*
		 * The TMA's missing high bits: this MTC's, one period back
		 * when its low part is below the TMA's.
		 */
		if (lo < last) {
			hi -= 1U << TMA_CTC_BITS;
			hi &= 0xffU << c->mtc_freq;
		}
		last |= hi;
	}
	err = dt_ctc_delta(ctc, last, c, &delta);
	if (err) {
		t->lost_mtc++;
		return err;
	}
	err = dt_ctc_to_fc(delta, c, &ticks);
	if (err)
		return err;
	t->base += ticks;
	t->tsc = t->base;
	return 0;
}

static int dt_time_cyc(struct dt_time *t, const struct pt_packet_cyc *cyc,
		       const struct pt_config *c, uint64_t fcr)
{
	uint64_t cycles = cyc->value;

	if (!fcr) {
		t->lost_cyc++;
		return 0;
	}
	/*
	 * The first CYC after an MTC may span earlier MTC periods than the
	 * one @fc counts in: take those periods' cycles off.
	 */
	if (!t->fc && t->ctc != t->ctc_cyc) {
		uint64_t fc, before;
		uint32_t delta;
		int err;

		err = dt_ctc_delta(t->ctc, t->ctc_cyc, c, &delta);
		if (!err)
			err = dt_ctc_to_fc(delta, c, &fc);
		if (err)
			return err;
		before = (fc << DT_FCR_SHIFT) / fcr;
		cycles = cycles < before ? 0 : cycles - before;
	}
	t->fc += (cycles * fcr) >> DT_FCR_SHIFT;
	t->tsc = t->base + t->fc;
	return 0;
}

static void dt_tcal_reset(struct dt_tcal *k)
{
	memset(k, 0, sizeof(*k));
	k->min_fcr = UINT64_MAX;
}

static int dt_tcal_have(const struct dt_tcal *k)
{
	return k->min_fcr <= k->max_fcr;
}

static void dt_tcal_set(struct dt_tcal *k, uint64_t fcr)
{
	k->fcr = fcr;
	if (fcr < k->min_fcr)
		k->min_fcr = fcr;
	if (fcr > k->max_fcr)
		k->max_fcr = fcr;
}

/* A TSC in PSB+ calibrates over the cycles since the last TSC. */
static int dt_tcal_tsc(struct dt_tcal *k, uint64_t tsc, int header)
{
	uint64_t last = k->tsc, cyc = k->cyc_tsc, delta;

	k->tsc = tsc;
	k->cyc_tsc = 0;
	if (!header || !last || !cyc || k->have_mtc)
		return 0;
	if (tsc < last) {
		tsc += 1ULL << TSC_BITS;
		if (tsc < last)
			return -pte_bad_packet;
	}
	delta = tsc - last;
	if (delta >> (64 - DT_FCR_SHIFT))
		return -pte_internal;
	dt_tcal_set(k, (delta << DT_FCR_SHIFT) / cyc);
	return 0;
}

/* A CBR outside PSB+ is a frequency change: start over. */
static int dt_tcal_cbr(struct dt_tcal *k, uint8_t ratio, int header,
		       const struct pt_config *c)
{
	if (!header)
		dt_tcal_reset(k);
	if (!c->nom_freq)
		return 0;
	if (!ratio)
		return -pte_bad_packet;
	dt_tcal_set(k, ((uint64_t)c->nom_freq << DT_FCR_SHIFT) / ratio);
	return 0;
}

static int dt_tcal_mtc(struct dt_tcal *k, const struct pt_packet_mtc *mtc,
		       const struct pt_config *c)
{
	uint32_t ctc = (uint32_t)mtc->ctc << c->mtc_freq, last = k->ctc, delta;
	uint64_t cyc = k->cyc_mtc, fc, fcr;
	int skl168 = k->check_skl168, err;

	k->check_skl168 = 0;
	if (!k->have_mtc) {
		k->have_mtc = 1;
		k->cyc_mtc = 0;
		k->ctc = ctc;
		return 0;
	}
	/* No cycles yet: the next MTC calibrates over both periods. */
	if (!cyc)
		return 0;
	k->cyc_mtc = 0;
	k->ctc = ctc;
	k->lost_mtc++;
	err = dt_ctc_delta(ctc, last, c, &delta);
	if (!err)
		err = dt_ctc_to_fc(delta, c, &fc);
	if (err)
		return err;
	if (fc >> (64 - DT_FCR_SHIFT))
		return -pte_internal;
	fcr = (fc << DT_FCR_SHIFT) / cyc;
	/*
	 * SKL168: CYC packets just before a PSB may be dropped.  The first
	 * MTC after PSB does not calibrate when MTCs were lost or, at the
	 * higher MTC rates with a ratio known, the cycles fall a wrap short.
	 */
	if (skl168) {
		if ((1U << c->mtc_freq) < delta)
			return 0;
		if (c->mtc_freq < 10 && dt_tcal_have(k) &&
		    ((k->fcr * (cyc + 0xf00)) >> DT_FCR_SHIFT) < fc)
			return 0;
	}
	dt_tcal_set(k, fcr);
	k->lost_mtc = 0;
	return 0;
}

void dt_reset(struct dt_state *s)
{
	memset(s, 0, sizeof(*s));
	dt_tcal_reset(&s->tcal);
}

static void dt_diag(struct outbuf *ob, uint64_t offset, const char *what,
		    int err)
{
	if (err)
		ob_printf(ob, "[%llx: %s: %s]\n", (unsigned long long)offset,
			  what, pt_errstr(pt_errcode(err)));
	else
		ob_printf(ob, "[%llx: %s]\n", (unsigned long long)offset,
			  what);
}

/* ptdump prints its fields into 17-byte arrays: at most 16 characters. */
static void __printf(2, 3) dt_value(struct dt_column *col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(col->value, 17, fmt, ap);
	va_end(ap);
}

static void dt_show_tcal(struct dt_state *s, const struct dt_opts *o,
			 uint64_t offset, struct outbuf *ob,
			 struct dt_column *col)
{
	double scale = (double)(1ULL << DT_FCR_SHIFT);

	strcpy(col->id, "fcr");
	if (!dt_tcal_have(&s->tcal)) {
		strcpy(col->value, "<unavailable>");
		dt_diag(ob, offset, "error printing time", -pte_no_time);
		return;
	}
	if (o->delta) {
		dt_value(col, "%+.3f",
			 (double)s->tcal.fcr / scale -
			 (double)s->shown_fcr / scale);
		s->shown_fcr = s->tcal.fcr;
	} else {
		dt_value(col, "%.3f",
			 (double)s->tcal.fcr / scale);
	}
}

static void dt_show_time(struct dt_state *s, const struct dt_opts *o,
			 uint64_t offset, struct outbuf *ob,
			 struct dt_column *col)
{
	uint64_t tsc = s->time.tsc;

	strcpy(col->id, "tsc");
	if (!s->time.have_tsc && !o->no_wall_clock) {
		dt_diag(ob, offset, "error printing time", -pte_no_time);
		strcpy(col->value, "<unavailable>");
		return;
	}
	if (!o->delta) {
		dt_value(col, "%016llx",
			 (unsigned long long)tsc);
		return;
	}
	if (s->shown_tsc <= tsc)
		dt_value(col, "+%llx",
			 (unsigned long long)(tsc - s->shown_tsc));
	else
		dt_value(col, "-%llx",
			 (unsigned long long)(s->shown_tsc - tsc));
	s->shown_tsc = tsc;
}

/* The column after a timing packet; @no_time, @no_tcal: nothing new. */
static void dt_show(struct dt_state *s, const struct dt_opts *o,
		    uint64_t offset, struct outbuf *ob, struct dt_column *col,
		    int no_time, int no_tcal)
{
	if (o->show_tcal && !no_tcal)
		dt_show_tcal(s, o, offset, ob, col);
	if (o->show_time && !no_time)
		dt_show_time(s, o, offset, ob, col);
}

static void dt_check(struct outbuf *ob, uint64_t offset, const char *what,
		     int err)
{
	if (err < 0)
		dt_diag(ob, offset, what, err);
}

static void dt_timing(struct dt_state *s, const struct dt_opts *o,
		      const struct pt_config *c, const struct pt_packet *pkt,
		      uint64_t offset, struct outbuf *ob,
		      struct dt_column *col)
{
	const char *cal = "error calibrating time", *upd = "error updating time";
	int tcal = !o->no_tcal;
	uint64_t fcr = 0;

	switch (pkt->type) {
	case ppt_tsc:
		if (tcal)
			dt_check(ob, offset, cal,
				 dt_tcal_tsc(&s->tcal, pkt->payload.tsc.tsc,
					     s->in_header));
		dt_time_tsc(&s->time, pkt->payload.tsc.tsc);
		dt_show(s, o, offset, ob, col, 0, 0);
		break;
	case ppt_cbr:
		if (tcal)
			dt_check(ob, offset, cal,
				 dt_tcal_cbr(&s->tcal,
					     pkt->payload.cbr.ratio,
					     s->in_header, c));
		if (!pkt->payload.cbr.ratio)
			dt_diag(ob, offset, upd, -pte_bad_packet);
		dt_show(s, o, offset, ob, col, 1, 0);
		break;
	case ppt_tma:
		dt_check(ob, offset, upd,
			 dt_time_tma(&s->time, &pkt->payload.tma, c));
		dt_show(s, o, offset, ob, col, 0, 1);
		break;
	case ppt_mtc:
		if (tcal)
			dt_check(ob, offset, cal,
				 dt_tcal_mtc(&s->tcal, &pkt->payload.mtc, c));
		dt_check(ob, offset, upd,
			 dt_time_mtc(&s->time, &pkt->payload.mtc, c));
		dt_show(s, o, offset, ob, col, 0, 0);
		break;
	case ppt_cyc:
		if (o->no_cyc)
			break;
		if (tcal) {
			if (dt_tcal_have(&s->tcal))
				fcr = s->tcal.fcr;
			else
				dt_diag(ob, offset, "calibration error",
					-pte_no_time);
			s->tcal.cyc_mtc += pkt->payload.cyc.value;
			s->tcal.cyc_tsc += pkt->payload.cyc.value;
		}
		{
			int err = dt_time_cyc(&s->time, &pkt->payload.cyc, c,
					      fcr);

			if (err < 0)
				dt_diag(ob, offset, upd, err);
			else if (!fcr)
				dt_diag(ob, offset,
					"error updating time: no calibration",
					0);
		}
		dt_show(s, o, offset, ob, col, 0, 1);
		break;
	default:
		break;
	}
}

static void dt_ip(struct dt_state *s, const struct pt_packet_ip *ip,
		  uint64_t offset, struct outbuf *ob, struct dt_column *col)
{
	uint64_t val;
	int err;

	strcpy(col->id, "ip");
	err = dt_last_ip_update(&s->last_ip, ip);
	if (!err)
		err = dt_last_ip_get(&s->last_ip, &val);
	if (!err) {
		dt_value(col, "%016llx",
			 (unsigned long long)val);
	} else if (err == -pte_ip_suppressed) {
		strcpy(col->value, "<suppressed>");
	} else {
		strcpy(col->value, "<unavailable>");
		dt_diag(ob, offset, "error tracking last-ip", err);
	}
}

static const char *dt_exec_mode(const struct pt_packet_mode_exec *m)
{
	if (m->csl)
		return m->csd ? "unknown" : "64-bit";
	return m->csd ? "32-bit" : "16-bit";
}

void dt_packet(struct dt_state *s, const struct dt_opts *o,
	       const struct pt_config *config, const struct pt_packet *pkt,
	       uint64_t offset, struct outbuf *ob, struct dt_column *col)
{
	col->id[0] = 0;
	col->value[0] = 0;
	col->skip = 0;
	switch (pkt->type) {
	case ppt_psb:
		if (o->track_time && config->errata.skl168)
			s->tcal.check_skl168 = 1;
		s->in_header = 1;
		break;
	case ppt_psbend:
		s->in_header = 0;
		break;
	case ppt_ovf:
		/*
		 * Packets were lost, timing packets perhaps: calibration
		 * starts over, as in libipt's query decoder (ptdump after
		 * 2.0.5 too; 2.0.5's kept it), unless asked to keep the ratio
		 * and drop only what was counted towards the next one.
		 */
		if (o->track_time && o->keep_tcal_on_ovf) {
			s->tcal.tsc = 0;
			s->tcal.cyc_tsc = 0;
			s->tcal.cyc_mtc = 0;
			s->tcal.ctc = 0;
			s->tcal.have_mtc = 0;
		} else if (o->track_time) {
			dt_tcal_reset(&s->tcal);
		}
		break;
	case ppt_fup:
	case ppt_tip:
	case ppt_tip_pge:
	case ppt_tip_pgd:
		if (o->lastip)
			dt_ip(s, &pkt->payload.ip, offset, ob, col);
		break;
	case ppt_mode:
		if (o->exec_mode && pkt->payload.mode.leaf == pt_mol_exec) {
			strcpy(col->id, "em");
			strcpy(col->value,
			       dt_exec_mode(&pkt->payload.mode.bits.exec));
		}
		break;
	case ppt_tsc:
	case ppt_cbr:
	case ppt_tma:
	case ppt_mtc:
	case ppt_cyc:
		if (o->track_time)
			dt_timing(s, o, config, pkt, offset, ob, col);
		col->skip = o->no_timing ||
			    (pkt->type == ppt_cyc && o->no_cyc);
		break;
	default:
		break;
	}
}
