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

#include <linux/pt_trace.h>

#include "cpu_errata.h"
#include "lossfile.h"
#include "tool.h"
#include "trace_config.h"

int ptt_config_set_cpu(struct pt_config *config, const char *arg)
{
	uint32_t v[3] = { 0, 0, 0 };
	char buf[64], *tok, *save = NULL;
	int n = 0, err;

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
	/*
	 * A CPU newer than the errata table and the library is no reason to
	 * refuse the trace: like ptdump, go on without errata workarounds,
	 * and say so.
	 */
	err = ptt_cpu_errata(&config->errata, &config->cpu);
	if (err < 0) {
		memset(&config->errata, 0, sizeof(config->errata));
		ptt_warn("--cpu %s: neither pt-trace's errata table nor libipt %u.%u.%u knows this CPU (%s): decoding on without errata workarounds",
			 arg, pt_library_version().major,
			 pt_library_version().minor, pt_library_version().patch,
			 pt_errstr(pt_errcode(err)));
	}
	return 0;
}

int ptt_config_errata_err(const struct pt_config *config)
{
	struct pt_errata errata;
	int err;

	if (!config->cpu.vendor)
		return 0;
	err = ptt_cpu_errata(&errata, &config->cpu);
	return err < 0 ? err : 0;
}

int ptt_config_add_range(struct pt_config *config, uint32_t cfg, uint64_t a,
			 uint64_t b)
{
	struct pt_conf_addr_filter *f = &config->addr_filter;
	unsigned int n;

	for (n = 0; n < 4; n++)
		if (!(f->config.addr_cfg >> (4 * n) & 0xf))
			break;
	switch (n) {
	case 0:
		f->addr0_a = a;
		f->addr0_b = b;
		break;
	case 1:
		f->addr1_a = a;
		f->addr1_b = b;
		break;
	case 2:
		f->addr2_a = a;
		f->addr2_b = b;
		break;
	case 3:
		f->addr3_a = a;
		f->addr3_b = b;
		break;
	default:
		return -ENOSPC;
	}
	f->config.addr_cfg |= (uint64_t)(cfg & 0xf) << (4 * n);
	return 0;
}

int ptt_config_add_range_arg(struct pt_config *config, uint32_t cfg,
			     const char *arg)
{
	uint64_t a, b;

	if (ptt_parse_range(arg, &a, &b))
		return -EINVAL;
	return ptt_config_add_range(config, cfg, a, b);
}

/*
 * record's "filter=SYMBOL START END FILE" and "stop_at=..." lines: the
 * ranges of --filter and --stop-at, END inclusive (SYMBOL and FILE are
 * "-" for a range given as A-B).
 */
static void ptt_config_ranges_from_sideband(struct pt_config *config,
					    const struct ptsb *sb,
					    const char *key, uint32_t cfg)
{
	unsigned long long a, b;
	const char *v;
	size_t pos = 0;

	while ((v = ptsb_next(sb, key, &pos)))
		if (sscanf(v, "%*s %llx %llx", &a, &b) == 2 && a <= b)
			ptt_config_add_range(config, cfg, a, b);
}

void ptt_config_from_sideband(struct pt_config *config,
			      const struct ptsb *sb)
{
	uint64_t f, m, s = 0, v;

	ptt_config_ranges_from_sideband(config, sb, "filter",
					PT_ADDR_CFG_FILTER);
	ptt_config_ranges_from_sideband(config, sb, "stop_at",
					PT_ADDR_CFG_STOP);

	if (!ptsb_get_u64(sb, "cpu.family", &f) &&
	    !ptsb_get_u64(sb, "cpu.model", &m) && f && f <= UINT16_MAX &&
	    m <= UINT8_MAX) {
		ptsb_get_u64(sb, "cpu.stepping", &s);
		memset(&config->cpu, 0, sizeof(config->cpu));
		config->cpu.vendor = pcv_intel;
		config->cpu.family = (uint16_t)f;
		config->cpu.model = (uint8_t)m;
		config->cpu.stepping = (uint8_t)(s & 0xff);
		ptt_cpu_errata(&config->errata, &config->cpu);
	}
	if (!ptsb_get_u64(sb, "mtc_freq", &v) && v <= 15)
		config->mtc_freq = (uint8_t)v;
	if (!ptsb_get_u64(sb, "nom_freq", &v) && v <= UINT8_MAX)
		config->nom_freq = (uint8_t)v;
	/*
	 * Without MSR_PLATFORM_INFO the nominal frequency from CPUID 0x16 or
	 * cpufreq is the same ratio times the 100 MHz bus clock; CYC timing
	 * needs it.
	 */
	else if (!ptsb_get_u64(sb, "nominal_mhz", &v) && v >= 100 &&
		 (v + 50) / 100 <= UINT8_MAX)
		config->nom_freq = (uint8_t)((v + 50) / 100);
	if (!ptsb_get_u64(sb, "cpuid15.eax", &v) && v <= UINT32_MAX)
		config->cpuid_0x15_eax = (uint32_t)v;
	if (!ptsb_get_u64(sb, "cpuid15.ebx", &v) && v <= UINT32_MAX)
		config->cpuid_0x15_ebx = (uint32_t)v;
}

int ptt_find_sideband(const char *trace_path, struct ptsb *sb, int *cpu)
{
	char *a = strdup(trace_path);
	char path[4096];
	int err;

	if (!a)
		return -ENOMEM;
	*cpu = ptt_file_cpu(trace_path, ".pt");
	snprintf(path, sizeof(path), "%s/%s", dirname(a), PTSB_FILE_NAME);
	err = ptsb_read(path, sb);
	free(a);
	return err;
}

