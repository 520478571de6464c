// SPDX-License-Identifier: GPL-2.0
/*
 * pt-trace dump FILE.bts: the Branch Trace Store records /dev/btsN gave
 * (struct pt_trace_bts_record, include/uapi/linux/pt_trace.h), one line
 * each:
 *
 *   OFFSET  FROM -> TO  FLAGS  [<sym+off> -> <sym+off>]
 *
 * OFFSET is the record's byte offset in the file, FROM and TO 16 hex
 * digits, FLAGS "pred" when the CPU says the branch was predicted, else
 * "-".  Symbols come from --elf images (libdwfl, elf_image.c) and a
 * kallsyms copy for kernel addresses; an address none of them knows
 * prints "?".  The driver's switch records (PT_BTS_SWITCH) are
 * "OFFSET  switch to pid P tid T".  A file whose size is not whole
 * records ends with a line saying how many bytes are left over.  --stats
 * prints the counts instead: records (every 24-byte record), user and
 * kernel sources and predicted (branches only), switches.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <intel-pt.h>
#include <linux/pt_trace.h>

#include "bts_dump.h"
#include "decode_aspace.h"
#include "elf_image.h"
#include "kernel_syms.h"
#include "tool.h"

int bts_dump_is_bts(const char *path)
{
	size_t n = strlen(path);

	return n > 4 && !strcmp(path + n - 4, ".bts");
}

static int bts_kernel(uint64_t a)
{
	return a >= 0xffff800000000000ULL;
}

static void bts_sym(struct outbuf *ob, const struct elf_symtab *st,
		    uint64_t a)
{
	const struct elf_sym *s = st ? elf_symtab_lookup(st, a) : NULL;

	if (!s) {
		ob_puts(ob, "?");
		return;
	}
	if (a == s->addr)
		ob_printf(ob, "<%.*s>", (int)s->namelen, s->name);
	else
		ob_printf(ob, "<%.*s+%#llx>", (int)s->namelen, s->name,
			  (unsigned long long)(a - s->addr));
}

static int bts_symtab(const struct bts_dump_opts *o, struct pt_image **img,
		      struct elf_symtab *st, struct kernel_syms *ks)
{
	size_t i;
	int err;

	*img = pt_image_alloc(NULL);
	if (!*img) {
		ptt_err("out of memory");
		return PTT_EXIT_INTERNAL;
	}
	if (o->kallsyms) {
		err = ksyms_load(ks, o->kallsyms);
		if (err) {
			ptt_err("cannot read kernel symbols from %s: %s (a copy of /proc/kallsyms read as root, e.g. the recording's kallsyms)",
				o->kallsyms, strerror(-err));
			return PTT_EXIT_INPUT;
		}
		st->ksyms = ks;
	}
	for (i = 0; i < o->nelf; i++) {
		err = das_add_elf(*img, st, o->elf[i]);
		if (err) {
			ptt_err("cannot load %s: %s (--elf FILE[:BASE], an ELF file)",
				o->elf[i], strerror(-err));
			return PTT_EXIT_INPUT;
		}
	}
	elf_symtab_finish(st);
	return PTT_EXIT_OK;
}

int bts_dump(const char *path, const struct bts_dump_opts *o,
	     struct outbuf *ob)
{
	const struct pt_trace_bts_record *r;
	unsigned long long user = 0, kernel = 0, pred = 0, sw = 0;
	int syms = o->nelf || o->kallsyms, ret = PTT_EXIT_OK, err;
	struct elf_symtab st;
	struct kernel_syms ks;
	struct pt_image *img = NULL;
	uint8_t *buf = NULL;
	size_t len = 0, n, i, dropped = 0, drop_next = 0;

	memset(&st, 0, sizeof(st));
	memset(&ks, 0, sizeof(ks));
	/* Mapped, and dropped behind as read: memory does not grow with it. */
	err = ptt_map_file(path, &buf, &len);
	if (err) {
		ptt_err("cannot read %s: %s", path, strerror(-err));
		return PTT_EXIT_INPUT;
	}
	if (syms) {
		ret = bts_symtab(o, &img, &st, &ks);
		if (ret)
			goto out;
	}
	n = len / PT_BTS_RECORD_SIZE;
	r = (const void *)buf;
	for (i = 0; i < n; i++) {
		if (i * PT_BTS_RECORD_SIZE >= drop_next)
			drop_next = ptt_file_drop_behind(buf, &dropped,
							 i * PT_BTS_RECORD_SIZE);
		if ((r[i].flags & PT_BTS_SWITCH) &&
		    r[i].from == PT_BTS_SWITCH_FROM) {
			sw++;
			if (!o->stats)
				ob_printf(ob, "%016zx  switch to pid %u tid %u\n",
					  i * PT_BTS_RECORD_SIZE,
					  PT_BTS_SWITCH_PID(r[i].to),
					  PT_BTS_SWITCH_TID(r[i].to));
			continue;
		}
		if (bts_kernel(r[i].from))
			kernel++;
		else
			user++;
		if (r[i].flags & PT_BTS_PREDICTED)
			pred++;
		if (o->stats)
			continue;
		ob_printf(ob, "%016zx  %016llx -> %016llx  %s",
			  i * PT_BTS_RECORD_SIZE,
			  (unsigned long long)r[i].from,
			  (unsigned long long)r[i].to,
			  r[i].flags & PT_BTS_PREDICTED ? "pred" : "-");
		if (syms) {
			ob_puts(ob, "  ");
			bts_sym(ob, &st, r[i].from);
			ob_puts(ob, " -> ");
			bts_sym(ob, &st, r[i].to);
		}
		ob_puts(ob, "\n");
	}
	if (o->stats)
		ob_printf(ob, "records %zu\nuser %llu\nkernel %llu\n"
			  "predicted %llu\nswitches %llu\n",
			  n, user, kernel, pred, sw);
	if (len % PT_BTS_RECORD_SIZE)
		ob_printf(ob, "[%016zx: %zu bytes left over, not a whole %d-byte record]\n",
			  n * PT_BTS_RECORD_SIZE, len % PT_BTS_RECORD_SIZE,
			  PT_BTS_RECORD_SIZE);
out:
	if (syms)
		elf_symtab_free(&st);
	if (o->kallsyms)
		ksyms_free(&ks);
	if (img)
		pt_image_free(img);
	ptt_unmap_file(buf, len);
	return ret;
}
