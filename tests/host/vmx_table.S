# SPDX-License-Identifier: GPL-2.0
# The host of vmx_table.c's traces, linked at 0x401000 (tests/host/run,
# vmx-table): it loads a VMCS, enters a guest and, after the VM exit (to
# 1:), does it again.  The REX-prefixed mov decodes to other instruction
# boundaries as 32-bit code: a missing MODE.Exec shows.
	.text
	.globl h
h:	vmptrld (%rax)
	vmresume
1:	mov %rax, %rax
	jmp h
