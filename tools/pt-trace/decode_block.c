// SPDX-License-Identifier: GPL-2.0
/*
 * decode --block-decoder: the loop over libipt's block decoder and the
 * walk over each block's instructions, printed as ptxed --block-decoder
 * prints them (instruction lines, events between blocks, errors as
 * "[OFFSET, IP: error: WHAT]", a resync at the next PSB).
 *
 * libipt's block gives its first IP, its last (end_ip) and how many
 * instructions lie from one to the other: they run in sequence, but a
 * direct jump or call inside a block goes to its target.  So each
 * instruction's bytes are read (the ELF and kernel files through
 * das_read(), --raw files here), its length and direct target found with
 * capstone, as ptxed does with XED.  The last instruction of a block
 * that ended inside it (a section's end) comes with its bytes in the
 * block (truncated).  The same walk runs the search for a loop that
 * reads no trace (decode_block_loop.c), which stops the listing where
 * the instruction decoder's stops.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <capstone/capstone.h>

#include "decode_block.h"
#include "decode_block_loop.h"

/* --raw FILE[:FROM[-TO]]:BASE, open for reading */
struct dblk_raw {
	int fd;
	uint64_t from, to, base;
};

int dblk_init(struct dblk_ctx *b, const struct das_file *files, size_t nfile)
{
	char path[DAS_PATH_MAX];
	csh cs;
	size_t i;
	int err;

	b->raw = calloc(nfile ? nfile : 1, sizeof(*b->raw));
	if (!b->raw)
		return -ENOMEM;
	b->nraw = 0;
	for (i = 0; i < nfile; i++) {
		struct dblk_raw *r = &b->raw[b->nraw];

		if (!files[i].raw)
			continue;
		/* cmd_decode() loaded it into the image: it is well-formed */
		err = das_raw_range(files[i].arg, path, &r->from, &r->to,
				    &r->base);
		if (err)
			return err;
		r->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (r->fd < 0)
			return -errno;
		b->nraw++;
	}
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return -ENOMEM;
	/* the operands: a direct jump's or call's target */
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	b->cs = cs;
	b->cs_mode = ptem_64bit;
	b->ci = cs_malloc(cs);
	return b->ci ? 0 : -ENOMEM;
}

void dblk_free(struct dblk_ctx *b)
{
	csh cs = b->cs;
	size_t i;

	for (i = 0; i < b->nraw; i++)
		close(b->raw[i].fd);
	free(b->raw);
	b->raw = NULL;
	if (b->ci)
		cs_free(b->ci, 1);
	if (cs)
		cs_close(&cs);
	b->ci = NULL;
	b->cs = 0;
}

/* Up to @len bytes of code at @ip: their count, or 0 where none is. */
static size_t dblk_read(struct dblk_ctx *b, uint64_t ip, uint8_t *buf,
			size_t len)
{
	size_t i;
	int n;

	/* the last --raw first, as libipt's image lets a later one win */
	for (i = b->nraw; i-- > 0;) {
		const struct dblk_raw *r = &b->raw[i];
		uint64_t end = r->base + (r->to - r->from);
		ssize_t got;

		if (ip < r->base || ip >= end)
			continue;
		if (len > end - ip)
			len = (size_t)(end - ip);
		got = pread(r->fd, buf, len, (off_t)(r->from + ip - r->base));
		return got > 0 ? (size_t)got : 0;
	}
	n = das_read(b->as, b->p, ip, buf, len);
	return n > 0 ? (size_t)n : 0;
}

/*
 * PTWRITE's length (F3 [REX.W] 0F AE /4), which capstone 4 does not
 * decode, from its ModRM and SIB bytes (32- and 64-bit addressing), else
 * 0.  It is the one instruction libipt traces that capstone lacks.
 */
static size_t dblk_ptwrite_len(const uint8_t *p, size_t size,
			       enum pt_exec_mode mode)
{
	size_t i = 0, n;
	unsigned int mod, rm;

	if (mode == ptem_16bit || size < 4 || p[i++] != 0xf3)
		return 0;
	if (mode == ptem_64bit && (p[i] & 0xf0) == 0x40)
		i++;
	if (i + 3 > size || p[i] != 0x0f || p[i + 1] != 0xae ||
	    ((p[i + 2] >> 3) & 7) != 4)
		return 0;
	i += 2;
	mod = p[i] >> 6;
	rm = p[i] & 7;
	i++;
	if (mod == 3)
		return i;	/* ptwrite %eax: a register */
	n = mod == 1 ? 1 : mod == 2 ? 4 : 0;
	if (rm == 4) {
		if (i >= size)
			return 0;
		if (mod == 0 && (p[i] & 7) == 5)
			n = 4;
		i++;
	} else if (mod == 0 && rm == 5) {
		n = 4;
	}
	return i + n <= size ? i + n : 0;
}

