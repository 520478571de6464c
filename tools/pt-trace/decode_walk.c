// SPDX-License-Identifier: GPL-2.0
/*
 * The instruction decoder's loop over a stretch of trace (decode_walk()):
 * syncs and resyncs, events, the plain listing's hot loop
 * (decode_plain_run()), VMX entries and exits without PIP, the checks for
 * a loop that reads no trace, and the tail of a decode --jobs segment.
 */
#include <stdlib.h>
#include <string.h>

#include <intel-pt.h>

#include "decode_follow.h"
#include "decode_image.h"
#include "decode_insn.h"
#include "decode_out.h"
#include "decode_tcal.h"
#include "decode_vmx.h"
#include "decode_walk.h"
#include "tool.h"

/*
 * Decoding streams: the trace is mapped, and what lies behind the
 * decoder is dropped from memory as it goes (ptt_file_drop_behind()),
 * so memory does not grow with the trace.  Behind the decoder's offset,
 * not its last sync point: a decoder in sync all along never moves that,
 * and libipt reads only forward (a resync searches forward too).
 */
static void decode_drop_behind(struct decode_trace *t,
			       struct pt_insn_decoder *dec)
{
	uint64_t off;

	if (pt_insn_get_offset(dec, &off) < 0)
		return;
	ptt_file_drop_behind(t->buf, &t->dropped_to, (size_t)(off + t->base));
}

/*
 * A VM entry whose events are taken and brought no PIP: the next
 * instruction is the guest's (dvmx_check_entry() says so on stderr).
 */
static int decode_vmx_entry(struct decode_ctx *c, struct decode_trace *t,
			    struct pt_insn_decoder *dec)
{
	uint64_t off = 0;

	pt_insn_get_offset(dec, &off);
	if (dvmx_check_entry(&c->vmx, off + t->base) &&
	    pt_insn_set_image(dec, dvmx_image(&c->vmx,
					      decode_image(c, t->st.cur))) < 0)
		return -1;
	return 0;
}

/*
 * pt_insn_next() found no code at @insn->ip and decoded nothing (libipt
 * leaves its state as it was then): in a VMX context, it may be a VM
 * entry or exit that came without its PIP (dvmx_other_side()).  Decode
 * the instruction again in the other side's code; when that fails too
 * the context goes back and the first error stands.
 */
static int decode_vmx_nomap(struct decode_ctx *c, struct decode_trace *t,
			    struct pt_insn_decoder *dec, struct pt_insn *insn,
			    int status, int *tried)
{
	uint64_t ip = insn->ip, off = 0;
	struct pt_insn again;
	int st;

	*tried = 0;
	if (status != -pte_nomap || insn->iclass != ptic_error ||
	    !dvmx_other_side(&c->vmx))
		return status;
	pt_insn_get_offset(dec, &off);
	if (pt_insn_set_image(dec, dvmx_image(&c->vmx,
					      decode_image(c, t->st.cur))) < 0)
		return -pte_internal;
	memset(&again, 0, sizeof(again));
	st = pt_insn_next(dec, &again, sizeof(again));
	if (st == -pte_nomap && again.iclass == ptic_error) {
		if (dvmx_other_done(&c->vmx, 0, ip, off + t->base) &&
		    pt_insn_set_image(dec, dvmx_image(&c->vmx,
						      decode_image(c, t->st.cur))) < 0)
			return -pte_internal;
		return status;
	}
	dvmx_other_done(&c->vmx, 1, ip, off + t->base);
	*insn = again;
	*tried = 1;
	return st;
}

/*
 * decode --jobs: an error @err past the segment's last packet, at
 * @insn's IP.  One decoder reading on would have read the next PSB+ by
 * then (libipt reads ahead to the next packet that decides a branch), so
 * it names the offset after it, and its resync looks for a PSB from
 * there: the next segment's is skipped.  The next segment does both
 * (decode_walk()).  Where one decoder would go on instead, the rest is
 * decoded in one piece: having run out of packets before the next
 * segment's IP, it takes the next segment's packets for this code; at
 * code missing in a VMX context it tries the other side
 * (decode_vmx_nomap()), whose warning names its offset after the PSB+
 * and whose code goes on in those packets too.
 */
