// SPDX-License-Identifier: GPL-2.0
/*
 * The exact model's packet encoder (exact_enc.h): which packets each
 * retired user-mode instruction produces under CPL filtering (User=1,
 * OS=0), per SDM Vol. 3C 36.4.1 (Table 36-1's COFI types) and the packet
 * sequences of libipt's test/src/ *.ptt, which libipt's decoder expects:
 *
 *   jcc, loop, jrcxz           one TNT bit (taken = 1)
 *   jmp/call direct            nothing (a call pushes ip+len, except a
 *                              call to the next instruction: PIC idiom)
 *   jmp/call indirect          TIP(target); the call pushes ip+len
 *   ret near                   a taken TNT bit when the target is the top
 *                              of the call stack (popped); else TIP, and
 *                              the stack is left as it is (as libipt's
 *                              decoder does: it pops only compressed RETs)
 *   far jmp/call/ret, iret     TIP(target) within user mode
 *   syscall, sysenter          TIP.PGD(suppressed): the kernel is filtered
 *   int n, int3, int1, #UD     FUP(ip) + TIP.PGD(suppressed): the decoder
 *                              then reports the instruction as not retired
 *                              (libipt int-iret-cpl_3.ptt)
 *
 * Pending TNT bits go out before any other packet that depends on the
 * instruction flow (TIP, FUP, TIP.PGD, PSB) and whenever a TNT packet is
 * full.
 */
#include "exact_enc.h"

/*
 * A kernel address: the upper canonical half, bit 63 set with 4- and
 * 5-level paging alike.
 */
static bool pt_exact_is_kernel(u64 ip)
{
	return (s64)ip < 0;
}

bool pt_exact_leaves_user(const struct pt_insn *in, u64 next)
{
	switch (in->cls) {
	case PT_INSN_SYSCALL:
	case PT_INSN_SYSENTER:
	case PT_INSN_INT:
	case PT_INSN_INT3:
	case PT_INSN_INT1:
	case PT_INSN_UD:
	case PT_INSN_SYSRET:
	case PT_INSN_SYSEXIT:
	case PT_INSN_INVALID:
		return true;
	default:
		return pt_exact_is_kernel(next);
	}
}

/* Where b stood before a call, to undo a sequence that did not fit. */
struct pt_exact_mark {
	u32 len;
	u64 last_ip;
	unsigned int packets;
	u64 cyc;
	bool cyc_sent;
};

static void pt_exact_mark(const struct pt_exact_enc *e,
			  const struct pt_pkt_buf *b, struct pt_exact_mark *m)
{
	m->len = b->len;
	m->last_ip = b->last_ip;
	m->packets = b->packets;
	m->cyc = e->cyc;
	m->cyc_sent = e->cyc_sent;
}

/* Undo everything appended since m; the caller's call then returns 0. */
static u32 pt_exact_undo(struct pt_exact_enc *e, struct pt_pkt_buf *b,
			 const struct pt_exact_mark *m)
{
	b->len = m->len;
	b->last_ip = m->last_ip;
	b->packets = m->packets;
	e->cyc = m->cyc;
	e->cyc_sent = m->cyc_sent;
	e->nofit = true;
	return 0;
}

/*
 * Cycle-accurate mode (SDM 36.3.6): a CYC with the cycles since the last
 * one before a CYC-eligible packet, once CycThresh cycles passed; the
 * other eligible packets of the same call are in the same cycle.  False:
 * no room.
 */
static bool pt_exact_put_cyc(struct pt_exact_enc *e, struct pt_pkt_buf *b)
{
	if (!e->cfg.cyc || !e->cyc || e->cyc < e->cfg.cyc_thresh)
		return true;
	if (!pt_pkt_cyc(b, e->cyc))
		return false;
	e->cyc = 0;
	e->cyc_sent = true;
	return true;
}

static unsigned int pt_exact_tnt_max(const struct pt_exact_enc *e)
{
	return e->cfg.long_tnt ? PT_EXACT_TNT64_MAX : PT_EXACT_TNT8_MAX;
}

void pt_exact_enc_init(struct pt_exact_enc *e, const struct pt_exact_cfg *cfg)
{
	*e = (struct pt_exact_enc){ .cfg = *cfg };
}

/*
 * Append the pending TNT bits as one packet; the bits stay pending (the
 * caller clears them once its whole sequence fit).  False: no room.
 */