/*
 * libipt's class for capstone's @ci as far as the loop search tells
 * classes apart (decode_block_loop.c): a near jump or call, direct or
 * not; a near return; ptic_far_jump for any other branch (each starts
 * the search again); else ptic_other.
 */
static enum pt_insn_class dblk_class(csh cs, const cs_insn *ci)
{
	if (ci->id == X86_INS_JMP)
		return ptic_jump;
	if (ci->id == X86_INS_CALL)
		return ptic_call;
	if (ci->id == X86_INS_RET)
		return ptic_return;
	if (cs_insn_group(cs, ci, CS_GRP_JUMP) ||
	    cs_insn_group(cs, ci, CS_GRP_CALL) ||
	    cs_insn_group(cs, ci, CS_GRP_RET) ||
	    cs_insn_group(cs, ci, CS_GRP_INT) ||
	    cs_insn_group(cs, ci, CS_GRP_IRET))
		return ptic_far_jump;
	return ptic_other;
}

/*
 * The instruction at @ip of @block into @insn (its bytes and their
 * length, its class: dblk_class()'s, or ptic_ptwrite), and the IP after
 * it into *next: a direct jump's or call's target, else the next byte.
 * 0, or a negative libipt error code.
 */
static int dblk_fetch(struct dblk_ctx *b, const struct pt_block *block,
		      uint64_t ip, struct pt_insn *insn, uint64_t *next)
{
	static const cs_mode modes[] = {
		[ptem_16bit] = CS_MODE_16, [ptem_32bit] = CS_MODE_32,
		[ptem_64bit] = CS_MODE_64,
	};
	cs_insn *ci = b->ci;
	const uint8_t *code;
	uint64_t addr = ip;
	size_t size;

	memset(insn, 0, sizeof(*insn));
	insn->ip = ip;
	insn->mode = block->mode;
	insn->isid = block->isid;
	insn->speculative = block->speculative;
	if (ip == block->end_ip && block->truncated) {
		size = block->size;
		if (!size || size > sizeof(insn->raw))
			return -pte_bad_insn;
		memcpy(insn->raw, block->raw, size);
	} else {
		size = dblk_read(b, ip, insn->raw, sizeof(insn->raw));
		if (!size)
			return -pte_nomap;
	}
	if (block->mode != b->cs_mode &&
	    (block->mode == ptem_16bit || block->mode == ptem_32bit ||
	     block->mode == ptem_64bit)) {
		cs_option(b->cs, CS_OPT_MODE, modes[block->mode]);
		b->cs_mode = block->mode;
	}
	code = insn->raw;
	if (!cs_disasm_iter(b->cs, &code, &size, &addr, ci)) {
		insn->size = (uint8_t)dblk_ptwrite_len(insn->raw, size,
						       block->mode);
		insn->iclass = ptic_ptwrite;
		*next = ip + insn->size;
		return insn->size ? 0 : -pte_bad_insn;
	}
	insn->size = (uint8_t)ci->size;
	insn->iclass = dblk_class(b->cs, ci);
	*next = ip + ci->size;
	/*
	 * A branch with a displacement: only a direct jump or call goes on
	 * inside a block (a conditional one ends it; the next block starts
	 * where it went).
	 */
	if ((ci->id == X86_INS_JMP || ci->id == X86_INS_CALL) &&
	    ci->detail->x86.op_count == 1 &&
	    ci->detail->x86.operands[0].type == X86_OP_IMM)
		*next = (uint64_t)ci->detail->x86.operands[0].imm;
	return 0;
}

/* "[OFFSET, IP: WHAT: ERROR]", as ptxed prints a decoder's error */
static void dblk_error(struct dblk_ctx *b, struct pt_block_decoder *dec,
		       const char *what, uint64_t ip, int err)
{
	uint64_t offset = 0;

	b->s.errors++;
	if (err && pt_errcode(err) == pte_nomap)
		b->s.nomap++;
	pt_blk_get_offset(dec, &offset);
	/* err 0: decode's own finding, @what says it all */
	ob_printf(b->ob, "[%llx, %llx: %s%s%s]\n", (unsigned long long)offset,
		  (unsigned long long)ip, what, err ? ": " : "",
		  err ? pt_errstr(pt_errcode(err)) : "");
}