static void decode_tail_error(struct decode_ctx *c, struct decode_trace *t,
			      const struct pt_insn *insn, int err)
{
	if (err >= 0)
		return;
	if (err == -pte_eos) {
		t->seg_rest = 1;
		return;
	}
	if (err == -pte_nomap && insn->iclass == ptic_error &&
	    dvmx_other_side(&c->vmx)) {
		/* back: this decoder tries nothing */
		dvmx_other_done(&c->vmx, 0, insn->ip, 0);
		t->seg_rest = 1;
		return;
	}
	t->st.tail_err = err;
	t->st.tail_ip = insn->ip;
}

/*
 * Whether libipt walks a loop that reads no trace (decode_loop.h), found
 * in a few times its length rather than decode_spinning()'s 192 Ki
 * instructions (a 6.1 kernel's retpoline trap, pause; lfence; jmp, took
 * 327 Ki lines and 20-30 s of a VM each time).  The packet offset is
 * asked for only where it counts: the hot loop's instructions are most
 * often ptic_other.
 */
static inline int decode_looping(struct decode_trace *t,
				 struct pt_insn_decoder *dec,
				 const struct pt_insn *insn, int status)
{
	int pending = status & pts_event_pending;
	uint64_t off = DLOOP_NO_OFF;

	if ((insn->iclass == ptic_call || insn->iclass == ptic_jump) &&
	    !pending && pt_insn_get_offset(dec, &off) < 0)
		off = DLOOP_NO_OFF;
	return dloop_next(&t->loop, insn->ip,
			  insn->iclass != ptic_other || pending, off);
}

/*
 * The end of a segment that is not the stretch's last (decode --jobs):
 * its packets are used up, and the code goes on without packets (a
 * decoder reading on would be in the next PSB+ by now) up to the IP the
 * next segment's PSB+ gives, where the next segment's listing starts.
 */
static void decode_seg_tail(struct decode_ctx *c, struct decode_trace *t,
			    struct pt_insn_decoder *dec, int status)
{
	unsigned int n;

	if (status & pts_ip_suppressed || !t->seg_next.has_ip)
		return;
	for (n = 0; n < (1u << 20); n++) {
		struct pt_insn insn;

		memset(&insn, 0, sizeof(insn));
		status = pt_insn_next(dec, &insn, sizeof(insn));
		t->seg_eos = 1;
		/*
		 * A walk on no trace, or a loop (decode_looping()): the rest
		 * of the stretch is decoded in one piece from this segment's
		 * PSB, and this segment's lines are dropped: walk no further.
		 */
		if (n == 0xffff) {
			t->seg_rest = 1;
			return;
		}
		if (insn.ip == t->seg_next.ip)
			return;
		if (status >= 0 && insn.iclass != ptic_error &&
		    decode_looping(t, dec, &insn, status)) {
			t->seg_rest = 1;
			return;
		}
		if (insn.iclass == ptic_error) {
			decode_tail_error(c, t, &insn, status);
			return;
		}
		/*
		 * decode_walk() follows the switch records before each
		 * instruction; the time (decode_time()) is the next PSB+'s
		 * here, and reading no packet, this can be done after
		 * pt_insn_next(): the instruction at the next segment's IP
		 * is the next segment's, after its PSB+ events.
		 */
		if (t->st.sw_until != UINT64_MAX &&
		    decode_follow(c, t, dec))
			decode_loop_reset(t);	/* as decode_walk() */
		decode_insn(c, t, dec, &insn);
		if (status < 0) {
			decode_tail_error(c, t, &insn, status);
			return;
		}
	}
}

/*
 * Whether libipt has been walking code without reading trace: called every
 * 64 Ki instructions, it says yes after 4 calls in a row that found the
 * trace offset unmoved (at least 192 Ki instructions).  libipt follows direct jumps
 * and calls without trace, so a loop of them in the image (a "jmp .", or
 * the wrong code at a traced address) would be decoded for ever, and the
 * listing would fill the disk.  No real code runs 192 Ki instructions
 * without 47 conditional branches, returns or indirect ones, which read
 * trace (a TNT packet holds at most 47 of them).
 */