static bool pt_exact_put_tnt(struct pt_exact_enc *e, struct pt_pkt_buf *b)
{
	if (!e->tnt_n)
		return true;
	if (e->tnt_n <= PT_EXACT_TNT8_MAX)
		return pt_pkt_tnt8(b, (u8)e->tnt, e->tnt_n) != 0;
	return pt_pkt_tnt64(b, e->tnt, e->tnt_n) != 0;
}

static void pt_exact_tnt_clear(struct pt_exact_enc *e)
{
	e->tnt = 0;
	e->tnt_n = 0;
}

u32 pt_exact_enc_flush(struct pt_exact_enc *e, struct pt_pkt_buf *b)
{
	struct pt_exact_mark m;

	e->nofit = false;
	pt_exact_mark(e, b, &m);
	if (!pt_exact_put_tnt(e, b))
		return pt_exact_undo(e, b, &m);
	pt_exact_tnt_clear(e);
	return b->len - m.len;
}

/* One more branch bit; a full packet goes out at once. */
static u32 pt_exact_tnt_bit(struct pt_exact_enc *e, struct pt_pkt_buf *b,
			    bool taken)
{
	u64 tnt = e->tnt;
	unsigned int n = e->tnt_n;
	struct pt_exact_mark m;

	pt_exact_mark(e, b, &m);
	/* The CYC before a TNT packet times its first branch (36.3.6.2). */
	if (!n && !pt_exact_put_cyc(e, b))
		return pt_exact_undo(e, b, &m);
	e->tnt = (tnt << 1) | (taken ? 1 : 0);
	e->tnt_n = n + 1;
	if (e->tnt_n < pt_exact_tnt_max(e))
		return b->len - m.len;
	if (!pt_exact_put_tnt(e, b)) {
		e->tnt = tnt;
		e->tnt_n = n;
		return pt_exact_undo(e, b, &m);
	}
	pt_exact_tnt_clear(e);
	return b->len - m.len;
}

static void pt_exact_push(struct pt_exact_enc *e, u64 ret)
{
	e->stack[e->sp] = ret;
	e->sp = (e->sp + 1) % PT_EXACT_STACK;
	if (e->depth < PT_EXACT_STACK)
		e->depth++;
}

static u64 pt_exact_top(const struct pt_exact_enc *e)
{
	return e->stack[(e->sp + PT_EXACT_STACK - 1) % PT_EXACT_STACK];
}

static void pt_exact_pop(struct pt_exact_enc *e)
{
	e->sp = (e->sp + PT_EXACT_STACK - 1) % PT_EXACT_STACK;
	e->depth--;
}

/*
 * Pending TNT, then one IP packet (type, ip, suppressed), optionally
 * preceded by FUP(fup): all or nothing.
 */
static u32 pt_exact_ip_seq(struct pt_exact_enc *e, struct pt_pkt_buf *b,
			   bool fup, u64 fup_ip, u8 type, u64 ip, bool suppress)
{
	struct pt_exact_mark m;

	pt_exact_mark(e, b, &m);
	if (!pt_exact_put_tnt(e, b) || !pt_exact_put_cyc(e, b))
		return pt_exact_undo(e, b, &m);
	if (fup && !pt_pkt_ip(b, PT_PKT_FUP, fup_ip, false))
		return pt_exact_undo(e, b, &m);
	if (!pt_pkt_ip(b, type, ip, suppress))
		return pt_exact_undo(e, b, &m);
	pt_exact_tnt_clear(e);
	if (type == PT_PKT_TIP_PGD)
		e->in = false;
	return b->len - m.len;
}

u32 pt_exact_enc_enter(struct pt_exact_enc *e, struct pt_pkt_buf *b, u64 ip)
{
	struct pt_exact_mark m;

	e->nofit = false;
	if (e->in) {
		e->misuse++;
		return 0;
	}
	if (!e->cfg.branch_en) {
		/* PacketEn still follows the filters; no packet says so. */
		e->in = true;
		return 0;
	}
	pt_exact_mark(e, b, &m);
	if (!pt_exact_put_cyc(e, b))
		return pt_exact_undo(e, b, &m);
	if (!e->mode_sent && !pt_pkt_mode_exec(b, true, false))
		return pt_exact_undo(e, b, &m);
	if (!pt_pkt_ip(b, PT_PKT_TIP_PGE, ip, false))
		return pt_exact_undo(e, b, &m);
	e->mode_sent = true;
	e->in = true;
	return b->len - m.len;
}

