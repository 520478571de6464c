# SPDX-License-Identifier: GPL-2.0
# decode_cases.py traces this code, linked at 0x401000 (the nops, a jump
# to itself, a call back to the start, a loop of direct branches with a
# call in it, a loop through an indirect jump, then nothing mapped)
# (tests/host/run, decode-ptxed-*, decode-block-*).
	.text
	.globl f
f:	xor %eax, %eax
	jz 1f
1:	nop
	nop
	.globl spin
spin:	jmp spin	# 0x401006: decode-ptxed-loop's spin.pt
	.globl leave
leave:	call f		# 0x401008: decode-ptxed-skl014's call out of the filter
	.globl spincall
spincall:		# 0x40100d: decode-block-loop's spincall.pt
	nop
	call 1f		# a direct call inside the loop
1:	nop
	jmp spincall
	.globl ind
ind:	lea ind(%rip), %rax	# 0x401016: decode-block-loop's ind.pt
	jmp *%rax		# reads a TIP each pass