static int decode_spinning(struct decode_trace *t, struct pt_insn_decoder *dec)
{
	uint64_t off;

	if (pt_insn_get_offset(dec, &off) < 0 || off != t->spin_off) {
		t->spin_off = off;
		t->spin_n = 0;
		return 0;
	}
	return ++t->spin_n >= 4;
}

/*
 * Whether decode_plain_run() can take the next instructions: a listing
 * without time, task columns, filters, call tree, timeline or --summary
 * (c->plain), the VMX context shown, nothing hidden before, no switch
 * records to follow.
 */
static inline int decode_plain_ok(const struct decode_ctx *c,
				  const struct decode_trace *t)
{
	return c->plain && c->vmx.sel_cur && !t->st.hidden &&
	       t->st.sw_until == UINT64_MAX;
}

/*
 * decode_walk()'s step from pt_insn_next() on, for the plain listing and
 * for as long as nothing else is to be done before the next instruction:
 * instructions until an event is pending, the end of the trace, an
 * error, a VM entry, or every 64 Ki instructions, where decode_walk()
 * looks at the decoder.  The same lines as decode_insn() would print,
 * with the checks made once: the hot loop of a listing.  Returns the
 * last pt_insn_next()'s status, @insn its instruction.
 */
static int decode_plain_run(struct decode_ctx *c, struct decode_trace *t,
			    struct pt_insn_decoder *dec, struct pt_insn *insn)
{
	const struct elf_symtab *st = dvmx_symtab(&c->vmx, &t->st.cur->st);
	struct decode_fmt *f = &c->o.fmt;
	uint64_t n = t->stats.insns;
	int status;

	for (;;) {
		status = pt_insn_next(dec, insn, sizeof(*insn));
		if (insn->iclass != ptic_error) {
			n++;
			if (likely(!f->ip_only))
				decode_print_kept(&c->ob, f, st, insn);
			else
				decode_print_insn(&c->ob, f, st, insn, 0, NULL);
			dvmx_after_insn(&c->vmx, insn);
		}
		/* every instruction, or a run's start is missed */
		if (status >= 0 && insn->iclass != ptic_error &&
		    decode_looping(t, dec, insn, status)) {
			t->loop_hit = 1;
			break;
		}
		if (status < 0 || status & (pts_event_pending | pts_eos) ||
		    c->vmx.entry_pending || !(n & 0xffff))
			break;
	}
	t->stats.shown += n - t->stats.insns;
	if (n != t->stats.insns)
		t->st.cur_fresh = 0;
	t->stats.insns = n;
	return status;
}

/*
 * ptxed's loop over libipt's instruction decoder, so that both give the
 * same instructions and errors for one trace:
 * - at pts_eos the trace is over: "[end of trace]" (unless the IP is
 *   suppressed) and no more instructions, even where libipt could walk
 *   on without trace (it would decode code that never ran, and report
 *   a false "no memory mapped" where that runs out of the image);
 * - an instruction libipt decoded is printed even when the step after it
 *   failed; one it could not decode (class ptic_error) is not;
 * - an error names the IP libipt gave with it and the decoding resumes
 *   at the next PSB, after a sync error too.  ptxed gives up when the
 *   offset did not move since the last sync error, but libipt reports
 *   the PSB's offset when the header after it fails, and its next search
 *   starts after that PSB: so go on.  Each search passes at least one
 *   16-byte PSB, which bounds the failures by the stretch's length;
 * - unlike ptxed, a loop that reads no trace is an error
 *   (decode_looping(); decode_spinning() after 192-256 Ki instructions
 *   as a backstop), and decoding resumes at the next PSB.
 */
static void decode_walk(struct decode_ctx *c, struct decode_trace *t,
			struct pt_insn_decoder *dec)
{
	uint64_t fails = 0, max_fails = t->len / 16 + 1;
	int cont = t->seg_cont;

