// SPDX-License-Identifier: GPL-2.0
/*
 * decode under VMX: guest TSC packets in host time.  A guest's TSC is
 * host TSC * ratio + offset (KVM's 48-bit fraction ratio), per VMCS by
 * --guest-tsc, else from the recording's kvm.vcpu sideband lines.
 *
 * KVM's debugfs does not say which VMCS a vCPU uses, and each VM has its
 * own offset: with vCPUs that differ, the vCPU of each VMCS is inferred
 * from the trace.  A guest runs between two host timestamps (the VM
 * entry before, the exit after), so its TSC packets converted with its
 * own vCPU's offset/ratio lie between the host TSC packets around them;
 * with another VM's, seconds or more away.  A VMCS takes the one
 * (offset, ratio) that fits all its first visits, and only that: vCPUs
 * of one VM share theirs, and count as one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode_vmx.h"
#include "pkt_walk.h"
#include "tool.h"

/*
 * How far outside the host timestamps around it a converted guest TSC
 * may lie: the host's TSC packets and the guest's are not written at the
 * instants of entry and exit (a packet's bytes go out later, MTC-paced
 * timing between them): 2^23 ticks, a few ms at today's TSC rates, far
 * below the distance between two VMs' offsets (they were made seconds
 * or more apart).
 */
#define DVMX_TSC_SLACK		0x800000ULL	/* 2^23 */
/* The guest TSC packets of a VMCS each candidate must fit. */
#define DVMX_TSC_PROBES		8

/*
 * One "kvm.vcpu" sideband line (vmx_info.c: "VM/vcpuN tsc_offset=O
 * tsc_ratio=R frac_bits=F", KVM's debugfs values): 0 with the offset and
 * the ratio in 48 fraction bits (KVM's on VMX; 0 for none), or -1.
 */
static int dvmx_parse_vcpu(const char *v, int64_t *off, uint64_t *ratio)
{
	const char *o = strstr(v, "tsc_offset="), *r = strstr(v, "tsc_ratio=");
	const char *f = strstr(v, "frac_bits=");
	unsigned long long rv = 0;
	unsigned int bits = 48;
	long long ov;
	char *end;

	if (!o)
		return -1;
	errno = 0;
	ov = strtoll(o + 11, &end, 0);
	if (errno || end == o + 11)
		return -1;
	if (r && r[10] != '-') {
		rv = strtoull(r + 10, &end, 0);
		if (errno || end == r + 10)
			return -1;
	}
	if (f && f[10] != '-' && (sscanf(f + 10, "%u", &bits) != 1 ||
				  bits > 63))
		return -1;
	if (rv && bits < 48)
		rv <<= 48 - bits;
	else if (rv)
		rv >>= bits - 48;
	*off = ov;
	*ratio = rv == 1ULL << 48 ? 0 : rv;
	return 0;
}

int dvmx_tsc_from_sideband(struct decode_vmx *d, const struct ptsb *sb)
{
	size_t pos = 0;
	const char *v = ptsb_get(sb, "kvm.pt_mode");
	struct dvmx_vcpu *c;
	unsigned int i;

	d->host_only_rec = v && !strcmp(v, "1");
	if (d->host_only_rec && (d->nguest || d->guest_only || d->nsel))
		ptt_warn("the recording was made with kvm_intel pt_mode=1 (host_guest): KVM switched PT off in the guests, so the trace holds no guest code; --guest-image, --guest-only and --vmcs find none (a guest's own trace is in the guest)");
	d->nvcpu = 0;
	while ((v = ptsb_next(sb, "kvm.vcpu", &pos)) &&
	       d->nvcpu < DVMX_MAX_VCPU) {
		c = &d->vcpu[d->nvcpu];
		if (dvmx_parse_vcpu(v, &c->offset, &c->ratio))
			continue;
		snprintf(c->name, sizeof(c->name), "%.*s",
			 (int)strcspn(v, " "), v);
		d->nvcpu++;
	}
	for (i = 1; i < d->nvcpu; i++)
		if (d->vcpu[i].offset != d->vcpu[0].offset ||
		    d->vcpu[i].ratio != d->vcpu[0].ratio) {
			d->vcpu_differ = 1;	/* inferred per VMCS */
			return -1;
		}
	if (!d->nvcpu || d->ntsc == DVMX_MAX_TSC)
		return 0;
	d->tsc[d->ntsc].vmcs = VMX_VMCS_ANY;
	d->tsc[d->ntsc].offset = d->vcpu[0].offset;
	d->tsc[d->ntsc].ratio = d->vcpu[0].ratio;
	d->ntsc++;
	if (d->ctx)		/* after dvmx_init() */
		d->ctx->ntsc = d->ntsc;
	return 1;
}

