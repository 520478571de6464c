// SPDX-License-Identifier: GPL-2.0
/*
 * The PT errata of each Intel CPU model, from Intel's specification
 * updates as libipt's current sources list them (pt_cpu_errata(), checked
 * against libipt's git master of January 2026).  Debian bookworm's libipt
 * 2.0.5 knows no model launched after early 2021 but Alder Lake (0x97,
 * 0x9a) and Raptor Lake-S (0xbf): Raptor Lake's other models, Meteor Lake
 * onwards, Sapphire Rapids' successors, the newer Atoms, families 18 and
 * 19 decode with it alone without the BDM70, SKD022, APL11 or SKZ84
 * workarounds.  It also still lists SKL014 for models whose later updates
 * say it is fixed (0x8f, 0x97, 0x9a, 0xbf).  A model in this table takes the table's
 * errata; any other the library's.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "compiler.h"
#include "cpu_errata.h"

enum {
	E_BDM70 = 1 << 0,	/* PSB+ may hold packets of the previous run */
	E_BDM64 = 1 << 1,	/* TIP.PGD after a branch may be corrupt */
	E_SKD007 = 1 << 2,	/* OVF may follow a CYC-looking 0xf7 0x02 */
	E_SKD022 = 1 << 3,	/* VM entry may clear TraceEn without TIP.PGD */
	E_SKD010 = 1 << 4,	/* FUP may be dropped after OVF */
	E_SKL014 = 1 << 5,	/* TIP.PGD may lack its IP on a filter exit */
	E_APL12 = 1 << 6,	/* OVF may be followed by a bogus TIP.PGE */
	E_APL11 = 1 << 7,	/* OVF may be followed by a TIP.PGD */
	E_SKL168 = 1 << 8,	/* CYC may be dropped before a PSB */
	E_SKZ84 = 1 << 9,	/* TSC scaling/offsetting: VMCS and bogus byte */
};

/* The names of the bits above, in their order (ptt_errata_names()). */
static const char *const cpu_errata_names[] = {
	"bdm70", "bdm64", "skd007", "skd022", "skd010", "skl014", "apl12",
	"apl11", "skl168", "skz84",
};

/* Groups of models with the same errata. */
#define E_BDW	(E_BDM70 | E_BDM64)
#define E_SKL	(E_BDM70 | E_SKD007 | E_SKD022 | E_SKD010 | E_SKL014 | E_SKL168)
#define E_SKX	(E_BDM70 | E_SKL014 | E_SKD022 | E_SKZ84)
#define E_SPR	(E_BDM70 | E_SKD022 | E_SKZ84)
#define E_ICL	(E_BDM70 | E_SKL014 | E_SKD022)
#define E_ADL	(E_BDM70 | E_SKD022 | E_APL11)
#define E_APL	(E_APL12 | E_APL11)
#define E_GLM	(E_APL11)

static const struct cpu_errata_row {
	uint16_t family;
	uint8_t model;
	uint16_t errata;
} cpu_errata_rows[] = {
	/* Broadwell, Broadwell-X/-DE */
	{ 6, 0x3d, E_BDW }, { 6, 0x47, E_BDW }, { 6, 0x4f, E_BDW },
	{ 6, 0x56, E_BDW },
	/* Skylake, Kaby Lake, Coffee Lake, Comet Lake (client) */
	{ 6, 0x4e, E_SKL }, { 6, 0x5e, E_SKL }, { 6, 0x8e, E_SKL },
	{ 6, 0x9e, E_SKL }, { 6, 0xa5, E_SKL }, { 6, 0xa6, E_SKL },
	/* Skylake-X, Cascade/Cooper Lake, Ice Lake-X/-D */
	{ 6, 0x55, E_SKX }, { 6, 0x6a, E_SKX }, { 6, 0x6c, E_SKX },
	/* Sapphire, Emerald and Granite Rapids: SKL014 fixed */
	{ 6, 0x8f, E_SPR }, { 6, 0xcf, E_SPR }, { 6, 0xad, E_SPR },
	{ 6, 0xae, E_SPR },
	/* Diamond Rapids */
	{ 19, 0x01, E_SPR },
	/* Cannon Lake, Ice Lake, Tiger Lake, Rocket Lake (client) */
	{ 6, 0x66, E_ICL }, { 6, 0x7d, E_ICL }, { 6, 0x7e, E_ICL },
	{ 6, 0x8c, E_ICL }, { 6, 0x8d, E_ICL }, { 6, 0xa7, E_ICL },
	{ 6, 0xa8, E_ICL },
	/*
	 * Alder Lake, Raptor Lake, Meteor Lake, Arrow Lake, Lunar Lake,
	 * Panther Lake and their family 18 successors: SKL014 fixed
	 */
	{ 6, 0x97, E_ADL }, { 6, 0x9a, E_ADL }, { 6, 0xba, E_ADL },
	{ 6, 0xb7, E_ADL }, { 6, 0xbf, E_ADL }, { 6, 0xc5, E_ADL },
	{ 6, 0xc6, E_ADL }, { 6, 0xb5, E_ADL }, { 6, 0xaa, E_ADL },
	{ 6, 0xac, E_ADL }, { 6, 0xbd, E_ADL }, { 6, 0xcc, E_ADL },
	{ 6, 0xd5, E_ADL }, { 18, 0x01, E_ADL }, { 18, 0x03, E_ADL },
	/* Apollo Lake, Denverton */
	{ 6, 0x5c, E_APL }, { 6, 0x5f, E_APL },
	/*
	 * Gemini Lake, Snow Ridge, Elkhart Lake, Jasper Lake, Grand Ridge,
	 * Sierra Forest, Clearwater Forest
	 */
	{ 6, 0x7a, E_GLM }, { 6, 0x86, E_GLM }, { 6, 0x96, E_GLM },
	{ 6, 0x9c, E_GLM }, { 6, 0xb6, E_GLM }, { 6, 0xaf, E_GLM },
	{ 6, 0xdd, E_GLM },
};

