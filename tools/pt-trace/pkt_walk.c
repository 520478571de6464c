// SPDX-License-Identifier: GPL-2.0
/*
 * Every packet of a trace, in order, for the scans that need packets and
 * not instructions (pkt_walk.h).  After a decode error the walk goes on
 * at the next PSB, as libipt's own tools do.
 */
#include "pkt_walk.h"
#include "tool.h"

static int pkt_walk_drop(const uint8_t *buf, size_t len, pkt_walk_fn fn,
			 void *arg, int mapped)
{
	struct pt_packet_decoder *dec;
	struct pt_config cfg;
	struct pt_packet pkt;
	size_t dropped = 0;
	uint64_t off;

	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + len;
	dec = pt_pkt_alloc_decoder(&cfg);
	if (!dec || pt_pkt_sync_forward(dec) < 0) {
		pt_pkt_free_decoder(dec);
		return -1;
	}
	for (;;) {
		int ret;

		if (pt_pkt_get_offset(dec, &off) < 0)
			break;
		if (mapped)
			ptt_file_drop_behind(buf, &dropped, (size_t)off);
		ret = pt_pkt_next(dec, &pkt, sizeof(pkt));
		if (ret == -pte_eos)
			break;
		if (fn(arg, &pkt, off, ret < 0 ? ret : 0))
			break;
		if (ret < 0 && pt_pkt_sync_forward(dec) < 0)
			break;
	}
	pt_pkt_free_decoder(dec);
	return 0;
}

int pkt_walk(const uint8_t *buf, size_t len, pkt_walk_fn fn, void *arg)
{
	return pkt_walk_drop(buf, len, fn, arg, 0);
}

int pkt_walk_mapped(const uint8_t *buf, size_t len, pkt_walk_fn fn,
		    void *arg)
{
	return pkt_walk_drop(buf, len, fn, arg, 1);
}
