// SPDX-License-Identifier: GPL-2.0
/*
 * System-wide tracing with guests (model_vmx=1, SDM 36.5.2.1): the host
 * traces its CPU while the model's two VMs run on it, and the trace,
 * read with libipt's packet decoder, keeps them apart:
 *  - the first PSB+ names the all-ones VMCS (none loaded since VMXON);
 *  - every IP named after a PIP with NR=1 lies in the code of the VM whose
 *    VMCS the last VMCS packet named, every other IP in neither VM's;
 *  - VM A's CR3 equals a CR3 the host announced (the collision): only
 *    PIP.NR and the VMCS tell them apart;
 *  - entries are PIP(NR=1), MODE.Exec only into 32-bit VM B, TIP(guest);
 *    exits FUP(guest), PIP(NR=0), MODE.Exec only out of VM B, TIP(host);
 *  - the guests' TSC packets (offset 2^40, ratio 1.5) converted to host
 *    time, (TSC - offset) * 2^48 / ratio, land within one MTC period of
 *    the host time that the last host TSC and the crystal clock (TMA)
 *    give; unconverted they would not.
 */
#include "vmx_common.h"

#define OFFSET		BIT_ULL(40)
#define RATIO		(3ULL << 47)		/* 1.5 */
#define TSC_MASK	((1ULL << 56) - 1)

struct ref {
	__u64 tsc;
	__u16 ctc;
	int valid;
};

struct count {
	unsigned long ips[3];	/* host, A, B */
	unsigned long entries[2], exits[2], collisions;
	unsigned long bad_ip, bad_seq, timed, bad_time;
	unsigned long psbs[3];	/* without PIP, host, guest */
};

static int is_mode_exec(const struct vx_pkt *k, int csl)
{
	return k && k->p.type == ppt_mode && k->p.payload.mode.leaf == pt_mol_exec &&
	       k->p.payload.mode.bits.exec.csl == csl;
}

/* After a PIP outside PSB+ at @i: the rest of the entry or exit. */
static void check_transition(const struct vx_trace *t, size_t i, int vm,
			     struct count *c)
{
	const struct vx_pkt *k = &t->v[i];
	int nr = k->p.payload.pip.nr, want_vm = nr ? vm : 0;
	const struct vx_pkt *n;

	if (!nr && !(i && t->v[i - 1].p.type == ppt_fup &&
		     vx_vm_of_ip(t->v[i - 1].ip) == vm && vm)) {
		c->bad_seq++;
		fprintf(stderr, "PTT-INFO exit PIP at %zu without FUP(guest)\n", i);
		return;
	}
	n = vx_next(t, &i);
	/* CS.L changes only into and out of 32-bit VM B. */
	if (vm == 'B') {
		if (!is_mode_exec(n, !nr)) {
			c->bad_seq++;
			fprintf(stderr, "PTT-INFO %s VM B at %zu: no MODE.Exec\n",
				nr ? "entry to" : "exit from", i);
			return;
		}
		n = vx_next(t, &i);
	}
	if (!n || n->p.type != ppt_tip || !n->has_ip ||
	    vx_vm_of_ip(n->ip) != want_vm) {
		c->bad_seq++;
		fprintf(stderr, "PTT-INFO %s VM %c at %zu: type %d ip %#llx\n",
			nr ? "entry to" : "exit from", vm, i, n ? (int)n->p.type : -1,
			n ? (unsigned long long)n->ip : 0ULL);
		return;
	}
	if (nr)
		c->entries[vm - 'A']++;
	else
		c->exits[vm - 'A']++;
}

/*
 * The guests' PSB+ since the last host PSB+, converted to host time,
 * and the crystal clock (TMA's CTC) there.
 */
struct timing {
	struct ref host;
	__u64 conv[64];
	__u16 ctc[64];
	unsigned int npend;
	__u64 num, den;		/* TSC per crystal tick: CPUID 0x15 EBX/EAX */
	__u64 period;		/* one MTC period in TSC ticks */
};

