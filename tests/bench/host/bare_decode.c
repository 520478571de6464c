// SPDX-License-Identifier: GPL-2.0
/*
 * The baseline of the dump benchmark: libipt's packet decoder walking a
 * file with no output at all, as fast as the library goes.  Prints the
 * packet count so the loop cannot be optimised away.
 */
#include <stdio.h>
#include <stdlib.h>

#include <intel-pt.h>

int main(int argc, char **argv)
{
	struct pt_packet_decoder *dec;
	struct pt_config config;
	unsigned long long packets = 0;
	unsigned char *buf;
	long len;
	FILE *f;

	if (argc != 2)
		return 1;
	f = fopen(argv[1], "rb");
	if (!f || fseek(f, 0, SEEK_END))
		return 1;
	len = ftell(f);
	if (len <= 0)
		return 1;
	rewind(f);
	buf = malloc((size_t)len);
	if (!buf || fread(buf, (size_t)len, 1, f) != 1)
		return 1;
	fclose(f);
	pt_config_init(&config);
	config.begin = buf;
	config.end = buf + len;
	dec = pt_pkt_alloc_decoder(&config);
	if (!dec)
		return 1;
	while (pt_pkt_sync_forward(dec) >= 0) {
		struct pt_packet pkt;

		while (pt_pkt_next(dec, &pkt, sizeof(pkt)) >= 0)
			packets++;
	}
	pt_pkt_free_decoder(dec);
	free(buf);
	printf("%llu\n", packets);
	return 0;
}
