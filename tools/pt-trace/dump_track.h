/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The state libipt 2.0.5's ptdump keeps while it prints packets, for its
 * --lastip, --exec-mode, --time, --tcal, --time-delta and --no-tcal
 * columns: the last IP that compressed IP packets update, the estimated
 * TSC (from TSC, TMA, MTC and CYC) and the fast-counter:cycles ratio
 * calibrated from CBR, MTC and TSC.  libipt keeps these in internal
 * functions that its shared library does not export, so they are
 * written here again from their documented rules; the host tests compare
 * the columns with ptdump 2.0.5's on the conformance and real traces.
 */
#ifndef PT_TRACE_DUMP_TRACK_H
#define PT_TRACE_DUMP_TRACK_H

#include <stdint.h>

#include <intel-pt.h>

struct outbuf;

/* The last IP: what FUP/TIP/TIP.PGE/TIP.PGD payloads update. */
struct dt_last_ip {
	uint64_t ip;
	uint8_t have_ip;
	uint8_t suppressed;
};

/* 0 and the IP, -pte_noip before any IP, -pte_ip_suppressed. */
int dt_last_ip_update(struct dt_last_ip *li, const struct pt_packet_ip *ip);
int dt_last_ip_get(const struct dt_last_ip *li, uint64_t *ip);

/* The estimated TSC. */
struct dt_time {
	uint64_t tsc;		/* the estimate */
	uint64_t base;		/* TSC at the last MTC (or TSC-TMA) */
	uint64_t fc;		/* fast counter since @base, from CYC */
	uint32_t ctc;		/* CTC at the last MTC or TMA */
	uint32_t ctc_cyc;	/* CTC when @fc last restarted */
	uint32_t lost_mtc, lost_cyc;
	uint8_t have_tsc, have_tma, have_mtc;
};

/* Calibration: fast-counter ticks per cycle, shifted left by 8. */
#define DT_FCR_SHIFT	8

struct dt_tcal {
	uint64_t fcr, min_fcr, max_fcr;
	uint64_t tsc;		/* the last TSC */
	uint64_t cyc_tsc;	/* cycles since the last TSC */
	uint64_t cyc_mtc;	/* cycles since the last MTC */
	uint32_t ctc;		/* CTC at the last MTC */
	uint32_t lost_mtc;
	uint8_t have_mtc, check_skl168;
};

/* Which columns ptdump would print, and how. */
struct dt_opts {
	unsigned int lastip:1;
	unsigned int exec_mode:1;
	unsigned int track_time:1;	/* --time or --tcal */
	unsigned int show_time:1;
	unsigned int show_tcal:1;
	unsigned int delta:1;
	unsigned int no_tcal:1;
	unsigned int no_wall_clock:1;
	unsigned int keep_tcal_on_ovf:1;
	unsigned int no_cyc:1;
	unsigned int no_timing:1;
};

struct dt_state {
	struct dt_last_ip last_ip;
	struct dt_time time;
	struct dt_tcal tcal;
	uint64_t shown_tsc;	/* for --time-delta */
	uint64_t shown_fcr;
	int in_header;		/* between PSB and PSBEND */
};

/* ptdump's tracking column of one packet: "ip", "tsc", "fcr", "em". */
struct dt_column {
	char id[8];
	char value[24];
	int skip;		/* --no-timing, --no-cyc: no line */
};

/* ptdump resets all of it when it resynchronises after an error. */
void dt_reset(struct dt_state *s);

/*
 * Track one packet at @offset and fill @col (id[0] == 0: none).  The
 * diagnostics ptdump prints before the packet's line are written to @ob
 * as "[OFFSET: WHAT: REASON]" lines.
 */
void dt_packet(struct dt_state *s, const struct dt_opts *o,
	       const struct pt_config *config, const struct pt_packet *pkt,
	       uint64_t offset, struct outbuf *ob, struct dt_column *col);

#endif /* PT_TRACE_DUMP_TRACK_H */
