// SPDX-License-Identifier: GPL-2.0
/*
 * Decoder parameters: a wrong CPU or timing ratio silently gives wrong
 * results, so every value is parsed strictly and comes either from the
 * recorder's sideband or from the user.
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"
#include "trace_config.h"

int ptt_config_set_cpu(struct pt_config *config, const char *arg)
{
	uint32_t v[3] = { 0, 0, 0 };
	char buf[64], *tok, *save = NULL;
	int n = 0;

	if (!arg || strlen(arg) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, arg);
	for (tok = strtok_r(buf, "/", &save); tok;
	     tok = strtok_r(NULL, "/", &save)) {
		if (n == 3 || ptt_parse_u32(tok, &v[n]))
			return -EINVAL;
		n++;
	}
	if (n < 2 || v[0] > UINT16_MAX || v[1] > UINT8_MAX || v[2] > UINT8_MAX)
		return -EINVAL;
	memset(&config->cpu, 0, sizeof(config->cpu));
	config->cpu.vendor = pcv_intel;
	config->cpu.family = (uint16_t)v[0];
	config->cpu.model = (uint8_t)v[1];
	config->cpu.stepping = (uint8_t)v[2];
	if (pt_cpu_errata(&config->errata, &config->cpu) < 0)
		return -EINVAL;
	return 0;
}

void ptt_config_from_sideband(struct pt_config *config,
			      const struct ptsb *sb)
{
	uint64_t f, m, s = 0, v;

	if (!ptsb_get_u64(sb, "cpu.family", &f) &&
	    !ptsb_get_u64(sb, "cpu.model", &m) && f && f <= UINT16_MAX &&
	    m <= UINT8_MAX) {
		ptsb_get_u64(sb, "cpu.stepping", &s);
		memset(&config->cpu, 0, sizeof(config->cpu));
		config->cpu.vendor = pcv_intel;
		config->cpu.family = (uint16_t)f;
		config->cpu.model = (uint8_t)m;
		config->cpu.stepping = (uint8_t)(s & 0xff);
		pt_cpu_errata(&config->errata, &config->cpu);
	}
	if (!ptsb_get_u64(sb, "mtc_freq", &v) && v <= 15)
		config->mtc_freq = (uint8_t)v;
	if (!ptsb_get_u64(sb, "nom_freq", &v) && v <= UINT8_MAX)
		config->nom_freq = (uint8_t)v;
	if (!ptsb_get_u64(sb, "cpuid15.eax", &v) && v <= UINT32_MAX)
		config->cpuid_0x15_eax = (uint32_t)v;
	if (!ptsb_get_u64(sb, "cpuid15.ebx", &v) && v <= UINT32_MAX)
		config->cpuid_0x15_ebx = (uint32_t)v;
}

int ptt_find_sideband(const char *trace_path, struct ptsb *sb, int *cpu)
{
	char *a = strdup(trace_path), *b = strdup(trace_path);
	char path[4096];
	const char *base;
	int err, n;

	if (!a || !b) {
		free(a);
		free(b);
		return -ENOMEM;
	}
	*cpu = -1;
	base = basename(b);
	if (sscanf(base, "cpu%d.pt%n", cpu, &n) != 1 || base[n] != 0 ||
	    *cpu < 0)
		*cpu = -1;
	snprintf(path, sizeof(path), "%s/%s", dirname(a), PTSB_FILE_NAME);
	err = ptsb_read(path, sb);
	free(a);
	free(b);
	return err;
}
