/* SPDX-License-Identifier: GPL-2.0 */
/*
 * decode --jobs on a cycle-accurate trace (CYCEn): libipt's CYC
 * calibration, followed from the packets (decode_tcal.c), and a few
 * packets that give a decoder synchronising at a PSB the calibration one
 * decoder reading on through that PSB has.
 *
 * libipt converts a CYC packet's cycles to time with a ratio (its FCR)
 * that it measures itself: at each MTC that had cycles since the MTC
 * before, from the crystal ticks between them (or, without MTC, from two
 * PSB+ TSCs; or from a CBR and the nominal frequency).  A PSB does not
 * start it again, a sync does: a segment's decoder, synchronised at its
 * PSB, has no ratio until its second MTC with cycles, and its first MTC
 * periods' times are not one decoder's.  The calibration is kept in
 * libipt's decoder, which has no call to read or set it, but it is a
 * function of the packets alone: dtcal_scan() computes it as libipt 2.0
 * does (struct pt_time_cal in its pt_time.c and the query decoder's
 * calls; 2.1 on run the query decoder over a new event decoder, whose
 * rules at an OVF differ), and dtcal_prefix() writes timing packets that
 * leave a decoder synchronising at them in a given state.
 */
#ifndef PT_TRACE_DECODE_TCAL_H
#define PT_TRACE_DECODE_TCAL_H

#include <stddef.h>
#include <stdint.h>
#include <intel-pt.h>

/* libipt's calibration state (what its decoder keeps, by name). */
struct dtcal {
	uint64_t fcr;		/* the ratio: fast counter per cycle << 8 */
	uint64_t min_fcr, max_fcr; /* have a ratio: min <= max */
	uint64_t tsc;		/* the last TSC packet's */
	uint64_t cyc_tsc;	/* cycles since */
	uint64_t cyc_mtc;	/* cycles since the last MTC */
	uint32_t ctc;		/* that MTC's crystal ticks */
	uint8_t have_mtc;
	uint8_t check_skl168;	/* a PSB since the last MTC (erratum) */
};

/* A decoder's state right after it synchronised. */
void dtcal_init(struct dtcal *tc);
/*
 * Whether two states give the same times from here on: what a field is
 * read for decides whether it counts (the last MTC's ticks and cycles
 * only once there was one, the last TSC only without, the ratio where
 * there is one).
 */
int dtcal_eq(const struct dtcal *a, const struct dtcal *b);
static inline int dtcal_fresh(const struct dtcal *tc)
{
	struct dtcal i;

	dtcal_init(&i);
	return dtcal_eq(tc, &i);
}

/* Whether the running libipt calibrates as this file does (2.0.x). */
int dtcal_supported(void);

/*
 * Follow @tc through the packets of @buf[@from, @to) (@from: a PSB).
 * @sync: a decoder synchronises at that PSB (@tc is dtcal_init()'s),
 * else it reads on through it.  A packet libipt fails at makes the
 * decoder search for the next PSB, where the state starts again, as
 * at a packet it cannot decode.  Returns the number of such restarts.
 */
unsigned int dtcal_scan(struct dtcal *tc, const struct pt_config *cfg,
			const uint8_t *buf, uint64_t from, uint64_t to,
			int sync);

/*
 * Packets for a decoder to synchronise at, up to the PSB at @psb (whose
 * PSB+ lies in the @len bytes there), so that it reads on through that
 * PSB in state @want: a PSB+ with the MODE.Exec and FUP of @psb's (so
 * that it is where that PSB+ says, and takes its events before any
 * instruction, as one decoder reading on does), and MTC, CYC and TSC
 * packets.  Written to @out (@size bytes).  Returns their length, 0
 * when @want is a fresh decoder's (no packets needed), or -1 when no
 * packets give that state (a ratio from PSB+ TSCs before the first MTC
 * that @psb's PSB+ does not replace).
 */
long dtcal_prefix(const struct dtcal *want, const struct pt_config *cfg,
		  const uint8_t *psb, size_t len, uint8_t *out, size_t size);

#define DTCAL_PREFIX_MAX	128

#endif /* PT_TRACE_DECODE_TCAL_H */
