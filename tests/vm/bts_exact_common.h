/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What bts_exact.c and bts_exact_fault.c share: both record a program
 * with 'pt-trace record --bts -C 0 -u' under the exact model (icl only,
 * not under PTI), so both need the same checks, the model_exact switch,
 * the recorder off CPU 0, and the same file and kallsyms readers.
 */
#ifndef PTT_BTS_EXACT_COMMON_H
#define PTT_BTS_EXACT_COMMON_H

#include <stdlib.h>

#include "bts_common.h"

#define BTS_EXACT_PARAM "/sys/module/pt_trace_model/parameters/model_exact"

/* The whole of @path, NUL-terminated, its length in *@len; NULL. */
static inline void *bts_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	size_t cap = 1 << 16, n = 0, r;
	char *buf;

	if (!f)
		return NULL;
	buf = malloc(cap + 1);
	while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap)
			buf = realloc(buf, (cap *= 2) + 1);
	}
	fclose(f);
	if (buf)
		buf[n] = 0;
	*len = n;
	return buf;
}

/* A kernel symbol's address from /proc/kallsyms, 0 when absent. */
static inline __u64 bts_kallsym(const char *name)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[256], sym[200];
	unsigned long long a;
	char t;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %199s", &a, &t, sym) == 3 &&
		    !strcmp(sym, name)) {
			fclose(f);
			return a;
		}
	if (f)
		fclose(f);
	return 0;
}

/*
 * Skip where test @name does not apply (not icl, no BTS, PTI, no
 * pt-trace or @prog); the pt-trace to run.
 */
static inline const char *bts_exact_check(const char *name, const char *prog)
{
	const char *prof = getenv("PTT_PROFILE") ? getenv("PTT_PROFILE") : "icl";
	const char *pt = getenv("PT_TRACE");

	if (strcmp(prof, "icl"))
		SKIP("%s runs on icl", name);
	bts_require();
	if (bts_pti())
		SKIP("user-mode BTS is refused under PTI");
	if (!pt || access(pt, X_OK))
		pt = "/ptt/bin/pt-trace";
	if (access(pt, X_OK) || access(prog, X_OK))
		SKIP("pt-trace or %s missing", prog);
	return pt;
}

/*
 * model_exact=1 (its old value in @old), and this process off CPU 0,
 * where only the program is stepped.
 */
static inline void bts_exact_on(char *old, size_t size)
{
	FILE *f;

	ptt_read_str(BTS_EXACT_PARAM, old, size);
	f = fopen(BTS_EXACT_PARAM, "w");
	REQUIRE(f && fputs("1", f) >= 0 && !fclose(f), "cannot set model_exact=1");
	ptt_pin_cpu(sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 1 : 0);
}

/* model_exact back to @old. */
static inline void bts_exact_off(const char *old)
{
	FILE *f = fopen(BTS_EXACT_PARAM, "w");

	if (f) {
		fputs(old, f);
		fclose(f);
	}
}

#endif /* PTT_BTS_EXACT_COMMON_H */