/*
 * The IP an error after @block names, as ptxed's: where its first
 * instruction would be when it has none, else its last, or the one
 * after that where no code was there or it could not be decoded.
 */
static uint64_t dblk_error_ip(struct dblk_ctx *b, const struct pt_block *block,
			      int err)
{
	struct pt_insn insn;
	uint64_t next;

	if (!block->ninsn)
		return block->ip;
	if ((err == -pte_nomap || err == -pte_bad_insn) &&
	    !dblk_fetch(b, block, block->end_ip, &insn, &next))
		return next;
	return block->end_ip;
}

/*
 * The class of @block's last instruction for the loop search: libipt's,
 * or where it gives none (a block from its block cache that ends at an
 * indirect branch or a far transfer, or one cut short) dblk_fetch()'s,
 * where a ptic_other that read trace is a branch capstone does not
 * group; ptic_error where the instruction cannot be read.
 */
static enum pt_insn_class dblk_last_class(struct dblk_ctx *b,
					  const struct pt_block *block,
					  const struct dblk_at *at)
{
	struct pt_insn insn;
	uint64_t next;

	if (block->iclass != ptic_error)
		return block->iclass;
	if (dblk_fetch(b, block, block->end_ip, &insn, &next) < 0)
		return ptic_error;
	if (insn.iclass == ptic_other && at->post != at->pre)
		return ptic_far_jump;
	return insn.iclass;
}

/*
 * A block: counted, its instructions printed one by one, and the loop
 * search run over them where @at is given (the block decoder's step
 * succeeded); with -q they are decoded only where the search must see
 * them.  1 when an instruction closed a loop: the listing and the count
 * stop there, after it, as the instruction decoder's do.
 */
static int dblk_block(struct dblk_ctx *b, struct pt_block_decoder *dec,
		      const struct pt_block *block, const struct dblk_at *at)
{
	const struct elf_symtab *st = b->p ? &b->p->st : NULL;
	uint16_t n = block->ninsn;
	uint64_t ip = block->ip, next;
	struct pt_insn insn;
	int err, search = 0;

	b->s.insns += block->ninsn;
	b->s.blocks++;
	if (at && n)
		search = dblk_loop_block(&b->loop, block, at);
	if (b->o.quiet && !search)
		return 0;
	if (!b->o.quiet && b->o.show_blocks && b->o.numbered)
		ob_printf(b->ob, "[block %llx]\n",
			  (unsigned long long)b->s.blocks);
	else if (!b->o.quiet && b->o.show_blocks)
		ob_puts(b->ob, "[block]\n");
	if (!n)
		return 0;
	for (;;) {
		err = dblk_fetch(b, block, ip, &insn, &next);
		if (err < 0) {
			dloop_reset(&b->loop);	/* its instructions unknown */
			if (b->o.quiet)
				return 0;
			/* ptxed's line: the IP, then what went wrong */
			ob_printf(b->ob, "%s%016llx [fetch error: %s]\n",
				  block->speculative ? "? " : "",
				  (unsigned long long)ip,
				  pt_errstr(pt_errcode(err)));
			b->s.errors++;
			b->s.nomap += pt_errcode(err) == pte_nomap;
			return 0;
		}
		if (!b->o.quiet)
			decode_print_insn(b->ob, b->fmt, st, &insn, 0, NULL);
		if (search && dblk_looping(&b->loop, at, &insn, n == 1)) {
			b->s.insns -= n - 1;
			return 1;
		}
		if (!--n)
			break;
		ip = next;
	}
	/* the walk should end where libipt says the block does */
	if (ip != block->end_ip) {
		dloop_reset(&b->loop);
		if (!b->o.quiet)
			dblk_error(b, dec, "reconstruct error", ip,
				   -pte_nosync);
	}
	return 0;
}

/* The events before the next block; the status after them. */
static int dblk_events(struct dblk_ctx *b, struct pt_block_decoder *dec,
		       int status)
{
	while (status & pts_event_pending) {
		struct pt_event ev;

		status = pt_blk_event(dec, &ev, sizeof(ev));
		if (status < 0)
			return status;
		/* counted as the instruction decoder's are: -q's line */
		b->s.events++;
		if (b->follow)
			b->follow(b, dec, &ev);
		if (b->o.events && !b->o.quiet && !ev.status_update)
			decode_print_event(b->ob, &ev, b->o.event_time);
	}
	return status;
}

