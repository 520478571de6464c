// SPDX-License-Identifier: GPL-2.0
/*
 * What decode does with each instruction the walk (decode_walk.c) gets
 * from libipt, and with each error: the filters, the listing, the call
 * tree and the timeline; and the decoder's time, in host time under
 * --guest-tsc.
 */
#include <stdio.h>

#include "decode_calls.h"
#include "decode_insn.h"
#include "decode_out.h"
#include "decode_vmx.h"
#include "timeline_marks.h"

/*
 * libipt's time, in host time: in a guest whose --guest-tsc is given,
 * the guest's TSC packets are converted back (decode_vmx.c).
 */
int decode_time(struct decode_trace *t,
		struct pt_insn_decoder *dec, uint64_t *tsc,
		uint32_t *lost_mtc, uint32_t *lost_cyc)
{
	uint64_t off;
	int err;

	/*
	 * decode --jobs: a segment's decoder that has used up its packets
	 * (pts_eos).  One decoder reading on would be in the next segment's
	 * PSB+ by now: libipt's time is that of the last TNT, TIP or event
	 * it took, and having used up the TNT bits it takes the PSB+'s
	 * first event (libipt 2.0's pt_qry_event()) with that instruction.
	 * Its time is the PSB+'s TSC: so it is.
	 */
	if (t->in_seg && t->seg_eos && !t->seg_last && t->seg_next.has_tsc) {
		/* --guest-tsc: converted at that PSB (the next segment's start) */
		*tsc = t->marks.n ? dvmx_host_time(&t->marks, t->seg_end,
						   t->seg_next.tsc) :
				    t->seg_next.tsc;
		*lost_mtc = 0;
		*lost_cyc = 0;
		return 0;
	}
	err = pt_insn_time(dec, tsc, lost_mtc, lost_cyc);
	if (err < 0 || !t->marks.n || pt_insn_get_offset(dec, &off) < 0)
		return err;
	*tsc = dvmx_host_time(&t->marks, off + t->base, *tsc);
	return err;
}

/*
 * "[OFFSET, IP: error: WHAT]" as ptxed prints it: @what is "error" or
 * "sync error", @ip the one libipt gave with the failure (0 when it gave
 * none), OFFSET where the decoder stopped in the file.
 */
void decode_error(struct decode_ctx *c, struct decode_trace *t,
		  struct pt_insn_decoder *dec, const char *what,
		  uint64_t ip, int err)
{
	/* err 0: decode's own finding, @what says it all */
	const char *why = err ? pt_errstr(pt_errcode(err)) : what;
	uint64_t offset = 0;

	t->stats.errors++;
	if (pt_errcode(err) == pte_nomap)
		t->stats.nomap++;
	if (pt_errcode(err) == pte_nomap &&
	    dvmx_image(&c->vmx, t->st.cur->image) == c->vmx.empty)
		c->vmx.no_image++;
	if (t->dropped)
		t->stats.dropped_errors++;
	pt_insn_get_offset(dec, &offset);
	offset += t->base;
	if (!c->o.fmt.ip_only) {
		ob_printf(&c->ob, "[%llx, %llx: %s%s%s",
			  (unsigned long long)offset, (unsigned long long)ip,
			  what, err ? ": " : "", err ? why : "");
		/* Bytes dropped while running: somewhere in here. */
		if (t->dropped)
			ob_printf(&c->ob,
				  " (expected: %llu bytes were dropped in this stretch)",
				  (unsigned long long)t->dropped);
		ob_puts(&c->ob, "]\n");
	}
	if (c->tl.f) {
		uint64_t tsc = 0;
		uint32_t lost_mtc, lost_cyc;
		int have_tsc = decode_time(t, dec, &tsc, &lost_mtc,
					   &lost_cyc) >= 0;

		if (c->tl_marks) {
			struct tl_mark k = {
				.op = TLM_ERROR, .ip = offset, .tsc = tsc,
				.have_tsc = (uint8_t)have_tsc,
			};

			snprintf(k.text, sizeof(k.text), "%s", why);
			tlm_put(&t->tlm, &c->ob, &k);
		} else {
			tl_error(&t->track, offset, why, tsc, have_tsc);
			tl_guests_end(&t->tlg);
		}
	}
	/* The stack after the resync is unknown: the tree restarts. */
	decode_ct_restart(c, t, CTM_RESTART);
}