	t->st.in_sync = 0;
	t->first_set = 0;
	t->first_sync = 0;
	for (;;) {
		struct pt_insn insn;
		int status, again, first = cont;

		memset(&insn, 0, sizeof(insn));
		status = pt_insn_sync_forward(dec);
		cont = 0;
		t->first_due = 0;
		if (t->st.tail_err) {
			/* the segment before's (decode_tail_error()) */
			decode_error(c, t, dec, "error", t->st.tail_ip,
				     t->st.tail_err);
			t->st.tail_err = 0;
			if (status >= 0)
				continue;
		}
		if (status < 0) {
			if (status == -pte_eos)
				return;
			decode_error(c, t, dec, "sync error", 0, status);
			if (++fails > max_fails)
				return;
			continue;
		}
		/*
		 * decode --jobs: one decoder that reads on into this piece
		 * does not synchronise at its PSB (nor forget the time of the
		 * instruction before: decode_seg_accept())
		 */
		if (!first) {
			uint64_t soff;

			t->stats.syncs++;
			if (c->tcal && pt_insn_get_sync_offset(dec, &soff) >= 0)
				t->tcal_sync = soff + t->base;
		}
		if (first)
			t->first_sync = 1;
		t->first_due = first;
		dvmx_sync(&c->vmx);
		pt_insn_set_image(dec, decode_image(c, t->st.cur));
		decode_loop_reset(t);
		for (;;) {
			if (status & pts_event_pending) {
				status = decode_events(c, t, dec, status);
				decode_loop_reset(t);
			}
			if (status < 0)
				break;
			if (status & pts_eos && t->in_seg && !t->seg_last) {
				decode_seg_tail(c, t, dec, status);
				t->st.in_sync = !t->st.tail_err;
				return;
			}
			if (status & pts_eos) {
				if (!(status & pts_ip_suppressed) &&
				    !c->o.quiet && !c->o.fmt.ip_only && !c->o.calls)
					ob_puts(&c->ob, "[end of trace]\n");
				status = -pte_eos;
				break;
			}
			/*
			 * Only a run entered starts the loop check again: a
			 * recording with switch records to come has this at
			 * every instruction, and a loop that reads no trace
			 * does not move the time.
			 */
			if (t->st.sw_until != UINT64_MAX &&
			    decode_follow(c, t, dec))
				decode_loop_reset(t);
			if (c->vmx.entry_pending) {
				decode_loop_reset(t);
				if (decode_vmx_entry(c, t, dec) < 0) {
					status = -pte_internal;
					break;
				}
			}
			if (decode_plain_ok(c, t)) {
				status = decode_plain_run(c, t, dec, &insn);
				/* its last line is printed, a failed one not */
				status = decode_vmx_nomap(c, t, dec, &insn, status,
							  &again);
				if (again && insn.iclass != ptic_error) {
					decode_insn(c, t, dec, &insn);
					dvmx_after_insn(&c->vmx, &insn);
					decode_loop_reset(t);
				}
			} else {
				status = pt_insn_next(dec, &insn, sizeof(insn));
				t->seg_eos = status >= 0 && status & pts_eos;
				status = decode_vmx_nomap(c, t, dec, &insn, status,
							  &again);
				if (insn.iclass != ptic_error) {
					decode_insn(c, t, dec, &insn);
					dvmx_after_insn(&c->vmx, &insn);
				}
				if (again)
					decode_loop_reset(t);
				else if (status >= 0 && insn.iclass != ptic_error &&
					 decode_looping(t, dec, &insn, status))
					t->loop_hit = 1;
			}
			if (t->loop_hit) {
				t->loop_hit = 0;
				decode_error(c, t, dec, DECODE_LOOP_MSG, insn.ip, 0);
				/* a resync: one decoder's, from here on */
				if (t->in_seg)
					t->seg_rest = 1;
				break;
			}
			if (!(t->stats.insns & 0xffff)) {
				if (!t->in_seg)
					decode_drop_behind(t, dec);
				/*
				 * decode --jobs: where and whether this
				 * fires depends on the count of all
				 * instructions before (decode_segment())
				 */
				if (status >= 0 && t->spin_n)
					t->seg_rest = 1;
				if (status >= 0 && decode_spinning(t, dec)) {
					decode_error(c, t, dec, DECODE_SPIN_MSG,
						     insn.ip, 0);
					t->spin_n = 0;
					break;
				}
				if (t->spin_n)
					t->seg_rest = 1;
			}
			if (status < 0)
				break;
		}
		if (status == -pte_eos) {
			/*
			 * A segment's decoder out of packets amid code, not
			 * at pts_eos (decode_seg_tail()): one decoder would
			 * read the next segment's for it.
			 */
			if (t->in_seg && !t->seg_last)
				t->seg_rest = 1;
			return;
		}
		if (status >= 0)
			continue;	/* decode_spinning(): reported */
		decode_error(c, t, dec, "error", insn.ip, status);
	}
}