int ptt_load_loss(const char *trace_path, const char *given,
		  struct ptl_file *lf, int *have)
{
	char *auto_path = NULL, why[512];
	const char *path = given;
	int err, line;

	*have = 0;
	memset(lf, 0, sizeof(*lf));
	lf->cpu = -1;
	if (!path) {
		auto_path = ptl_path_for(trace_path);
		if (!auto_path) {
			ptt_err("out of memory");
			return PTT_EXIT_INTERNAL;
		}
		path = auto_path;
	}
	err = ptl_read(path, lf, &line);
	if (!err) {
		*have = 1;
		free(auto_path);
		return PTT_EXIT_OK;
	}
	if (err == -EINVAL)
		snprintf(why, sizeof(why),
			 "%s, line %d: not a pt-trace loss file, or a malformed line (see Documentation/tools.rst)",
			 path, line);
	else
		snprintf(why, sizeof(why), "cannot read the loss file %s: %s",
			 path, strerror(-err));
	if (given)
		ptt_err("%s", why);
	else if (err != -ENOENT)
		ptt_warn("%s; ignored", why);
	free(auto_path);
	return given ? PTT_EXIT_INPUT : PTT_EXIT_OK;
}

/* The value after the CPU number of a per-CPU key ("N VALUE..."). */
static const char *ptt_sb_cpu_value(const struct ptsb *sb, const char *key,
				    int cpu)
{
	size_t pos = 0;
	const char *v;

	while ((v = ptsb_next(sb, key, &pos))) {
		char *end;
		long c;

		errno = 0;
		c = strtol(v, &end, 10);
		if (!errno && end != v && *end == ' ' && c == cpu)
			return end + 1;
	}
	return NULL;
}

int ptt_tsc_hz(const struct ptsb *sb, const struct pt_config *config,
	       double *hz, const char **source)
{
	uint64_t v;

	if (sb && !ptsb_get_u64(sb, "tsc_hz", &v) && v) {
		*hz = (double)v;
		*source = "sideband tsc_hz (measured against CLOCK_MONOTONIC)";
		return 0;
	}
	if (sb && !ptsb_get_u64(sb, "tsc_hz.cpuid15", &v) && v) {
		*hz = (double)v;
		*source = "sideband tsc_hz.cpuid15 (CPUID 0x15 crystal x EBX/EAX)";
		return 0;
	}
	/*
	 * Without CPUID 0x15's crystal: CPUID 0x16's base frequency, which
	 * the invariant TSC runs at (as Linux takes it where 0x15 has no
	 * crystal); then the nominal (max non-turbo) ratio.
	 */
	if (sb && !ptsb_get_u64(sb, "cpuid16.eax", &v) && v) {
		*hz = (double)v * 1e6;
		*source = "sideband cpuid16.eax (CPUID 0x16 base frequency)";
		return 0;
	}
	if (config->nom_freq) {
		*hz = config->nom_freq * 100e6;
		*source = "nominal ratio x 100 MHz (nom_freq)";
		return 0;
	}
	if (sb && !ptsb_get_u64(sb, "nominal_mhz", &v) && v) {
		*hz = (double)v * 1e6;
		*source = "sideband nominal_mhz";
		return 0;
	}
	*hz = 1e9;
	*source = "unknown: 1 GHz assumed (give --tsc-hz)";
	return -ENOENT;
}

int ptt_tsc_offset(const struct ptsb *sb, int cpu, int64_t *offset)
{
	const char *v = sb && cpu >= 0 ?
			ptt_sb_cpu_value(sb, "tsc_offset", cpu) : NULL;
	long long ticks;
	unsigned long long err;

	*offset = 0;
	if (!v || sscanf(v, "%lld %llu", &ticks, &err) != 2)
		return -ENOENT;
	/* Within the measurement error the TSCs are synchronised. */
	if ((unsigned long long)llabs(ticks) > err)
		*offset = ticks;
	return 0;
}

int ptt_tsc_end(const struct ptsb *sb, int cpu, uint64_t *tsc)
{
	const char *v = sb && cpu >= 0 ?
			ptt_sb_cpu_value(sb, "tsc.end", cpu) : NULL;
	unsigned long long ns, t;

	if (!v || sscanf(v, "%llu %llu", &ns, &t) != 2)
		return -ENOENT;
	*tsc = t;
	return 0;
}

int ptt_config_set_params(struct pt_config *config, const char *const arg[4])
{
	static const char *const names[4] = { "--mtc-freq", "--nom-freq",
		"--cpuid-0x15.eax", "--cpuid-0x15.ebx" };
	static const uint32_t max[4] = { 15, 255, UINT32_MAX, UINT32_MAX };
	uint32_t v;
	int i;

	for (i = 0; i < 4; i++) {
		if (!arg[i])
			continue;
		if (ptt_parse_u32(arg[i], &v) || v > max[i]) {
			ptt_err("%s: '%s' is not a number from 0 to %u",
				names[i], arg[i], max[i]);
			return -EINVAL;
		}
		if (i == 0)
			config->mtc_freq = (uint8_t)v;
		else if (i == 1)
			config->nom_freq = (uint8_t)v;
		else if (i == 2)
			config->cpuid_0x15_eax = v;
		else
			config->cpuid_0x15_ebx = v;
	}
	return 0;
}
