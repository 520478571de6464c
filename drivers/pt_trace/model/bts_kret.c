// SPDX-License-Identifier: GPL-2.0
/*
 * Where the kernel returns to user mode, for BTS's records of those
 * returns (bts_exact.c): the SYSRET that its SYSCALL entry (IA32_LSTAR)
 * ends with, and the IRET that its exception entries end with when they
 * return to user mode.  A return to user mode is a branch whose record
 * goes from that instruction (a kernel address) to the user IP; the
 * model sees the return only by its effect (the stepped task runs user
 * code again), so it finds the two instructions once, when exact mode is
 * hooked, by walking the kernel's live (patched) entry code with its own
 * decoder (insn_decode.c): direct jumps followed, both ways of a
 * conditional branch (the straight path first), calls stepped over, a
 * path ending at RET, an indirect jump, UD2, INT3 or an undecodable
 * byte.  On Debian's 6.1 and 6.12 the walk from IA32_LSTAR finds the
 * SYSRETQ before entry_SYSRETQ_end, and the one from the page-fault gate
 * native_irq_return_iret (tests/vm/bts_exact_signal.c checks both against
 * /proc/kallsyms).
 */
#include <linux/kernel.h>
#include <linux/pt_trace.h>
#include <linux/uaccess.h>
#include <asm/desc.h>
#include <asm/msr.h>
#include <asm/trapnr.h>

#include "model.h"

/* Instructions decoded at most per walk, conditional targets kept. */
#define PT_KRET_BUDGET	4096
#define PT_KRET_PATHS	64

u64 pt_model_kret_sysret, pt_model_kret_iret;

/* The first instruction of class @cls on a path from @ip; 0: none. */
static u64 pt_kret_find(u64 ip, unsigned int cls)
{
	unsigned int sp = 0, budget = PT_KRET_BUDGET;
	u64 paths[PT_KRET_PATHS];
	u8 buf[PT_INSN_MAX_LEN];
	struct pt_insn in;

	while (budget--) {
		if (copy_from_kernel_nofault(buf, (const void *)(unsigned long)ip,
					     sizeof(buf)) ||
		    pt_insn_decode(buf, sizeof(buf), &in) <= 0)
			goto next_path;
		if (in.cls == cls)
			return ip;
		switch (in.cls) {
		case PT_INSN_JMP:
			ip = pt_insn_target(ip, &in);
			continue;
		case PT_INSN_JCC:
		case PT_INSN_LOOP:
		case PT_INSN_JRCXZ:
			if (sp < PT_KRET_PATHS)
				paths[sp++] = pt_insn_target(ip, &in);
			break;
		case PT_INSN_OTHER:
		case PT_INSN_CALL:
		case PT_INSN_CALL_IND:
			break;
		default:
			goto next_path;
		}
		ip += in.len;
		continue;
next_path:
		if (!sp)
			return 0;
		ip = paths[--sp];
	}
	return 0;
}

void pt_model_kret_init(void)
{
	struct desc_ptr dt;
	u64 lstar;

	if (pt_model_kret_sysret && pt_model_kret_iret)
		return;
	rdmsrl(MSR_LSTAR, lstar);
	pt_model_kret_sysret = pt_kret_find(lstar, PT_INSN_SYSRET);
	store_idt(&dt);
	if (dt.size + 1UL >= (X86_TRAP_PF + 1) * sizeof(gate_desc))
		pt_model_kret_iret =
			pt_kret_find(gate_offset((const gate_desc *)dt.address +
						 X86_TRAP_PF), PT_INSN_IRET);
	if (!pt_model_kret_sysret || !pt_model_kret_iret)
		pr_notice("model: exact mode: the kernel's return to user mode not found (SYSRET %llx, IRET %llx): BTS stores no record of it\n",
			  pt_model_kret_sysret, pt_model_kret_iret);
}