/* The filters: whether this instruction is shown; *w says who ran it. */
static int decode_wanted(struct decode_ctx *c, struct decode_trace *t,
			 uint64_t tsc, int have_tsc, struct decode_who *w)
{
	const struct decode_filter *f = &c->o.filter;

	if (!c->need_who)
		return 1;	/* no filter, and the lines do not name it */
	w->comm = t->st.comm[0] ? t->st.comm : NULL;
	w->pid = t->st.pid;
	w->tid = t->st.tid;
	w->cpu = t->cpu;
	w->ns = 0;	/* read by dflt_time() even when there is no time */
	w->have_time = have_tsc && !das_tsc_ns(c->asp, tsc, &w->ns);
	return !c->task_filter ||
	       (dflt_task(f, t->st.pid, t->st.tid) && dflt_time(f, w->have_time, w->ns));
}

/* --timeline: a guest's code on its own track, the host's on the CPU's. */
static struct tl_track *decode_tl_track(struct decode_ctx *c,
					struct decode_trace *t)
{
	struct tl_track *g;
	uint64_t vmcs;

	if (!dvmx_cur_guest(&c->vmx, &vmcs))
		return &t->track;
	g = tl_guest_track(&t->tlg, &t->track, vmcs, t->tl_tid, t->tl_name);
	return g ? g : &t->track;
}

/* One decoded instruction: counted, printed, in the tree and timeline. */
void decode_insn(struct decode_ctx *c, struct decode_trace *t,
		 struct pt_insn_decoder *dec, const struct pt_insn *insn)
{
	const struct decode_opts *o = &c->o;
	uint32_t lost_mtc, lost_cyc;
	struct decode_who who;
	uint64_t tsc = 0;
	int have_tsc = 0;
	const struct elf_symtab *st;

	/*
	 * Every instruction comes here (but decode_plain_run()'s): what is
	 * not needed for this listing is not done (the time is a call into
	 * libipt).
	 */
	if (c->need_time)
		have_tsc = decode_time(t, dec, &tsc, &lost_mtc, &lost_cyc) >= 0;
	if (unlikely(t->first_due)) {
		t->first_due = 0;
		t->first_set = 1;
		t->first_have = have_tsc;
		t->first_tsc = tsc;
		t->first_cur = c->vmx.cur;
	}
	t->stats.insns++;
	t->st.cur_fresh = 0;
	/* Another VMX context than --host-only etc. ask for, or filtered. */
	if (!dvmx_insn(&c->vmx, tsc, have_tsc) || !decode_wanted(c, t, tsc, have_tsc, &who)) {
		/* Where the listing goes on, the call tree starts anew. */
		t->st.hidden = 1;
		return;
	}
	if (t->st.hidden) {
		t->st.hidden = 0;
		decode_ct_restart(c, t, CTM_RESTART);
	}
	t->stats.shown++;
	if (o->quiet && !o->calls && !c->tl.f)
		return;
	st = dvmx_symtab(&c->vmx, &t->st.cur->st);
	if (!o->calls) {
		if (!o->quiet)
			decode_print_insn(&c->ob, &c->o.fmt, st, insn, tsc,
					  &who);
	} else if (c->ct_marks) {
		decode_ctm_insn(c, t, st, insn);
	} else {
		/* the tree's state is used (and kept) by --calls only */
		ct_insn(&t->ct, &c->ob, st, insn->ip);
		ct_after(&t->ct, decode_ct_branch(insn), insn->ip + insn->size);
	}
	if (c->tl_marks) {
		uint64_t vmcs = 0;
		int guest = dvmx_cur_guest(&c->vmx, &vmcs);

		tlm_insn(&t->tlm, &c->ob, st, insn, tsc, have_tsc,
			 guest ? vmcs : 0, guest);
	} else if (c->tl.f) {
		tl_insn(decode_tl_track(c, t), st, insn, tsc, have_tsc);
	}
}