/*
 * struct pt_errata from the bits above and back: the only two places that
 * name its fields (libipt's bitfields have no address to tabulate).
 */
static void cpu_errata_set(struct pt_errata *e, unsigned int m)
{
	memset(e, 0, sizeof(*e));
	e->bdm70 = !!(m & E_BDM70);
	e->bdm64 = !!(m & E_BDM64);
	e->skd007 = !!(m & E_SKD007);
	e->skd022 = !!(m & E_SKD022);
	e->skd010 = !!(m & E_SKD010);
	e->skl014 = !!(m & E_SKL014);
	e->apl12 = !!(m & E_APL12);
	e->apl11 = !!(m & E_APL11);
	e->skl168 = !!(m & E_SKL168);
	e->skz84 = !!(m & E_SKZ84);
}

static unsigned int cpu_errata_mask(const struct pt_errata *e)
{
	return (e->bdm70 ? E_BDM70 : 0) | (e->bdm64 ? E_BDM64 : 0) |
	       (e->skd007 ? E_SKD007 : 0) | (e->skd022 ? E_SKD022 : 0) |
	       (e->skd010 ? E_SKD010 : 0) | (e->skl014 ? E_SKL014 : 0) |
	       (e->apl12 ? E_APL12 : 0) | (e->apl11 ? E_APL11 : 0) |
	       (e->skl168 ? E_SKL168 : 0) | (e->skz84 ? E_SKZ84 : 0);
}

int ptt_cpu_errata(struct pt_errata *errata, const struct pt_cpu *cpu)
{
	size_t i;

	if (!errata || !cpu)
		return -pte_invalid;
	for (i = 0; i < ARRAY_SIZE(cpu_errata_rows); i++) {
		const struct cpu_errata_row *r = &cpu_errata_rows[i];

		if (cpu->vendor != pcv_intel || r->family != cpu->family ||
		    r->model != cpu->model)
			continue;
		cpu_errata_set(errata, r->errata);
		return 0;
	}
	return pt_cpu_errata(errata, cpu);
}

size_t ptt_errata_names(const struct pt_errata *errata, char *buf,
			size_t len)
{
	unsigned int mask = cpu_errata_mask(errata);
	size_t i, n = 0;

	if (len)
		buf[0] = 0;
	for (i = 0; i < ARRAY_SIZE(cpu_errata_names) && n < len; i++)
		if (mask & (1U << i))
			n += (size_t)snprintf(buf + n, len - n, "%s%s",
					      n ? " " : "",
					      cpu_errata_names[i]);
	return n;
}

int ptt_skd007_ovf(const struct pt_errata *errata, const uint8_t *pos,
		   const uint8_t *end, struct pt_packet *pkt)
{
	/*
	 * Two CYCs in a row that are not full are not what silicon sends
	 * (back-to-back CYCs come only when the counter wraps): a two-byte
	 * CYC whose second byte is the extended opcode 0x02, followed by
	 * 0xf3 (OVF's second byte), is the erratum's OVF.
	 */
	if (!errata->skd007 || pkt->type != ppt_cyc || pkt->size != 2 ||
	    end - pos < 3 || pos[1] != 0x02 || pos[2] != 0xf3)
		return 0;
	memset(pkt, 0, sizeof(*pkt));
	pkt->type = ppt_ovf;
	pkt->size = 2;
	return 3;
}
