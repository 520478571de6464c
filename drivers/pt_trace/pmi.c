// SPDX-License-Identifier: GPL-2.0
/*
 * The ToPA PMI handler (placeholder, see pmi.h): flight-recorder buffers
 * never set INT, so no PMI is requested and nothing is registered yet.
 */
#include "pmi.h"

int pt_pmi_init(void)
{
	return 0;
}

void pt_pmi_exit(void)
{
}
