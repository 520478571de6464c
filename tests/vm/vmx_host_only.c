// SPDX-License-Identifier: GPL-2.0
/*
 * Host-only tracing (model_vmx=2, SDM 36.5.2.2): the model's VMs run on
 * the traced CPU but only the host is traced, and the trace, read with
 * libipt's packet decoder, shows exactly Table 36-48:
 *  - each VM entry is TIP.PGD with no IP; the next packet is the VM exit:
 *    MODE.Exec(64-bit) only when coming back from 32-bit VM B (CS.L
 *    changes), then TIP.PGE naming the host IP the entry left;
 *  - no PIP has NR set and no IP lies in a VM's code;
 *  - VMPTRLD still sends VMCS packets (36.5.2.2), naming the two VMs.
 */
#include "vmx_common.h"

int main(void)
{
	struct pt_trace_caps caps;
	struct vx_trace t;
	unsigned long visits[2] = { 0 }, bad = 0, pip_nr = 0, guest_ips = 0;
	unsigned long vmptrld[2] = { 0 }, bad_vmcs = 0;
	__u64 vmcs = 0, last_ip = 0;
	size_t i, j;

	vx_trace("2", "0", "0", PT_CTL_OS | PT_CTL_USER | PT_CTL_BRANCHEN,
		 PT_CTL_OS | PT_CTL_USER | PT_CTL_BRANCHEN | PT_CTL_CR3FILTER,
		 &caps, &t);
	for (i = 0; i < t.n; i++) {
		const struct vx_pkt *p = &t.v[i], *n;
		int vm;

		if (p->has_ip && vx_vm_of_ip(p->ip))
			guest_ips++;
		if (p->p.type == ppt_pip && p->p.payload.pip.nr)
			pip_nr++;
		if (p->p.type == ppt_vmcs) {
			vmcs = p->p.payload.vmcs.base;
			vm = vx_vm_of_vmcs(vmcs);
			if (!p->in_psb && vm)
				vmptrld[vm - 'A']++;
			else if (!p->in_psb || (!vm && vmcs != VX_VMCS_NONE))
				bad_vmcs++;
		}
		if (p->p.type != ppt_tip_pgd) {
			if (p->has_ip)
				last_ip = p->ip;
			continue;
		}
		vm = vx_vm_of_vmcs(vmcs);
		j = i;
		n = vx_next(&t, &j);
		if (!n && !p->has_ip)
			break;		/* STOP's TIP.PGD ends the trace */
		if (p->has_ip || !vm) {
			if (bad++ < 5)
				fprintf(stderr, "PTT-INFO TIP.PGD at %zu: ip %d, vmcs %#llx\n",
					i, p->has_ip, (unsigned long long)vmcs);
			continue;
		}
		if (vm == 'B') {
			if (!n || n->p.type != ppt_mode ||
			    n->p.payload.mode.leaf != pt_mol_exec ||
			    !n->p.payload.mode.bits.exec.csl) {
				if (bad++ < 5)
					fprintf(stderr,
						"PTT-INFO exit from B at %zu: no MODE.Exec\n",
						j);
				continue;
			}
			n = vx_next(&t, &j);
		}
		if (!n || n->p.type != ppt_tip_pge || !n->has_ip ||
		    n->ip != last_ip) {
			if (bad++ < 5)
				fprintf(stderr,
					"PTT-INFO exit from %c at %zu: %d %#llx, want TIP.PGE(%#llx)\n",
					vm, j, n ? (int)n->p.type : -1,
					n ? (unsigned long long)n->ip : 0ULL,
					(unsigned long long)last_ip);
			continue;
		}
		visits[vm - 'A']++;
		last_ip = n->ip;
		i = j;
	}
	fprintf(stderr,
		"PTT-INFO %zu packets: visits A %lu B %lu, VMPTRLD A %lu B %lu; %lu bad sequences, %lu guest IPs, %lu PIP.NR, %lu bad VMCS\n",
		t.n, visits[0], visits[1], vmptrld[0], vmptrld[1], bad,
		guest_ips, pip_nr, bad_vmcs);
	CHECK(bad == 0, "%lu VM entries/exits not as Table 36-48", bad);
	CHECK(visits[0] && visits[1], "a VM never ran");
	CHECK(vmptrld[0] && vmptrld[1], "no VMCS packet on VMPTRLD");
	CHECK(guest_ips == 0, "%lu guest IPs in a host-only trace", guest_ips);
	CHECK(pip_nr == 0, "%lu PIPs with NR in a host-only trace", pip_nr);
	CHECK(bad_vmcs == 0, "%lu VMCS packets naming no VM", bad_vmcs);
	free(t.v);
	return ptt_done();
}
