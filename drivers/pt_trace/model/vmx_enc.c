// SPDX-License-Identifier: GPL-2.0
/*
 * The packets of VMX transitions (vmx_enc.h).  System-wide tracing: the
 * entry is a far branch, PIP(guest CR3, NR=1), MODE.Exec when CS.L
 * changes, TIP(guest IP) (TIP.PGE/TIP.PGD when PacketEn changes); the exit
 * an asynchronous event, FUP(guest IP), PIP(host CR3, NR=0), MODE.Exec,
 * TIP(host IP).  Host-only tracing (Table 36-48): the entry sends
 * TIP.PGD() and nothing is traced in the guest; the exit sends
 * TIP.PGE(host IP), preceded by MODE.Exec only when CS.L changes.
 */
#include "vmx_enc.h"

void pt_vmx_enc_vmptrld(struct pt_pkt_buf *b, bool ctx_en, u64 vmcs)
{
	if (ctx_en)
		pt_pkt_vmcs(b, vmcs);
}

static void pt_vmx_mode_exec(struct pt_pkt_buf *b, const struct pt_ctx *c)
{
	pt_pkt_mode_exec(b, c->csl, !c->csl);
}

/*
 * The far transfer of an entry or exit, from @from to @to, when PT sees
 * both sides: TIP(to) with MODE.Exec first if CS.L changes, TIP.PGE
 * (always after MODE.Exec) when PacketEn comes on, TIP.PGD(to) when it
 * goes off.
 */
static void pt_vmx_transfer(struct pt_vmx_enc *e, struct pt_pkt_buf *b,
			    const struct pt_ctx *from, const struct pt_ctx *to,
			    bool to_pe)
{
	if (to_pe && e->packet_en) {
		if (to->csl != from->csl)
			pt_vmx_mode_exec(b, to);
		pt_pkt_ip(b, PT_PKT_TIP, to->ip, false);
	} else if (to_pe) {
		pt_vmx_mode_exec(b, to);
		pt_pkt_ip(b, PT_PKT_TIP_PGE, to->ip, false);
	} else if (e->packet_en) {
		pt_pkt_ip(b, PT_PKT_TIP_PGD, to->ip, false);
	}
	e->packet_en = to_pe;
}

bool pt_vmx_enc_entry(struct pt_vmx_enc *e, struct pt_pkt_buf *b,
		      const struct pt_ctx *host, const struct pt_ctx *g,
		      bool g_ctx_en, bool g_pe)
{
	if (!e->branch_en)
		g_pe = false;
	if (e->host_only) {
		if (e->packet_en)
			pt_pkt_ip(b, PT_PKT_TIP_PGD, 0, true);
		e->packet_en = false;
		return false;
	}
	/*
	 * A CR3 load: PIP when OS=1 and ContextEn after it (Table 36-50),
	 * unless the profile's quirk drops it.
	 */
	if (e->os && g_ctx_en && !e->no_entry_pip) {
		pt_pkt_pip(b, g->cr3, true);
		e->last_cr3 = g->cr3;
	}
	pt_vmx_transfer(e, b, host, g, g_pe);
	return true;
}

void pt_vmx_enc_exit(struct pt_vmx_enc *e, struct pt_pkt_buf *b,
		     const struct pt_ctx *host, const struct pt_ctx *g,
		     bool h_ctx_en, bool h_pe)
{
	if (!e->branch_en)
		h_pe = false;
	if (e->host_only) {
		if (h_pe) {
			if (g->csl != host->csl)
				pt_vmx_mode_exec(b, host);
			pt_pkt_ip(b, PT_PKT_TIP_PGE, host->ip, false);
		}
		e->packet_en = h_pe;
		return;
	}
	if (e->packet_en)
		pt_pkt_ip(b, PT_PKT_FUP, g->ip, false);
	if (e->os && h_ctx_en && !e->no_exit_pip) {
		pt_pkt_pip(b, host->cr3, false);
		e->last_cr3 = host->cr3;
	}
	pt_vmx_transfer(e, b, g, host, h_pe);
}