/*
 * Instructions decoded with no trace read: past this many the walk is in
 * a loop of direct branches (the wrong code in the image, or a jump to
 * itself), which libipt would follow for ever.  Reported as the
 * instruction decoder's walk reports it (decode_spinning()): a backstop
 * for what the loop search cannot see (a ptwrite in the loop starts it
 * again at each pass).
 */
#define DBLK_SPIN_INSNS	(256u << 10)

/* 1 when the last blocks read no trace in DBLK_SPIN_INSNS instructions */
static int dblk_spinning(struct pt_block_decoder *dec, uint64_t ninsn,
			 uint64_t *at, uint64_t *since)
{
	uint64_t off;

	if (pt_blk_get_offset(dec, &off) < 0 || off != *at) {
		*at = off;
		*since = 0;
		return 0;
	}
	*since += ninsn;
	return *since >= DBLK_SPIN_INSNS;
}

/* From a sync to an error or the end: the status that ended it. */
static int dblk_walk(struct dblk_ctx *b, struct pt_block_decoder *dec,
		     int status, struct pt_block *block)
{
	uint64_t at = UINT64_MAX, since = 0;
	struct dblk_at bat;

	dloop_reset(&b->loop);
	for (;;) {
		/* as decode_walk(): trace read */
		if (status & pts_event_pending)
			dloop_reset(&b->loop);
		status = dblk_events(b, dec, status);
		if (status < 0)
			return status;
		if (status & pts_eos) {
			if (!(status & pts_ip_suppressed) && !b->o.quiet)
				ob_puts(b->ob, "[end of trace]\n");
			return -pte_eos;
		}
		/*
		 * Before each block, as the instruction decoder's walk does
		 * before each instruction: a block is decoded in one image,
		 * so a switch takes effect at a block's start.
		 */
		if (b->follow && b->follow(b, dec, NULL))
			dloop_reset(&b->loop);	/* another image */
		if (pt_blk_get_offset(dec, &bat.pre) < 0)
			bat.pre = DLOOP_NO_OFF;
		status = pt_blk_next(dec, block, sizeof(*block));
		if (status >= 0) {
			if (pt_blk_get_offset(dec, &bat.post) < 0)
				bat.post = DLOOP_NO_OFF;
			bat.pending = !!(status & pts_event_pending);
			bat.cls = block->ninsn ?
				  dblk_last_class(b, block, &bat) : ptic_error;
			if (dblk_block(b, dec, block, &bat)) {
				/* the IP marked: the one that closed it */
				dblk_error(b, dec, DECODE_LOOP_MSG,
					   b->loop.mark, 0);
				return 0;	/* said: resync at the next PSB */
			}
		} else if (block->ninsn) {
			/* a failed call may still give the instructions before */
			dblk_block(b, dec, block, NULL);
		}
		if (status < 0)
			return status;
		if (dblk_spinning(dec, block->ninsn, &at, &since)) {
			dblk_error(b, dec, DECODE_SPIN_MSG, block->end_ip, 0);
			return 0;	/* said: resync at the next PSB */
		}
	}
}

int dblk_decode(struct dblk_ctx *b, const struct pt_config *config,
		struct pt_image *image)
{
	struct pt_block_decoder *dec = pt_blk_alloc_decoder(config);
	uint64_t fails = 0, max_fails = (uint64_t)(config->end - config->begin) / 16 + 1;
	int status;

	if (!dec || pt_blk_set_image(dec, image) < 0) {
		pt_blk_free_decoder(dec);
		return -pte_nomem;
	}
	for (;;) {
		struct pt_block block;

		/* the IP and count an error names when there is no block */
		block.ip = 0;
		block.ninsn = 0;
		status = pt_blk_sync_forward(dec);
		if (status < 0) {
			if (status == -pte_eos)
				break;
			dblk_error(b, dec, "sync error", 0, status);
			/*
			 * Go on, as the instruction decoder's walk does
			 * (decode_walk()), not ptxed's rule (stop when the
			 * offset did not move): each search passes a PSB.
			 */
			if (++fails > max_fails)
				break;
			continue;
		}
		b->s.syncs++;
		status = dblk_walk(b, dec, status, &block);
		if (status == -pte_eos)
			break;
		if (!status)
			continue;	/* dblk_walk() said why */
		dblk_error(b, dec, "error", dblk_error_ip(b, &block, status),
			   status);
	}
	pt_blk_free_decoder(dec);
	return 0;
}
