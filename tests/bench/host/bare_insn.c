// SPDX-License-Identifier: GPL-2.0
/*
 * The baseline of the decode benchmark: libipt's instruction decoder
 * over a trace with no output at all (ptxed -q's loop), the code from
 * one file segment.  Prints the instruction count.
 * Usage: bare_insn FILE.pt CODE_FILE FILE_OFFSET SIZE VADDR
 */
#include <stdio.h>
#include <stdlib.h>

#include "bare_load.h"

static unsigned long long walk(struct pt_insn_decoder *dec)
{
	unsigned long long n = 0;
	struct pt_insn insn;
	struct pt_event ev;
	int status;

	while ((status = pt_insn_sync_forward(dec)) >= 0) {
		for (;;) {
			while (status & pts_event_pending)
				status = pt_insn_event(dec, &ev, sizeof(ev));
			if (status < 0 || (status & pts_eos))
				break;
			status = pt_insn_next(dec, &insn, sizeof(insn));
			if (insn.iclass != ptic_error)
				n++;
			if (status < 0)
				break;
		}
	}
	return n;
}

int main(int argc, char **argv)
{
	struct pt_insn_decoder *dec;
	struct pt_config config;
	struct pt_image *image;

	if (argc != 6)
		return 1;
	if (bare_load(argv[1], &config))
		return 1;
	image = pt_image_alloc(NULL);
	if (!image || pt_image_add_file(image, argv[2],
					strtoull(argv[3], NULL, 0),
					strtoull(argv[4], NULL, 0), NULL,
					strtoull(argv[5], NULL, 0)) < 0)
		return 1;
	dec = pt_insn_alloc_decoder(&config);
	if (!dec || pt_insn_set_image(dec, image) < 0)
		return 1;
	printf("%llu instructions\n", walk(dec));
	pt_insn_free_decoder(dec);
	pt_image_free(image);
	free((void *)config.begin);
	return 0;
}
