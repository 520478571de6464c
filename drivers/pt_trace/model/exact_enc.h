/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The packet encoder of the instruction-exact model: it turns the flow of
 * user-mode instructions the stepper observed into the Intel PT packets
 * silicon emits for them (SDM Vol. 3C, 36.4.1 and 36.4.2; the sequences
 * of libipt's test/src/ *.ptt): TNT for conditional branches and
 * compressed returns, TIP for indirect transfers, TIP.PGD/TIP.PGE where
 * CPL filtering stops and resumes packet generation, FUP for asynchronous
 * events and in PSB+.  Pure: no kernel state, so KUnit checks its bytes
 * and tests/host compiles it to encode ptrace-stepped programs and
 * decode them back with libipt.
 *
 * All-or-nothing: when the packets of one call do not fit into the
 * buffer, the buffer and the encoder are left as they were, the call
 * returns 0 and sets nofit (0 alone also means "nothing to emit").
 */
#ifndef _PT_TRACE_MODEL_EXACT_ENC_H
#define _PT_TRACE_MODEL_EXACT_ENC_H

#include "packets.h"
#include "insn_decode.h"

/* Depth of the RET-compression call stack (SDM 36.4.2.2). */
#define PT_EXACT_STACK		64

/* Branch bits per TNT packet: short TNT, long TNT (SDM Table 36-14/15). */
#define PT_EXACT_TNT8_MAX	6
#define PT_EXACT_TNT64_MAX	47

struct pt_exact_cfg {
	bool branch_en;		/* RTIT_CTL.BranchEn: no TNT/TIP/FUP-of-branches when 0 */
	bool disretc;		/* RTIT_CTL.DisRETC: no RET compression */
	/*
	 * Pack up to 47 branch bits into long TNT packets; when false (the
	 * default, as the Skylake traces in shared/traces show) only short
	 * TNT packets of up to 6 bits are emitted.
	 */
	bool long_tnt;
	/*
	 * RTIT_CTL.CYCEn: a CYC goes before the first CYC-eligible packet of
	 * a call (TIP, FUP, TIP.PGE/PGD, MODE.Exec, and the first bit of a
	 * TNT packet, whose CYC times its first branch: SDM 36.3.6.2) when
	 * the caller's cyc is not 0 and at least cyc_thresh (CycThresh
	 * decoded to cycles: 0, else 2^(CycThresh-1)).
	 */
	bool cyc;
	u32 cyc_thresh;
};

struct pt_exact_enc {
	struct pt_exact_cfg cfg;
	bool in;		/* PacketEn: between TIP.PGE and TIP.PGD */
	u64 tnt;		/* pending TNT bits, oldest first out */
	unsigned int tnt_n;
	u64 stack[PT_EXACT_STACK];	/* RET-compression call stack (ring) */
	unsigned int sp, depth;
	/* yours to extend */
	bool mode_sent;		/* MODE.Exec emitted since TraceEn or the last PSB */
	bool nofit;		/* the last call did not fit: nothing changed */
	/*
	 * Core cycles since the last CYC, set by the caller before a call;
	 * a CYC that goes out takes them (cyc = 0, cyc_sent = true).
	 */
	u64 cyc;
	bool cyc_sent;
	u64 unclassified;	/* instructions encoded as a best guess (see .c) */
	u64 misuse;		/* calls out of order: insn while out, enter while in */
	u64 far;		/* far transfers within user mode, assumed 64-bit */
	u64 insns;		/* instructions encoded */
	u64 ret_compressed;	/* RETs encoded as a taken TNT bit */
};

void pt_exact_enc_init(struct pt_exact_enc *e, const struct pt_exact_cfg *cfg);
/*
 * Trace (re)enters user code at ip: START, return to user from the
 * kernel, a traced task switched in.  MODE.Exec(64-bit) + TIP.PGE(ip) as
 * silicon does (MODE.Exec only when none was sent since TraceEn or the
 * last PSB).  Returns bytes appended to b (0 = did not fit; b unchanged).
 */
u32 pt_exact_enc_enter(struct pt_exact_enc *e, struct pt_pkt_buf *b, u64 ip);
/*
 * One instruction at ip, decoded as *in, retired in the traced context;
 * next = the IP of the next instruction executed (for branches: the
 * actual target, or the next instruction when not taken).  syscall/sysenter/int n/int3/int1/ud/far
 * transfers that leave user mode are encoded as silicon encodes leaving a
 * CPL-filtered context (TIP.PGD, with or without IP as the SDM/libipt
 * say) and set in=false.
 */
u32 pt_exact_enc_insn(struct pt_exact_enc *e, struct pt_pkt_buf *b, u64 ip,
		      const struct pt_insn *in, u64 next);
/*
 * Does the instruction leave user mode (to @next in the kernel, or by a
 * class that always does)?  CPL filtering then wins over IP filtering.
 */
bool pt_exact_leaves_user(const struct pt_insn *in, u64 next);
/*
 * Asynchronous leave (interrupt, exception, preemption) before the
 * instruction at ip executed: pending TNT, FUP(ip), TIP.PGD(suppressed).
 */
u32 pt_exact_enc_leave_async(struct pt_exact_enc *e, struct pt_pkt_buf *b,
			     u64 ip);
/* Emit pending TNT bits now (before timing packets, PSB+, or when the caller must flush). */
u32 pt_exact_enc_flush(struct pt_exact_enc *e, struct pt_pkt_buf *b);
/*
 * PSB+ at the current position: PSB, [caller's TSC/TMA/CBR via its own
 * pt_pkt_* calls between psb_begin and psb_end], MODE.Exec and FUP(ip)
 * when in, PSBEND.  Resets last-IP and the RET-compression stack.
 */
u32 pt_exact_enc_psb_begin(struct pt_exact_enc *e, struct pt_pkt_buf *b);
u32 pt_exact_enc_psb_end(struct pt_exact_enc *e, struct pt_pkt_buf *b, u64 ip);

/*
 * IP filtering (ADDRn_CFG=1): the instruction at ip, inside the traced
 * ranges, retired and the next one, at next, is outside them (and still
 * in user mode).  A branch's own TNT bit or TIP is replaced by
 * TIP.PGD(next) (libipt tip_pgd-direct_jump, -indirect_jump, -tnt_taken,
 * -tnt_not_taken.ptt); a linear exit is FUP(next) + TIP.PGD(suppressed)
 * (linear-fup-tip_pgd.ptt); a call still pushes, a RET pops nothing.
 * Sets in=false; pt_exact_enc_enter() where the flow comes back into a
 * range.  A syscall and the like still go through pt_exact_enc_insn():
 * leaving user mode wins.
 */
u32 pt_exact_enc_insn_filtered(struct pt_exact_enc *e, struct pt_pkt_buf *b,
			       u64 ip, const struct pt_insn *in, u64 next);
/*
 * TraceStop (ADDRn_CFG=2): the instruction at ip retired and the one at
 * next lies in a TraceStop range.  A branch there: TIP.PGD(next) as
 * above (suppressed for a far transfer, tip_pgd-stop.ptt); a linear step
 * into it: FUP(next), TIP.PGD(suppressed) (fup-tip_pgd-stop.ptt); then
 * TraceStop.  Sets in=false; nothing follows until TraceEn is set again.
 */
u32 pt_exact_enc_insn_stop(struct pt_exact_enc *e, struct pt_pkt_buf *b,
			   u64 ip, const struct pt_insn *in, u64 next);

#endif /* _PT_TRACE_MODEL_EXACT_ENC_H */
