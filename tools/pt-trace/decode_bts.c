// SPDX-License-Identifier: GPL-2.0
/*
 * pt-trace decode FILE.bts: the branches of a Branch Trace Store
 * recording (record --bts), one line each, like perf script's branch
 * lines for intel_bts:
 *
 *   [CPU]  FROM sym+off (dso) => TO sym+off (dso)
 *
 * Symbols come from the same address spaces as the PT decoder's
 * (decode_aspace.c: the recording's sideband.perf mmap records, its
 * sideband.txt map= lines, --elf files, libdwfl; kernel addresses from
 * the recording's kallsyms copy).  A BTS record carries neither a time
 * nor a process: user addresses are named in the recorded command's
 * address space (another process's branches on that CPU may then show
 * [unknown]), and there are no timestamps to print.  In stream mode the
 * records that found the ring full are a gap (cpuN.bts.loss), printed
 * where they were lost.
 */
#include <string.h>

#include <linux/pt_trace.h>

#include "decode_aspace.h"
#include "decode_bts.h"
#include "elf_image.h"
#include "lossfile.h"

static void dbts_addr(struct outbuf *ob, struct das_proc *p, uint64_t a)
{
	const struct elf_sym *s = p ? elf_symtab_lookup(&p->st, a) : NULL;

	ob_printf(ob, "%16llx ", (unsigned long long)a);
	if (!s) {
		ob_puts(ob, "[unknown] ([unknown])");
		return;
	}
	ob_printf(ob, "%.*s", (int)s->namelen, s->name);
	if (a != s->addr)
		ob_printf(ob, "+%#llx", (unsigned long long)(a - s->addr));
	ob_printf(ob, " (%s)", s->dso ? s->dso : "[unknown]");
}

/* The gaps whose file offset is @off, before the record there. */
static void dbts_gaps(const struct ptl_file *lf, size_t *at, uint64_t off,
		      int cpu, int quiet, struct outbuf *ob,
		      struct decode_bts_stats *st)
{
	static const char lost[] =
		"[%03d]  [lost %llu branches: the stream's ring was full]\n";

	for (; lf && *at < lf->n && lf->rec[*at].offset <= off; (*at)++) {
		const struct ptl_record *r = &lf->rec[*at];

		st->gaps++;
		if (r->bytes_known)
			st->lost += r->bytes / PT_BTS_RECORD_SIZE;
		else
			st->unknown++;
		if (quiet)
			continue;
		if (r->bytes_known)
			ob_printf(ob, lost, cpu, (unsigned long long)
				  (r->bytes / PT_BTS_RECORD_SIZE));
		else
			ob_printf(ob, "[%03d]  [lost an unknown number of branches]\n",
				  cpu);
	}
}

void decode_bts(struct decode_aspaces *as, const uint8_t *buf, size_t len,
		int cpu, const struct ptl_file *lf, int quiet,
		struct outbuf *ob, struct decode_bts_stats *st)
{
	struct das_proc *p = das_use(as, das_find(as, as->main_pid));
	size_t n = len / PT_BTS_RECORD_SIZE, i, at = 0;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < n; i++) {
		struct pt_trace_bts_record r;

		memcpy(&r, buf + i * PT_BTS_RECORD_SIZE, sizeof(r));
		dbts_gaps(lf, &at, i * PT_BTS_RECORD_SIZE, cpu, quiet, ob, st);
		st->records++;
		if (quiet)
			continue;
		ob_printf(ob, "[%03d]  ", cpu);
		dbts_addr(ob, p, r.from);
		ob_puts(ob, " => ");
		dbts_addr(ob, p, r.to);
		ob_puts(ob, "\n");
	}
	dbts_gaps(lf, &at, UINT64_MAX, cpu, quiet, ob, st);
	st->partial = len % PT_BTS_RECORD_SIZE;
}