/* A guest TSC in host time: KVM's scaling and offset undone. */
static __u64 to_host(__u64 guest_tsc)
{
	unsigned __int128 t = (guest_tsc - OFFSET) & TSC_MASK;

	return (__u64)((t << 48) / RATIO);
}

/*
 * A host PSB+ (@now): each guest PSB+ since the previous host one must
 * convert to a time between the two host TSCs, and to the time the
 * previous host TSC plus the crystal ticks since it (TMA) give, within
 * one MTC period; the CTC's 16 bits wrap, the bracket tells how often.
 */
static void check_times(struct timing *tm, const struct ref *now,
			struct count *c)
{
	__u64 wrap = (1ULL << 16) * tm->num / tm->den, est, k;
	const struct ref *h = &tm->host;
	unsigned int i;

	for (i = 0; h->valid && i < tm->npend; i++) {
		__u64 conv = tm->conv[i];
		__u16 d = tm->ctc[i] - h->ctc;

		c->timed++;
		est = h->tsc + (__u64)d * tm->num / tm->den;
		k = conv > est ? (conv - est + wrap / 2) / wrap : 0;
		est += k * (1ULL << 16) * tm->num / tm->den;
		if (conv < h->tsc || conv > now->tsc ||
		    (est > conv ? est - conv : conv - est) > tm->period) {
			c->bad_time++;
			fprintf(stderr,
				"PTT-INFO guest TSC -> %llu; host %llu..%llu, %llu by CTC\n",
				(unsigned long long)conv,
				(unsigned long long)h->tsc,
				(unsigned long long)now->tsc,
				(unsigned long long)est);
		}
	}
	tm->npend = 0;
	tm->host = *now;
}

