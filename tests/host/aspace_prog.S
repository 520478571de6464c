/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Two programs for the decode-aspaces test: built once with -DPROG_A and
 * once without, each linked at 0x401000, so that the same address holds
 * different code in the two processes of aspace_trace.py's recording.
 */
	.text
#ifdef PROG_A
	.globl	proga_f
	.type	proga_f, @function
proga_f:
	mov	$39, %eax
	add	%eax, %eax
	syscall
	.size	proga_f, . - proga_f
#else
	.globl	progb_f
	.type	progb_f, @function
progb_f:
	xor	%eax, %eax
	nop
	nop
	inc	%eax
	syscall
	.size	progb_f, . - progb_f
#endif
	.section .note.GNU-stack, "", @progbits