/* 1 when --guest-tsc or an inference already gave @vmcs its TSC. */
static int dvmx_tsc_known(const struct decode_vmx *d, uint64_t vmcs)
{
	unsigned int i;

	for (i = 0; i < d->ntsc; i++)
		if (d->tsc[i].vmcs == vmcs)
			return 1;
	for (i = 0; i < d->ntsc_failed; i++)
		if (d->tsc_failed[i] == vmcs)
			return 1;
	return 0;
}

/*
 * Whether the guest TSC packet @i (of @m[@n]) converted with @c lies
 * between the host TSC packets before and after it, give or take
 * DVMX_TSC_SLACK; -1: no host TSC packet on either side to tell.
 */
static int dvmx_tsc_fits(const struct dvmx_mark *m, size_t n, size_t i,
			 const struct vmx_guest_tsc *c)
{
	uint64_t h = vmx_guest_to_host(c, 1, c->vmcs, m[i].raw);
	size_t j;
	int sides = 0;

	for (j = i; j-- > 0;)
		if (!m[j].nr) {
			if (h + DVMX_TSC_SLACK < m[j].raw)
				return 0;
			sides++;
			break;
		}
	for (j = i + 1; j < n; j++)
		if (!m[j].nr) {
			if (h > m[j].raw + DVMX_TSC_SLACK)
				return 0;
			sides++;
			break;
		}
	return sides ? 1 : -1;
}

int dvmx_tsc_infer(const struct dvmx_mark *m, size_t n, uint64_t vmcs,
		   const struct dvmx_vcpu *v, unsigned int nv)
{
	unsigned int k, l;
	int found = -1;

	for (k = 0; k < nv; k++) {
		struct vmx_guest_tsc c = {
			.vmcs = vmcs, .offset = v[k].offset, .ratio = v[k].ratio,
		};
		unsigned int probes = 0;
		size_t i;
		int fit = 1;

		for (l = 0; l < k; l++)	/* one VM's vCPUs count as one */
			if (v[l].offset == c.offset && v[l].ratio == c.ratio)
				break;
		if (l < k)
			continue;
		for (i = 0; i < n && fit && probes < DVMX_TSC_PROBES; i++) {
			int r;

			if (!m[i].nr || m[i].vmcs != vmcs)
				continue;
			r = dvmx_tsc_fits(m, n, i, &c);
			if (r < 0)
				continue;
			fit = r;
			probes++;
		}
		if (!fit || !probes)
			continue;
		if (found >= 0)
			return -2;
		found = (int)k;
	}
	return found;
}

