/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The packets of VMX transitions (SDM Vol. 3C 36.5.2): VMPTRLD, VM entry
 * and VM exit, as system-wide tracing and host-only tracing (Table 36-48)
 * see them.  Pure: no kernel state, so the model (vmx.c) and
 * tests/host (vmx_table.c, decoded by pt-trace) share it.
 */
#ifndef _PT_TRACE_MODEL_VMX_ENC_H
#define _PT_TRACE_MODEL_VMX_ENC_H

#include "packets.h"

/* What a tick saw of the interrupted context, or a simulated guest's. */
struct pt_ctx {
	u64 ip;
	u64 cr3;
	bool user;
	bool csl;		/* 64-bit code segment */
	bool guest;		/* VMX non-root, traced (model_vmx=1): PIP.NR */
};

struct pt_vmx_enc {
	/* The configuration: RTIT_CTL.OS and BranchEn, the VMM's setup. */
	bool os;
	bool branch_en;
	bool host_only;		/* Table 36-48: guests not traced */
	/*
	 * The profile quirk vmx_entry_no_pip: VM entries send no PIP, as
	 * when a VMM resumes a guest after emulating its MOV CR3 and does
	 * not write the missing PIP (SDM 36.5.2.5).  A decoder that keys
	 * contexts on PIP.NR must notice the entry itself.
	 */
	bool no_entry_pip;
	/*
	 * VM exits send no PIP: not a quirk of any profile, a trace of
	 * tests/host (vmx_table.c) for the decoder, which must notice that
	 * the host's code runs again (a PIP lost with an overflow, or a
	 * tracer that cleared OS around the exit, leave the same trace).
	 */
	bool no_exit_pip;
	/* The state: PacketEn now, the CR3 the last PIP announced. */
	bool packet_en;
	u64 last_cr3;
};

/* A successful VMPTRLD: VMCS when TriggerEn && ContextEn (Table 36-34). */
void pt_vmx_enc_vmptrld(struct pt_pkt_buf *b, bool ctx_en, u64 vmcs);
/*
 * The VM entry from @host to @g, whose ContextEn and PacketEn are
 * @g_ctx_en and @g_pe.  Returns whether the guest is traced.
 */
bool pt_vmx_enc_entry(struct pt_vmx_enc *e, struct pt_pkt_buf *b,
		      const struct pt_ctx *host, const struct pt_ctx *g,
		      bool g_ctx_en, bool g_pe);
/* The VM exit from @g back to @host. */
void pt_vmx_enc_exit(struct pt_vmx_enc *e, struct pt_pkt_buf *b,
		     const struct pt_ctx *host, const struct pt_ctx *g,
		     bool h_ctx_en, bool h_pe);

#endif /* _PT_TRACE_MODEL_VMX_ENC_H */
