// SPDX-License-Identifier: GPL-2.0
/*
 * pt-trace info's Branch Trace Store line, from the driver's
 * /sys/kernel/pt_trace/bts/ (SDM Vol. 3B 18.7.8): whether the CPU has
 * BTS, whether it can record user or kernel branches alone, and
 * whether page table isolation keeps the driver from using it.
 */
#include <stdio.h>
#include <string.h>

#include "bts_info.h"
#include "tool.h"

#define SYSFS_BTS	"/sys/kernel/pt_trace/bts/"

int bts_info_pti(void)
{
	char pti[8];

	return !strcmp(ptt_sysfs_line(SYSFS_BTS "pti", pti, sizeof(pti)), "1");
}

void bts_info_print(void)
{
	char present[8], ds[8], cpl[8];

	if (!ptt_sysfs_line(SYSFS_BTS "present", present, sizeof(present))[0])
		return;		/* an older driver */
	ptt_sysfs_line(SYSFS_BTS "ds", ds, sizeof(ds));
	ptt_sysfs_line(SYSFS_BTS "cpl_filter", cpl, sizeof(cpl));
	if (!strcmp(present, "1") && bts_info_pti())
		printf("  %-22s refused: page table isolation is on (%s)\n",
		       "bts", "pti=off where the CPU is not affected by Meltdown");
	else if (!strcmp(present, "1"))
		printf("  %-22s yes, %s\n", "bts",
		       strcmp(cpl, "1") ? "user and kernel branches together (no DS-CPL)" :
					  "user or kernel branches alone (DS-CPL)");
	else
		printf("  %-22s no (%s)\n", "bts",
		       strcmp(ds, "1") ? "no DS: CPUID.1:EDX[21]=0" :
					 "IA32_MISC_ENABLE[11]: BTS unavailable");
}