/* The vCPU of each guest VMCS in @out that has no TSC conversion yet. */
static void dvmx_tsc_infer_all(struct decode_vmx *d,
			       const struct dvmx_marks *out)
{
	const struct dvmx_vcpu *v;
	unsigned int same, l;
	size_t i;
	int k;

	for (i = 0; i < out->n; i++) {
		uint64_t vmcs = out->m[i].vmcs;

		if (!out->m[i].nr || vmcs == VMX_VMCS_NONE ||
		    dvmx_tsc_known(d, vmcs))
			continue;
		k = dvmx_tsc_infer(out->m, out->n, vmcs, d->vcpu, d->nvcpu);
		if (k < 0 || d->ntsc == DVMX_MAX_TSC) {
			if (d->ntsc_failed < DVMX_MAX_TSC)
				d->tsc_failed[d->ntsc_failed++] = vmcs;
			ptt_warn("guest VMCS 0x%llx: the recording's KVM vCPUs have different TSC offsets or ratios and %s of them fits this guest's timestamps: its times stay guest TSC; give --guest-tsc VMCS:OFFSET:RATIO per guest (pt-trace contexts lists the VMCS bases)",
				 (unsigned long long)vmcs,
				 k == -2 ? "more than one" : "none");
			continue;
		}
		v = &d->vcpu[k];
		for (same = 0, l = 0; l < d->nvcpu; l++)
			same += d->vcpu[l].offset == v->offset &&
				d->vcpu[l].ratio == v->ratio;
		d->tsc[d->ntsc].vmcs = vmcs;
		d->tsc[d->ntsc].offset = v->offset;
		d->tsc[d->ntsc].ratio = v->ratio;
		d->ntsc++;
		if (same > 1)
			ptt_warn("guest VMCS 0x%llx: TSC offset/ratio of vCPU %s (and %u more of its VM), inferred from its timestamps",
				 (unsigned long long)vmcs, v->name, same - 1);
		else
			ptt_warn("guest VMCS 0x%llx: TSC offset/ratio of vCPU %s, inferred from its timestamps",
				 (unsigned long long)vmcs, v->name);
	}
	if (d->ctx)
		d->ctx->ntsc = d->ntsc;
}

struct dvmx_tsc_walk {
	struct dvmx_marks *out;
	uint64_t vmcs;
	size_t cap, pend;
	int nr, in_psb;
};

/*
 * The context of each TSC packet from the PIPs and VMCS packets before it,
 * in one pass: in PSB+ the TSC comes before the VMCS and PIP that repeat
 * the context it is in.
 */
static int dvmx_tsc_packet(void *arg, const struct pt_packet *pkt,
			   uint64_t off, int err)
{
	struct dvmx_tsc_walk *w = arg;
	struct dvmx_marks *out = w->out;

	if (err)
		return 0;
	if (pkt->type == ppt_vmcs)
		w->vmcs = pkt->payload.vmcs.base;
	else if (pkt->type == ppt_pip)
		w->nr = pkt->payload.pip.nr;
	else if (pkt->type == ppt_psb)
		w->in_psb = 1;
	/*
	 * A TSC in PSB+ is of the context the PSB+'s own VMCS and PIP
	 * (after it) name: the first PSB+ of a trace may lie in a
	 * guest, with no PIP before it.
	 */
	if (pkt->type == ppt_psbend) {
		if (w->pend < out->n) {
			out->m[w->pend].nr = w->nr;
			out->m[w->pend].vmcs = w->vmcs;
		}
		w->pend = SIZE_MAX;
		w->in_psb = 0;
	}
	if (pkt->type != ppt_tsc)
		return 0;
	if (out->n == w->cap) {
		struct dvmx_mark *m;

		w->cap = w->cap ? 2 * w->cap : 1024;
		m = realloc(out->m, w->cap * sizeof(*m));
		if (!m)
			return 1;
		out->m = m;
	}
	if (w->in_psb)
		w->pend = out->n;
	out->m[out->n].off = off;
	out->m[out->n].raw = pkt->payload.tsc.tsc;
	out->m[out->n].nr = w->nr;
	out->m[out->n++].vmcs = w->vmcs;
	return 0;
}

void dvmx_scan_tsc(struct decode_vmx *d, const uint8_t *buf, size_t len,
		   struct dvmx_marks *out)
{
	struct dvmx_tsc_walk w = {
		.out = out, .vmcs = VMX_VMCS_NONE, .pend = SIZE_MAX,
	};
	size_t i;

	memset(out, 0, sizeof(*out));
	if (!d->ntsc && !d->vcpu_differ)
		return;
	pkt_walk_mapped(buf, len, dvmx_tsc_packet, &w);
	if (d->vcpu_differ)
		dvmx_tsc_infer_all(d, out);
	for (i = 0; i < out->n; i++)
		out->m[i].host = out->m[i].nr ?
			vmx_guest_to_host(d->tsc, d->ntsc, out->m[i].vmcs,
					  out->m[i].raw) : out->m[i].raw;
}
