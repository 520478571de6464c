/* SPDX-License-Identifier: GPL-2.0 */
/*
 * decode's line cache: the lines of recent instructions, from the IP on
 * (the part that depends only on the instruction and its address space),
 * by IP.  A trace repeats its hot code, and symbolizing, disassembling
 * and formatting the same instruction again is most of a listing's time.
 * An entry is used only for the same symbol table (address space),
 * address, bytes and mode, so the line is the one formatting would give:
 * the tables do not change once decoding starts (elf_symtab_finish()).
 *
 * Inline, with the hit path (dl_line()) that every line format takes:
 * decode's loop copies a kept line without a call (decode_print.c
 * formats and keeps the lines that miss).
 */
#ifndef PT_TRACE_DECODE_LCACHE_H
#define PT_TRACE_DECODE_LCACHE_H

#include <stdalign.h>
#include <stdint.h>
#include <string.h>

#include <intel-pt.h>

#include "elf_image.h"

#define DL_SLOTS	1024u
#define DL_TEXT		192	/* longer lines are formatted every time */

/*
 * What a kept line depends on besides the symbol table: the address,
 * the bytes (zero past the size) and, in the second word's top byte
 * (bytes 8..14 leave it free), the size and the mode.
 */
struct dl_key {
	uint64_t ip;
	uint64_t raw[2];
};

struct dl_slot {
	alignas(32) char text[DL_TEXT];	/* aligned: copied in 32-byte steps */
	const struct elf_symtab *st;	/* NULL: empty */
	struct dl_key k;
	uint8_t len;
};

struct decode_lcache {
	struct dl_slot slot[DL_SLOTS];
};

/* The bytes of an instruction of each size in its key's two words. */
static const uint64_t dl_lo_mask[16] = {
	0, 0xff, 0xffff, 0xffffff, 0xffffffff, 0xffffffffffULL,
	0xffffffffffffULL, 0xffffffffffffffULL, ~0ULL, ~0ULL, ~0ULL, ~0ULL,
	~0ULL, ~0ULL, ~0ULL, ~0ULL,
};

static const uint64_t dl_hi_mask[16] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xffff, 0xffffff, 0xffffffff,
	0xffffffffffULL, 0xffffffffffffULL, 0xffffffffffffffULL,
};

/*
 * @insn's key: its bytes as two words, zero past its size (two loads, not
 * a copy through memory: libipt wrote them with two 8-byte stores at
 * bytes 0 and 7, which the loads match and which forward to them).
 */
static inline void dl_key(struct dl_key *k, const struct pt_insn *insn)
{
	unsigned int n = insn->size < 16 ? insn->size : 15;
	uint64_t lo, hi;

	memcpy(&lo, insn->raw, 8);
	memcpy(&hi, insn->raw + 7, 8);	/* bytes 7..14 */
	k->ip = insn->ip;
	k->raw[0] = lo & dl_lo_mask[n];
	k->raw[1] = (hi >> 8 & dl_hi_mask[n]) |
		    (uint64_t)(n | (unsigned int)insn->mode << 4) << 56;
}

/*
 * The line kept for @insn in @st, from the IP on, copied to @p in 32-byte
 * steps, 64 at least (copies of fixed size are a few moves, where one of the line's
 * own length would start a string instruction; ob_reserve() leaves room
 * for the overshoot): returns the end of the copy.  NULL when it is not
 * kept: then *@d is the slot to keep it in (NULL: none; mode
 * ptem_unknown is never kept, its disassembly follows the mode before)
 * and *@k its key.
 */
static inline char *dl_line(struct decode_lcache *lc,
			    const struct elf_symtab *st,
			    const struct pt_insn *insn, char *p,
			    struct dl_slot **d, struct dl_key *k)
{
	struct dl_slot *s;
	unsigned int n;

	*d = NULL;
	if (!lc || insn->mode == ptem_unknown)
		return NULL;
	dl_key(k, insn);
	s = &lc->slot[(k->ip ^ (k->ip >> 10)) & (DL_SLOTS - 1)];
	*d = s;
	if (s->st != st || s->k.ip != k->ip || s->k.raw[0] != k->raw[0] ||
	    s->k.raw[1] != k->raw[1])
		return NULL;
	n = s->len;	/* read once: the copy may alias it */
	memcpy(p, s->text, 64);	/* every line is longer than 32 */
	if (n > 64) {
		memcpy(p + 64, s->text + 64, 32);
		if (n > 96) {
			memcpy(p + 96, s->text + 96, 32);
			if (n > 128)
				memcpy(p + 128, s->text + 128, 64);
		}
	}
	return p + n;
}

#endif /* PT_TRACE_DECODE_LCACHE_H */
