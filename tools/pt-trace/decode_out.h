/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What decode does with each instruction: print it, grow a call tree,
 * or build the timeline of function spans (Chrome trace JSON).
 */
#ifndef PT_TRACE_DECODE_OUT_H
#define PT_TRACE_DECODE_OUT_H

#include <stdint.h>
#include <stdio.h>

#include <intel-pt.h>

#include "elf_image.h"
#include "outbuf.h"

#define TL_MAX_DEPTH	256

struct tl_frame {
	const char *name;
	uint64_t addr;
	double start_us;
};

struct timeline {
	FILE *f;
	int first;
	int depth;
	int pending_call;	/* the last instruction was a call */
	uint64_t call_next;	/* the address right after that call */
	uint64_t tsc0;
	int have_tsc0;
	double ticks_per_us;
	double last_us;
	int tid;
	struct tl_frame stack[TL_MAX_DEPTH];
};

int tl_open(struct timeline *tl, const char *path, double ticks_per_us,
	    int tid);
void tl_insn(struct timeline *tl, const struct elf_symtab *st,
	     const struct pt_insn *insn, uint64_t tsc, int have_tsc);
int tl_close(struct timeline *tl);

/* "sym+0xoff" or "" into @buf. */
const char *decode_symbolize(const struct elf_symtab *st, uint64_t ip,
			     char *buf, size_t len);

#endif /* PT_TRACE_DECODE_OUT_H */
