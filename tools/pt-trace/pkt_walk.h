/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One pass over every packet of a trace with libipt's packet decoder
 * (pkt_walk.c), resynchronising at the next PSB after an error: the loop
 * that decode's CBR, VMX context and TSC scans and 'contexts' each had a
 * copy of.
 */
#ifndef PT_TRACE_PKT_WALK_H
#define PT_TRACE_PKT_WALK_H

#include <stddef.h>
#include <stdint.h>
#include <intel-pt.h>

/*
 * Called for each packet at offset @off of the buffer; @err < 0: libipt
 * could not decode there (@pkt holds nothing) and the walk goes on at
 * the next PSB.  A nonzero return stops the walk.
 */
typedef int (*pkt_walk_fn)(void *arg, const struct pt_packet *pkt,
			   uint64_t off, int err);

/* 0, or -1 when the buffer has no PSB to start at (@fn never called). */
int pkt_walk(const uint8_t *buf, size_t len, pkt_walk_fn fn, void *arg);
/*
 * The same over a file that ptt_map_file() mapped: what lies more than
 * 1 MiB behind the walk is dropped from memory every 4 MiB (read again
 * from the file if wanted), so a scan does not hold the whole trace.
 */
int pkt_walk_mapped(const uint8_t *buf, size_t len, pkt_walk_fn fn,
		    void *arg);

/* TIP, TIP.PGE, TIP.PGD or FUP with an IP (not suppressed). */
static inline int pkt_has_ip(const struct pt_packet *p)
{
	return (p->type == ppt_tip || p->type == ppt_tip_pge ||
		p->type == ppt_tip_pgd || p->type == ppt_fup) &&
	       p->payload.ip.ipc != pt_ipc_suppressed;
}

#endif /* PT_TRACE_PKT_WALK_H */
