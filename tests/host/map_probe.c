// SPDX-License-Identifier: GPL-2.0
/*
 * For tests/host/run's decode-maps check: a PIE linked against libc that
 * writes DIR/sideband.txt with its own executable mappings and a copy of
 * its vdso, with the code pt-trace record uses for a traced process
 * (ptt_maps_write, ptt_vdso_record), and prints the run-time addresses
 * the check builds a trace for: map_probe (map_probe_code.S), libc's
 * getppid and the vdso.  Usage: map_probe DIR
 */
#include <stdio.h>
#include <unistd.h>
#include <sys/auxv.h>

#include "map_probe.h"
#include "proc_maps.h"
#include "sideband.h"
#include "vdso_image.h"

int main(int argc, char **argv)
{
	static struct ptt_maps maps;
	char path[4096];
	FILE *sb;

	if (argc != 2)
		return 1;
	snprintf(path, sizeof(path), "%s/%s", argv[1], PTSB_FILE_NAME);
	sb = ptsb_create(path);
	if (!sb)
		return 1;
	ptt_vdso_record(sb, argv[1]);
	ptt_maps_write(sb, getpid(), &maps);
	ptt_maps_free(&maps);
	if (fclose(sb))
		return 1;
	printf("probe %p\ngetppid %p\nvdso %#lx\n", (void *)map_probe,
	       (void *)getppid, getauxval(AT_SYSINFO_EHDR));
	/* the probe is real code: it returns getppid() */
	return map_probe() == getppid() ? 0 : 1;
}
