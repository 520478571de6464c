// SPDX-License-Identifier: GPL-2.0
/*
 * Execution contexts keyed by (VMCS, PIP.NR, CR3), from packets alone.
 * A PIP sets the context: with NR=1 a guest, whose VMCS is the one the
 * last VMCS packet named (on VMPTRLD it applies at the next VM entry,
 * whose PIP follows; in PSB+ it precedes the PIP); with NR=0 the host,
 * whatever VMCS is loaded.  TSC packets are times in the context they
 * appear in: a guest's TSC is converted back to host time with the
 * offset and ratio given for its VMCS (--guest-tsc).
 */
#include <stdlib.h>
#include <string.h>

#include "vmx_context.h"

void vmx_ctx_init(struct vmx_ctx_state *s, const struct vmx_guest_tsc *tsc,
		  unsigned int ntsc)
{
	memset(s, 0, sizeof(*s));
	s->cur = -1;
	s->vmcs = VMX_VMCS_NONE;
	s->tsc = tsc;
	s->ntsc = ntsc;
}

int vmx_ctx_get(struct vmx_ctx_state *s, uint64_t vmcs, int nr, uint64_t cr3)
{
	unsigned int i;

	for (i = 0; i < s->n; i++)
		if (s->ctx[i].vmcs == vmcs && s->ctx[i].nr == nr &&
		    s->ctx[i].cr3 == cr3)
			return (int)i;
	if (s->n == VMX_CTX_MAX)
		return -1;
	memset(&s->ctx[s->n], 0, sizeof(s->ctx[0]));
	s->ctx[s->n].vmcs = vmcs;
	s->ctx[s->n].nr = nr;
	s->ctx[s->n].cr3 = cr3;
	return (int)s->n++;
}

uint64_t vmx_guest_to_host(const struct vmx_guest_tsc *g, unsigned int ntsc,
			   uint64_t vmcs, uint64_t tsc)
{
	const uint64_t mask = (1ULL << 56) - 1;
	const struct vmx_guest_tsc *use = NULL;
	unsigned int i;
	__uint128_t t;

	for (i = 0; i < ntsc; i++) {
		if (g[i].vmcs == vmcs) {
			use = &g[i];
			break;
		}
		if (g[i].vmcs == VMX_VMCS_ANY && !use)
			use = &g[i];
	}
	if (!use)
		return tsc;
	t = (tsc - (uint64_t)use->offset) & mask;
	return use->ratio ? (uint64_t)((t << 48) / use->ratio) : (uint64_t)t;
}

/* A guest TSC in host time. */
static uint64_t vmx_host_tsc(const struct vmx_ctx_state *s, uint64_t vmcs,
			     uint64_t tsc)
{
	return vmx_guest_to_host(s->tsc, s->ntsc, vmcs, tsc);
}

void vmx_ctx_packet(struct vmx_ctx_state *s, const struct pt_packet *p,
		    int has_ip)
{
	struct vmx_ctx *c;
	uint64_t t;

	if (p->type == ppt_vmcs) {
		s->vmcs = p->payload.vmcs.base;
	} else if (p->type == ppt_pip) {
		s->cur = vmx_ctx_get(s, p->payload.pip.nr ? s->vmcs : 0,
				     p->payload.pip.nr, p->payload.pip.cr3);
	}
	if (s->cur < 0) {
		s->lost += s->n == VMX_CTX_MAX;
		return;
	}
	c = &s->ctx[s->cur];
	c->packets++;
	c->ips += !!has_ip;
	if (p->type != ppt_tsc)
		return;
	t = c->nr ? vmx_host_tsc(s, c->vmcs, p->payload.tsc.tsc) :
		    p->payload.tsc.tsc;
	if (!c->have_tsc || t < c->tsc_first)
		c->tsc_first = t;
	if (!c->have_tsc || t > c->tsc_last)
		c->tsc_last = t;
	c->have_tsc = 1;
}

int vmx_guest_tsc_parse(const char *arg, struct vmx_guest_tsc *g)
{
	char *end;

	g->vmcs = strtoull(arg, &end, 0);
	if (*end != ':')
		return -1;
	g->offset = strtoll(end + 1, &end, 0);
	if (*end != ':')
		return -1;
	g->ratio = strtoull(end + 1, &end, 0);
	return *end ? -1 : 0;
}
