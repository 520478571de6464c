// SPDX-License-Identifier: GPL-2.0
/*
 * model_vmx: the model plays a hypervisor running guests on a CPU in VMX
 * operation (the vmx hook set CR4.VMXE there, agents.c).  While TraceEn=1
 * every tick of such a CPU is a VM visit: the host runs half the tick's
 * bytes at the sampled IP, loads a VMCS when the VM changes (VMPTRLD),
 * enters the guest, the guest runs, and a VM exit returns to the sampled
 * host IP.  What the trace shows of it depends on how the (simulated)
 * VMM set up PT (SDM Vol. 3C 36.5.2):
 *
 * The packets of the transitions are vmx_enc.c's, shared with tests/host:
 *
 *   1 system-wide: the guest is traced like the host.  VMPTRLD sends VMCS
 *     (TriggerEn && ContextEn, 36.4.2.15); the entry is a far branch:
 *     PIP(guest CR3, NR=1), MODE.Exec when CS.L changes, TIP(guest IP)
 *     (TIP.PGE/TIP.PGD when PacketEn changes); the exit is an
 *     asynchronous event: FUP(guest IP), PIP(host CR3, NR=0), MODE.Exec,
 *     TIP(host IP).  Every PSB+ carries the loaded VMCS (all ones before
 *     one is loaded) and, in the guest, PIP with NR=1.  The guest's TSC
 *     packets carry the guest's TSC, host TSC * ratio / 2^48 + offset
 *     (model_vmx_tsc_ratio/offset, KVM's format); MTC and TMA's CTC count
 *     the crystal clock, which no VMM scales (36.5.2.6).
 *   2 host-only (Table 36-48): the entry sends TIP.PGD() and nothing is
 *     traced in the guest; the exit sends TIP.PGE(host IP), preceded by
 *     MODE.Exec only when CS.L changes across it.  VMPTRLD still sends
 *     VMCS, PSB+ still carries it (36.5.2.2).
 *
 * Two VMs, each with one vCPU (Documentation/model.rst lists them): VM A
 * is 64-bit user code whose CR3 is the host's own (a collision only the
 * VMCS and PIP.NR tell apart), VM B 32-bit user code (CS.L=0).  Their IPs
 * lie in ranges no host code uses, so a test can tell guest from host.
 *
 * Their code is one 16-byte block repeated over each VM's 64 KiB, the
 * same instructions in 64-bit and 32-bit mode:
 *   +0   74 00  jz .+2       six of them: a TNT bit each, taken or not
 *                            the next instruction
 *   +12  ff e0  jmp *%rax    (%eax in VM B) to another block: a TIP
 *   +14  0f 0b  ud2          never reached
 * and a guest step (generator.c) walks it: the six JZ of the block the
 * guest is in, its JMP to another block, that block's six JZ and its JMP
 * back.  So every guest instruction decodes with these bytes as the
 * guest's image (debugfs vmx_guest_code, a test's --guest-image), and a
 * PSB+'s FUP and the exit's FUP are at a block's start, where a decoder
 * is.  No PTWRITE, TSX or power events in a guest: the code has none.
 */
#include <linux/debugfs.h>
#include <linux/math64.h>
#include <linux/moduleparam.h>
#include <linux/pt_trace.h>
#include <linux/sizes.h>
#include <linux/string.h>

#include "../regs.h"
#include "model.h"
#include "vmx_enc.h"

static unsigned int pt_model_vmx;
static long pt_model_vmx_tsc_offset;
static unsigned long pt_model_vmx_tsc_ratio;	/* 0: 1.0 */

static int pt_model_vmx_set(const char *val, const struct kernel_param *kp)
{
	return pt_model_set_ranged(val, kp, 0, PT_MODEL_VMX_HOST, false);
}

static const struct kernel_param_ops pt_model_vmx_ops = {
	.set	= pt_model_vmx_set,
	.get	= param_get_uint,
};

module_param_cb(model_vmx, &pt_model_vmx_ops, &pt_model_vmx, 0644);
MODULE_PARM_DESC(model_vmx,
		 "model: guests run on CPUs in VMX operation (vmx hook): 0 none, 1 system-wide tracing, 2 host-only tracing (SDM Table 36-48)");
module_param_named(model_vmx_tsc_offset, pt_model_vmx_tsc_offset, long, 0644);
MODULE_PARM_DESC(model_vmx_tsc_offset,
		 "model_vmx: the guests' TSC offset (added after scaling)");
module_param_named(model_vmx_tsc_ratio, pt_model_vmx_tsc_ratio, ulong, 0644);
MODULE_PARM_DESC(model_vmx_tsc_ratio,
		 "model_vmx: the guests' TSC multiplier, 48 fraction bits as KVM's tsc-scaling-ratio (0: 1.0)");

struct pt_model_vm {
	u64 vmcs;		/* VMCS base, 4 KiB aligned */
	u64 ip;			/* 64 KiB aligned: its code lies in [ip, ip + 64K) */
	u64 cr3;		/* 0: the host's CR3 (a collision) */
	bool csl;
};

static const struct pt_model_vm pt_model_vms[] = {
	{ .vmcs = 0x12345000, .ip = 0x0000100000000000ULL, .cr3 = 0,
	  .csl = true },
	{ .vmcs = 0x6789a000, .ip = 0x08040000, .cr3 = 0x76543000,
	  .csl = false },
};

