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
#include "lossfile.h"
#include "outbuf.h"

#define TL_MAX_DEPTH	256

/*
 * The whole JSON file: one process, one track (thread) per traced CPU.
 * Time is nanoseconds since @origin, a TSC value of the first traced CPU
 * (the first timestamp of all the traces), written as microseconds with
 * three decimals: integers, so that a span never ends after its parent.
 */
struct timeline {
	FILE *f;
	int first;		/* no event written yet */
	double tsc_hz;
	const char *hz_source;
	uint64_t origin;
	int have_origin;	/* else the traces have no timestamps */
};

struct tl_frame {
	const char *name;
	uint64_t addr;
};

/* One CPU's track: its call stack, in B/E events in time order. */
struct tl_track {
	struct timeline *tl;
	int tid;
	int64_t tsc_offset;	/* this CPU's TSC minus the first CPU's */
	int depth;		/* top of @stack, -1 when empty */
	unsigned int hidden;	/* calls deeper than TL_MAX_DEPTH */
	int pending_call;	/* the last instruction was a call */
	uint64_t call_next;	/* the address right after that call */
	int64_t last_ns;	/* time only moves forward on a track */
	uint64_t insns;
	struct tl_frame stack[TL_MAX_DEPTH];
};

int tl_open(struct timeline *tl, const char *path, const char *process);
/* Time 0 is TSC @origin; without one, time is the instruction count. */
void tl_set_clock(struct timeline *tl, double tsc_hz, const char *hz_source,
		  uint64_t origin, int have_origin);
void tl_track_init(struct timeline *tl, struct tl_track *t, int tid,
		   const char *name, int64_t tsc_offset);
void tl_insn(struct tl_track *t, const struct elf_symtab *st,
	     const struct pt_insn *insn, uint64_t tsc, int have_tsc);
/* A gap: every span ends where it starts; then a "trace lost" span. */
void tl_gap(struct tl_track *t, const struct ptl_record *r);
/* Bytes dropped somewhere after this point: an instant event. */
void tl_drop(struct tl_track *t, const struct ptl_record *r);
/*
 * A decode error (at the decoder's time @tsc when it has one): the call
 * stack is unknown from here, spans end.
 */
void tl_error(struct tl_track *t, uint64_t offset, const char *what,
	      uint64_t tsc, int have_tsc);
void tl_track_end(struct tl_track *t);
int tl_close(struct timeline *tl);

/* One line "[NAME...]" per event, as ptxed --event:ip words it. */
void decode_print_event(struct outbuf *ob, const struct pt_event *ev);

/* "sym+0xoff" or "" into @buf. */
const char *decode_symbolize(const struct elf_symtab *st, uint64_t ip,
			     char *buf, size_t len);

#endif /* PT_TRACE_DECODE_OUT_H */
