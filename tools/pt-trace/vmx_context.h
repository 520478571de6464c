/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Execution contexts of a trace under VMX (vmx_context.c): keyed by
 * (VMCS base, PIP.NR, CR3), not CR3 alone, because a guest's CR3 may
 * equal the host's or another guest's (SDM Vol. 3C 36.4.2.15).
 */
#ifndef PT_TRACE_VMX_CONTEXT_H
#define PT_TRACE_VMX_CONTEXT_H

#include <stdint.h>
#include <intel-pt.h>

#define VMX_CTX_MAX		256
#define VMX_VMCS_NONE		0x000ffffffffff000ULL	/* none loaded */
/* A guest context entered without PIP: its CR3 is not known. */
#define VMX_CR3_UNKNOWN		(~0ULL)
/*
 * A vmx_guest_tsc for every guest without one of its own: the recording's
 * KVM offset and ratio when all its vCPUs have the same (KVM's debugfs
 * does not say which VMCS a vCPU uses).
 */
#define VMX_VMCS_ANY		(~0ULL)

/* One guest's TSC: host TSC * ratio / 2^48 + offset (KVM's format). */
struct vmx_guest_tsc {
	uint64_t vmcs;
	int64_t offset;
	uint64_t ratio;		/* 0: 1.0 */
};

struct vmx_ctx {
	uint64_t vmcs;		/* the VMCS of a guest context, 0 for the host */
	uint64_t cr3;
	int nr;			/* PIP.NR: 1 in a guest */
	uint64_t packets, ips;	/* packets, and IP packets naming an IP */
	uint64_t insns;		/* instructions decoded (decode --summary) */
	uint64_t ticks;		/* host TSC ticks from its instructions on */
	uint64_t tsc_first, tsc_last;	/* host time (guest TSC converted) */
	int have_tsc;
};

struct vmx_ctx_state {
	struct vmx_ctx ctx[VMX_CTX_MAX];
	unsigned int n;
	int cur;		/* index, -1 before the first PIP */
	uint64_t vmcs;		/* the last VMCS packet's base */
	const struct vmx_guest_tsc *tsc;
	unsigned int ntsc;
	uint64_t lost;		/* packets in a context beyond VMX_CTX_MAX */
};

void vmx_ctx_init(struct vmx_ctx_state *s, const struct vmx_guest_tsc *tsc,
		  unsigned int ntsc);
/* Feed one packet; @has_ip: it names an IP. */
void vmx_ctx_packet(struct vmx_ctx_state *s, const struct pt_packet *p,
		    int has_ip);
/*
 * The index of the context (@vmcs, @nr, @cr3), made when new (a host's
 * @vmcs is 0); -1 when the table is full.
 */
int vmx_ctx_get(struct vmx_ctx_state *s, uint64_t vmcs, int nr, uint64_t cr3);
/*
 * A TSC value of the guest with @vmcs in host time, by @tsc[@ntsc] (its
 * own entry, else a VMX_VMCS_ANY one, else the value itself); 56 bits as
 * TSC packets.
 */
uint64_t vmx_guest_to_host(const struct vmx_guest_tsc *tsc, unsigned int ntsc,
			   uint64_t vmcs, uint64_t guest_tsc);
/* Parse "VMCS:OFFSET:RATIO" (numbers in C syntax); 0 or -1. */
int vmx_guest_tsc_parse(const char *arg, struct vmx_guest_tsc *g);

#endif /* PT_TRACE_VMX_CONTEXT_H */
