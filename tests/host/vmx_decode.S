# SPDX-License-Identifier: GPL-2.0
# The host of vmx_decode.py's traces, linked at 0x401000 (tests/host/run,
# decode-vmx): it loads a VMCS, enters the guest, and after the VM exit
# (to 1:) does it again.  The guests' code lies at the same addresses.
	.text
	.globl h
h:	vmptrld (%rax)
	vmresume
1:	nop
	jmp h
