/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A pure Intel PT packet encoder (SDM Vol. 3C, 36.4.2): each function
 * appends one packet to a byte buffer and returns its length, or 0 when
 * it does not fit (the buffer is then unchanged).  IP packets compress
 * against the buffer's last IP exactly as the hardware does, so the
 * encoder keeps that state; a PSB resets it.
 */
#ifndef _PT_TRACE_MODEL_PACKETS_H
#define _PT_TRACE_MODEL_PACKETS_H

#include <linux/types.h>

struct pt_pkt_buf {
	u8 *buf;
	u32 len;
	u32 cap;
	u64 last_ip;		/* for IP compression; 0 after PSB */
	unsigned int packets;
};

/* The IP packet kinds: the low five bits of their first byte. */
#define PT_PKT_TIP		0x0d
#define PT_PKT_TIP_PGE		0x11
#define PT_PKT_TIP_PGD		0x01
#define PT_PKT_FUP		0x1d

/* IPBytes encodings (SDM Table 36-12). */
#define PT_IPC_SUPPRESSED	0
#define PT_IPC_UPDATE_16	1
#define PT_IPC_UPDATE_32	2
#define PT_IPC_SEXT_48		3
#define PT_IPC_UPDATE_48	4
#define PT_IPC_FULL		6

void pt_pkt_init(struct pt_pkt_buf *b, u8 *buf, u32 cap);
unsigned int pt_ipc_choose(u64 last_ip, u64 ip);

u32 pt_pkt_pad(struct pt_pkt_buf *b);
u32 pt_pkt_psb(struct pt_pkt_buf *b);
u32 pt_pkt_psbend(struct pt_pkt_buf *b);
u32 pt_pkt_ovf(struct pt_pkt_buf *b);
u32 pt_pkt_stop(struct pt_pkt_buf *b);
u32 pt_pkt_tsc(struct pt_pkt_buf *b, u64 tsc);
u32 pt_pkt_tma(struct pt_pkt_buf *b, u16 ctc, u16 fc);
u32 pt_pkt_cbr(struct pt_pkt_buf *b, u8 ratio);
u32 pt_pkt_mtc(struct pt_pkt_buf *b, u8 ctc);
u32 pt_pkt_cyc(struct pt_pkt_buf *b, u64 cycles);
u32 pt_pkt_mode_exec(struct pt_pkt_buf *b, bool csl, bool csd);
u32 pt_pkt_mode_tsx(struct pt_pkt_buf *b, bool intx, bool abrt);
/* type is PT_PKT_TIP/TIP_PGE/TIP_PGD/FUP; suppress sends no IP. */
u32 pt_pkt_ip(struct pt_pkt_buf *b, u8 type, u64 ip, bool suppress);
/* Forced compression (for tests and after OVF). */
u32 pt_pkt_ip_ipc(struct pt_pkt_buf *b, u8 type, u64 ip, unsigned int ipc);
/* n (1..6) branch bits, the oldest in bit n-1. */
u32 pt_pkt_tnt8(struct pt_pkt_buf *b, u8 bits, unsigned int n);
/* Long TNT: n (1..47) branch bits, the oldest in bit n-1. */
u32 pt_pkt_tnt64(struct pt_pkt_buf *b, u64 bits, unsigned int n);
u32 pt_pkt_pip(struct pt_pkt_buf *b, u64 cr3, bool nr);
u32 pt_pkt_vmcs(struct pt_pkt_buf *b, u64 vmcs);
u32 pt_pkt_ptw(struct pt_pkt_buf *b, u64 payload, bool wide, bool ip);
u32 pt_pkt_pwre(struct pt_pkt_buf *b, u8 cstate, u8 substate, bool hw);
u32 pt_pkt_pwrx(struct pt_pkt_buf *b, u8 last, u8 deepest, u8 wake);

#endif /* _PT_TRACE_MODEL_PACKETS_H */
