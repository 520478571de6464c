// SPDX-License-Identifier: GPL-2.0
/*
 * The baseline of the dump benchmark: libipt's packet decoder walking a
 * file with no output at all, as fast as the library goes.  Prints the
 * packet count so the loop cannot be optimised away.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bare_load.h"

int main(int argc, char **argv)
{
	struct pt_packet_decoder *dec;
	struct pt_config config;
	unsigned long long packets = 0;

	if (argc != 2)
		return 1;
	if (bare_load(argv[1], &config))
		return 1;
	dec = pt_pkt_alloc_decoder(&config);
	if (!dec)
		return 1;
	while (pt_pkt_sync_forward(dec) >= 0) {
		struct pt_packet pkt;

		while (pt_pkt_next(dec, &pkt, sizeof(pkt)) >= 0)
			packets++;
	}
	pt_pkt_free_decoder(dec);
	free((void *)config.begin);
	printf("%llu\n", packets);
	return 0;
}