int main(void)
{
	struct pt_trace_caps caps;
	struct vx_trace t;
	struct count c = { 0 };
	__u64 host_cr3[64], vmcs = 0;
	unsigned int nhost = 0, freq, k;
	int nr = -1, was_nr, vm = 0, last_vm = 0, psb_nr = -1;
	struct ref psb = { 0 };
	struct timing tm = { 0 };
	size_t i;
	char off[32], ratio[32];

	snprintf(off, sizeof(off), "%llu", OFFSET);
	snprintf(ratio, sizeof(ratio), "%llu", RATIO);
	/*
	 * PSB+ every 8 KiB: with 2 KiB ticks that starts each at a
	 * different place of a tick, in the host's half or the guest's.
	 */
	vx_trace("1", off, ratio,
		 PT_CTL_OS | PT_CTL_USER | PT_CTL_BRANCHEN | PT_CTL_TSCEN |
		 PT_CTL_MTCEN | 2ULL << PT_CTL_PSBFREQ_SHIFT,
		 PT_CTL_OS | PT_CTL_USER | PT_CTL_BRANCHEN | PT_CTL_TSCEN |
		 PT_CTL_MTCEN | PT_CTL_MTCFREQ_MASK | PT_CTL_CR3FILTER |
		 PT_CTL_PSBFREQ_MASK,
		 &caps, &t);
	freq = vx_mtc_freq(&caps);
	tm.num = caps.cpuid_15[1];
	tm.den = caps.cpuid_15[0];
	REQUIRE(tm.den && tm.num, "no CPUID 0x15 ratio");
	/* One MTC period, and no less than the CTC's two truncations. */
	tm.period = (1ULL << freq) * tm.num / tm.den;
	if (tm.period < 2 * tm.num / tm.den + 1)
		tm.period = 2 * tm.num / tm.den + 1;

	REQUIRE(t.v[0].p.type == ppt_psb, "the walk starts at PSB");
	for (i = 0; i < t.n && t.v[i].p.type != ppt_vmcs; i++)
		if (t.v[i].p.type == ppt_psbend)
			break;
	CHECK(i < t.n && t.v[i].p.type == ppt_vmcs &&
	      t.v[i].p.payload.vmcs.base == VX_VMCS_NONE,
	      "the first PSB+ names no all-ones VMCS");

	for (i = 0; i < t.n; i++) {
		const struct vx_pkt *p = &t.v[i];

		switch (p->p.type) {
		case ppt_psb:
			psb.valid = 0;
			psb_nr = -1;
			break;
		case ppt_tsc:
			psb.tsc = p->p.payload.tsc.tsc;
			psb.valid = p->in_psb;
			break;
		case ppt_tma:
			psb.ctc = p->p.payload.tma.ctc;
			break;
		case ppt_vmcs:
			vmcs = p->p.payload.vmcs.base;
			break;
		case ppt_pip:
			was_nr = nr;
			nr = p->p.payload.pip.nr;
			vm = nr ? vx_vm_of_vmcs(vmcs) : 0;
			if (p->in_psb) {
				psb_nr = nr;
				break;
			}
			if (!nr) {
				for (k = 0; k < nhost; k++)
					if (host_cr3[k] == p->p.payload.pip.cr3)
						break;
				if (k == nhost && nhost < 64)
					host_cr3[nhost++] = p->p.payload.pip.cr3;
				/* Else a MOV CR3 in the host. */
				if (was_nr == 1)
					check_transition(&t, i, last_vm, &c);
			} else {
				for (k = 0; k < nhost; k++)
					c.collisions += vm == 'A' &&
						host_cr3[k] == p->p.payload.pip.cr3;
				check_transition(&t, i, vm, &c);
			}
			last_vm = vm;
			break;
		case ppt_psbend:
			c.psbs[psb_nr + 1]++;
			if (!psb.valid || psb_nr < 0)
				break;
			if (!psb_nr) {
				check_times(&tm, &psb, &c);
			} else if (tm.host.valid && tm.npend < 64) {
				tm.conv[tm.npend] = to_host(psb.tsc);
				tm.ctc[tm.npend++] = psb.ctc;
			}
			break;
		default:
			break;
		}
		if (!p->has_ip || nr < 0)
			continue;
		if (vx_vm_of_ip(p->ip) != (nr ? vm : 0)) {
			if (c.bad_ip++ < 5)
				fprintf(stderr,
					"PTT-INFO packet %zu (%d): ip %#llx, nr %d, vmcs %#llx\n",
					i, p->p.type, (unsigned long long)p->ip,
					nr, (unsigned long long)vmcs);
		} else {
			c.ips[nr ? vm - 'A' + 1 : 0]++;
		}
	}
	fprintf(stderr, "PTT-INFO PSB+: %lu host, %lu guest, %lu without PIP\n",
		c.psbs[1], c.psbs[2], c.psbs[0]);
	fprintf(stderr,
		"PTT-INFO %zu packets; IPs host %lu A %lu B %lu; entries A %lu B %lu; exits A %lu B %lu; %lu CR3 collisions; guest TSCs %lu checked, %lu wrong; %lu bad IPs, %lu bad sequences\n",
		t.n, c.ips[0], c.ips[1], c.ips[2], c.entries[0], c.entries[1],
		c.exits[0], c.exits[1], c.collisions, c.timed,
		c.bad_time, c.bad_ip, c.bad_seq);
	CHECK(c.bad_ip == 0, "%lu IPs in the wrong context", c.bad_ip);
	CHECK(c.bad_seq == 0, "%lu VM entries/exits not as SDM 36.7 has them",
	      c.bad_seq);
	CHECK(c.ips[0] && c.ips[1] && c.ips[2], "a context without IPs");
	CHECK(c.entries[0] && c.entries[1] && c.exits[0] && c.exits[1],
	      "no entry to or exit from a VM");
	CHECK(c.collisions > 0, "VM A's CR3 never equalled the host's");
	CHECK(c.timed >= 3, "only %lu guest TSC packets between host ones",
	      c.timed);
	CHECK(c.bad_time == 0, "%lu guest TSCs off the host's time",
	      c.bad_time);
	free(t.v);
	return ptt_done();
}