unsigned int pt_model_vmx_mode(const struct pt_model_regs *r)
{
	return r->vmxe ? READ_ONCE(pt_model_vmx) : PT_MODEL_VMX_OFF;
}

/* The TSC a traced guest sees (SDM 25.3 "TSC scaling", then offset). */
u64 pt_model_vmx_tsc(const struct pt_ctx *c, u64 tsc)
{
	u64 ratio = READ_ONCE(pt_model_vmx_tsc_ratio);

	if (!c->guest)
		return tsc;
	if (ratio)
		tsc = mul_u64_u64_shr(tsc, ratio, 48);
	return tsc + READ_ONCE(pt_model_vmx_tsc_offset);
}

/* The VMCS a PSB+ names: the loaded one, all ones before any. */
u64 pt_model_vmx_psb_vmcs(const struct pt_model_state *s)
{
	return s->vmx.vmcs ? s->vmx.vmcs : GENMASK_ULL(51, 12);
}

/*
 * Choose the VM of this visit (each runs two visits in a row, so a
 * VMPTRLD comes every other entry) and load its VMCS; fill in the guest's
 * context.  The guest IP is a block's start somewhere in the VM's 64 KiB,
 * from the generator's LFSR (part of the state: a redone tick repeats it).
 */
void pt_model_vmx_enter(struct pt_model_state *s, struct pt_pkt_buf *b,
			const struct pt_ctx *host, bool host_ctx_en,
			struct pt_ctx *g)
{
	const struct pt_model_vm *vm;

	vm = &pt_model_vms[(s->vmx.visits++ >> 1) % ARRAY_SIZE(pt_model_vms)];
	if (s->vmx.vmcs != vm->vmcs) {
		pt_vmx_enc_vmptrld(b, host_ctx_en, vm->vmcs);
		s->vmx.vmcs = vm->vmcs;
	}
	s->lfsr ^= s->lfsr << 7;
	g->ip = vm->ip + ((s->lfsr >> 20) &
			  (PT_MODEL_VM_CODE_SIZE - PT_MODEL_VMX_BLOCK));
	g->cr3 = vm->cr3 ? vm->cr3 : host->cr3;
	g->user = true;
	g->csl = vm->csl;
	g->guest = true;
}

/* The encoder's view of this CPU in @mode (vmx_enc.h). */
static void pt_vmx_enc_load(struct pt_vmx_enc *e, unsigned int mode,
			    const struct pt_model_state *s)
{
	e->os = s->regs.ctl & PT_CTL_OS;
	e->branch_en = s->regs.ctl & PT_CTL_BRANCHEN;
	e->host_only = mode == PT_MODEL_VMX_HOST;
	e->no_entry_pip = pt_model_prof->vmx_entry_no_pip;
	e->packet_en = s->packet_en;
	e->last_cr3 = s->last_cr3;
}

static void pt_vmx_enc_store(const struct pt_vmx_enc *e,
			     struct pt_model_state *s)
{
	s->packet_en = e->packet_en;
	s->last_cr3 = e->last_cr3;
}

/*
 * The packets of the VM entry from @host to @g.  Returns whether the
 * guest is traced (its packets follow).
 */
bool pt_model_vmx_entry(unsigned int mode, struct pt_model_state *s,
			struct pt_pkt_buf *b, const struct pt_ctx *host,
			const struct pt_ctx *g, bool g_ctx_en, bool g_pe)
{
	struct pt_vmx_enc e;
	bool traced;

	pt_vmx_enc_load(&e, mode, s);
	traced = pt_vmx_enc_entry(&e, b, host, g, g_ctx_en, g_pe);
	pt_vmx_enc_store(&e, s);
	if (traced)
		s->seen_cr3 = g->cr3;
	return traced;
}

/* The packets of the VM exit from @g back to @host. */
void pt_model_vmx_exit(unsigned int mode, struct pt_model_state *s,
		       struct pt_pkt_buf *b, const struct pt_ctx *host,
		       const struct pt_ctx *g, bool h_ctx_en, bool h_pe)
{
	struct pt_vmx_enc e;

	pt_vmx_enc_load(&e, mode, s);
	pt_vmx_enc_exit(&e, b, host, g, h_ctx_en, h_pe);
	pt_vmx_enc_store(&e, s);
	if (mode != PT_MODEL_VMX_HOST)
		s->seen_cr3 = host->cr3;
}

static const u8 pt_vmx_block[PT_MODEL_VMX_BLOCK] = {
	0x74, 0x00, 0x74, 0x00, 0x74, 0x00, 0x74, 0x00, 0x74, 0x00, 0x74, 0x00,
	0xff, 0xe0, 0x0f, 0x0b,
};

/* debugfs vmx_guest_code: a VM's 64 KiB of code, the block repeated. */
static u8 pt_vmx_code[PT_MODEL_VM_CODE_SIZE];
static struct debugfs_blob_wrapper pt_vmx_code_blob = {
	.data = pt_vmx_code,
	.size = sizeof(pt_vmx_code),
};

void pt_model_vmx_debugfs_init(struct dentry *dir)
{
	unsigned int i;

	for (i = 0; i < sizeof(pt_vmx_code); i += PT_MODEL_VMX_BLOCK)
		memcpy(pt_vmx_code + i, pt_vmx_block, PT_MODEL_VMX_BLOCK);
	debugfs_create_blob("vmx_guest_code", 0444, dir, &pt_vmx_code_blob);
}