u32 pt_exact_enc_leave_async(struct pt_exact_enc *e, struct pt_pkt_buf *b,
			     u64 ip)
{
	e->nofit = false;
	if (!e->in)
		return 0;
	if (!e->cfg.branch_en) {
		e->in = false;
		return 0;
	}
	return pt_exact_ip_seq(e, b, true, ip, PT_PKT_TIP_PGD, 0, true);
}

/* A near RET: compressed into a taken TNT bit, or TIP(target). */
static u32 pt_exact_ret(struct pt_exact_enc *e, struct pt_pkt_buf *b, u64 next)
{
	u32 n;

	if (!e->cfg.disretc && e->depth && pt_exact_top(e) == next) {
		n = pt_exact_tnt_bit(e, b, true);
		if (e->nofit)
			return 0;
		pt_exact_pop(e);
		e->ret_compressed++;
		return n;
	}
	return pt_exact_ip_seq(e, b, false, 0, PT_PKT_TIP, next, false);
}

/* Leaving user mode by an exception or software interrupt at ip. */
static u32 pt_exact_trap(struct pt_exact_enc *e, struct pt_pkt_buf *b, u64 ip)
{
	return pt_exact_ip_seq(e, b, true, ip, PT_PKT_TIP_PGD, 0, true);
}

static u32 pt_exact_cofi(struct pt_exact_enc *e, struct pt_pkt_buf *b, u64 ip,
			 const struct pt_insn *in, u64 next)
{
	u64 fall = ip + in->len;
	u64 target = pt_insn_target(ip, in);
	u32 n;

	switch (in->cls) {
	case PT_INSN_OTHER:
		if (next != fall)
			e->unclassified++;	/* flow changed without a branch */
		return 0;
	case PT_INSN_JCC:
	case PT_INSN_LOOP:
	case PT_INSN_JRCXZ:
		if (next != target && next != fall)
			e->unclassified++;
		return pt_exact_tnt_bit(e, b, next == target);
	case PT_INSN_JMP:
		if (next != target)
			e->unclassified++;
		return 0;
	case PT_INSN_CALL:
		if (next != target)
			e->unclassified++;
		if (in->rel)	/* call next-insn (PIC): no push, as libipt */
			pt_exact_push(e, fall);
		return 0;
	case PT_INSN_JMP_IND:
		return pt_exact_ip_seq(e, b, false, 0, PT_PKT_TIP, next, false);
	case PT_INSN_CALL_IND:
		n = pt_exact_ip_seq(e, b, false, 0, PT_PKT_TIP, next, false);
		if (!e->nofit)
			pt_exact_push(e, fall);
		return n;
	case PT_INSN_RET:
		return pt_exact_ret(e, b, next);
	case PT_INSN_RET_FAR:
	case PT_INSN_JMP_FAR:
	case PT_INSN_CALL_FAR:
	case PT_INSN_IRET:
		if (pt_exact_is_kernel(next))	/* into the filtered kernel */
			return pt_exact_ip_seq(e, b, false, 0, PT_PKT_TIP_PGD,
					       0, true);
		e->far++;
		return pt_exact_ip_seq(e, b, false, 0, PT_PKT_TIP, next, false);
	case PT_INSN_SYSCALL:
	case PT_INSN_SYSENTER:
		/* libipt syscall-sysret-cpl_3.ptt: no FUP, no IP. */
		return pt_exact_ip_seq(e, b, false, 0, PT_PKT_TIP_PGD, 0, true);
	case PT_INSN_INT:
	case PT_INSN_INT3:
	case PT_INSN_INT1:
	case PT_INSN_UD:
	case PT_INSN_SYSRET:	/* #GP at CPL 3 */
	case PT_INSN_SYSEXIT:
		return pt_exact_trap(e, b, ip);
	default:
		/* Not an instruction: #UD, but say it was not understood. */
		e->unclassified++;
		return pt_exact_trap(e, b, ip);
	}
}

/*
 * What every per-instruction entry starts with: nothing failed to fit
 * yet, and an instruction while packet generation is off (no TIP.PGE
 * since the last TIP.PGD) is the caller's misuse: counted, no packets.
 */
static bool pt_exact_insn_begin(struct pt_exact_enc *e)
{
	e->nofit = false;
	if (!e->in) {
		e->misuse++;
		return false;
	}
	return true;
}