/* Whether an output or filter uses libipt's time (decode_time()). */
int decode_need_time(const struct decode_ctx *c)
{
	return c->o.fmt.show_time || c->tl.f || c->o.fmt.perf ||
	       c->o.filter.have_time || c->vmx.summary;
}

/*
 * decode --jobs (decode_ctx.tcal): a piece one decoder reads on into
 * starts with packets that give its decoder that decoder's CYC
 * calibration (decode_state.tcal, dtcal_prefix()), in a copy of the
 * piece's bytes after them (*@copy).  Returns their length, 0 where none
 * are needed or none give it, -1 without memory.
 */
static long decode_tcal_prefix(const struct decode_ctx *c,
			       const struct decode_trace *t, uint64_t start,
			       uint64_t end, uint8_t **copy)
{
	uint8_t pre[DTCAL_PREFIX_MAX];
	long n;

	*copy = NULL;
	n = dtcal_prefix(&t->st.tcal, &c->config, t->buf + start, end - start,
			 pre, sizeof(pre));
	if (n < 0)	/* decode_seg_prepare() made sure of the likely ones */
		ptt_warn("decode --jobs: the CYC times after offset %#llx may differ from one thread's in one MTC period (libipt's calibration there cannot be given to a decoder)",
			 (unsigned long long)start);
	if (n <= 0)
		return 0;
	*copy = malloc((size_t)n + (end - start));
	if (!*copy) {
		ptt_err("out of memory for decode --jobs");
		return -1;
	}
	memcpy(*copy, pre, (size_t)n);
	memcpy(*copy + n, t->buf + start, end - start);
	return n;
}

/* One stretch [start, end) of a trace, with its own decoder. */
int decode_stretch_one(struct decode_ctx *c, struct decode_trace *t,
		       uint64_t start, uint64_t end)
{
	struct pt_config config = c->config;
	struct pt_insn_decoder *dec;
	uint8_t *copy = NULL;
	long pre = 0;

	config.begin = t->buf + start;
	config.end = t->buf + end;
	t->base = start;
	if (c->tcal && t->seg_cont) {
		pre = decode_tcal_prefix(c, t, start, end, &copy);
		if (pre < 0)
			return PTT_EXIT_INTERNAL;
		if (copy) {
			/* its offsets: the piece's file offsets after them */
			config.begin = copy;
			config.end = copy + pre + (end - start);
			t->base = start - (uint64_t)pre;
		}
	}
	c->need_time = decode_need_time(c);
	c->task_filter = dflt_per_insn(&c->o.filter);
	c->need_who = c->task_filter || c->o.fmt.perf;
	c->plain = !c->need_time && !c->need_who && !c->o.calls &&
		   !c->o.quiet && !c->tl.f && !c->vmx.summary;
	dec = pt_insn_alloc_decoder(&config);
	if (!dec || pt_insn_set_image(dec, decode_image(c, t->st.cur)) < 0) {
		pt_insn_free_decoder(dec);
		free(copy);
		ptt_err("libipt could not set up the instruction decoder");
		return PTT_EXIT_INTERNAL;
	}
	decode_walk(c, t, dec);
	pt_insn_free_decoder(dec);
	free(copy);
	return PTT_EXIT_OK;
}
