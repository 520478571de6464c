# SPDX-License-Identifier: GPL-2.0
# decode_cases.py traces this code, linked at 0x401000 with nothing
# mapped after it (tests/host/run, decode-ptxed-loop).
	.text
	.globl f
f:	xor %eax, %eax
	jz 1f
1:	nop
	nop