u32 pt_exact_enc_insn(struct pt_exact_enc *e, struct pt_pkt_buf *b, u64 ip,
		      const struct pt_insn *in, u64 next)
{
	u32 n;

	if (!pt_exact_insn_begin(e))
		return 0;
	if (!e->cfg.branch_en) {
		/* No COFI packets; the filtered-out transitions still count. */
		if (pt_exact_leaves_user(in, next))
			e->in = false;
		e->insns++;
		return 0;
	}
	n = pt_exact_cofi(e, b, ip, in, next);
	if (!e->nofit)
		e->insns++;
	return n;
}

/* The instruction's next IP came from a branch (taken or not). */
static bool pt_exact_is_branch(unsigned int cls)
{
	return cls != PT_INSN_OTHER;
}

static bool pt_exact_is_far(unsigned int cls)
{
	return cls == PT_INSN_RET_FAR || cls == PT_INSN_JMP_FAR ||
	       cls == PT_INSN_CALL_FAR || cls == PT_INSN_IRET;
}

u32 pt_exact_enc_insn_filtered(struct pt_exact_enc *e, struct pt_pkt_buf *b,
			       u64 ip, const struct pt_insn *in, u64 next)
{
	u32 n;

	if (!pt_exact_insn_begin(e))
		return 0;
	if (!e->cfg.branch_en) {
		e->in = false;
		e->insns++;
		return 0;
	}
	/*
	 * A branch out of the range: TIP.PGD(target), bound to the branch.
	 * A linear step out of it: no branch to bind an IP to; libipt binds
	 * TIP.PGD with an IP only to a branch and would decode on past the
	 * range's end, so FUP(next) + TIP.PGD(suppressed), as a linear
	 * disable (linear-fup-tip_pgd.ptt, fup-tip_pgd-stop.ptt).
	 */
	if (pt_exact_is_branch(in->cls))
		n = pt_exact_ip_seq(e, b, false, 0, PT_PKT_TIP_PGD, next,
				    false);
	else
		n = pt_exact_ip_seq(e, b, true, next, PT_PKT_TIP_PGD, 0, true);
	if (e->nofit)
		return 0;
	if ((in->cls == PT_INSN_CALL && in->rel) || in->cls == PT_INSN_CALL_IND)
		pt_exact_push(e, ip + in->len);
	e->insns++;
	return n;
}

u32 pt_exact_enc_insn_stop(struct pt_exact_enc *e, struct pt_pkt_buf *b,
			   u64 ip, const struct pt_insn *in, u64 next)
{
	bool branch = pt_exact_is_branch(in->cls);
	unsigned int tnt_n = e->tnt_n;
	u64 tnt = e->tnt;
	struct pt_exact_mark m;

	if (!pt_exact_insn_begin(e))
		return 0;
	pt_exact_mark(e, b, &m);
	if (e->cfg.branch_en &&
	    !pt_exact_ip_seq(e, b, !branch, next, PT_PKT_TIP_PGD, next,
			     !branch || pt_exact_is_far(in->cls)))
		return 0;
	if (!pt_pkt_stop(b)) {
		/* Undo what pt_exact_ip_seq() did, too. */
		e->tnt = tnt;
		e->tnt_n = tnt_n;
		e->in = true;
		return pt_exact_undo(e, b, &m);
	}
	if (!branch && next != ip + in->len)
		e->unclassified++;	/* flow changed without a branch */
	e->in = false;
	e->insns++;
	return b->len - m.len;
}

u32 pt_exact_enc_psb_begin(struct pt_exact_enc *e, struct pt_pkt_buf *b)
{
	struct pt_exact_mark m;

	e->nofit = false;
	pt_exact_mark(e, b, &m);
	if (!pt_exact_put_tnt(e, b) || !pt_pkt_psb(b))
		return pt_exact_undo(e, b, &m);
	pt_exact_tnt_clear(e);
	/*
	 * A decoder may start at this PSB: it knows no call made before it,
	 * nor the execution mode until the next MODE.Exec.
	 */
	e->depth = 0;
	e->sp = 0;
	e->mode_sent = false;
	return b->len - m.len;
}

u32 pt_exact_enc_psb_end(struct pt_exact_enc *e, struct pt_pkt_buf *b, u64 ip)
{
	struct pt_exact_mark m;
	bool status = e->in && e->cfg.branch_en;

	e->nofit = false;
	pt_exact_mark(e, b, &m);
	if (status && (!pt_pkt_mode_exec(b, true, false) ||
		       !pt_pkt_ip(b, PT_PKT_FUP, ip, false)))
		return pt_exact_undo(e, b, &m);
	if (!pt_pkt_psbend(b))
		return pt_exact_undo(e, b, &m);
	if (status)
		e->mode_sent = true;
	return b->len - m.len;
}
