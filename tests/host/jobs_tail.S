# SPDX-License-Identifier: GPL-2.0
# decode-jobs-tail's code: decode_loop.S's loop, and where the loop ends
# a jump to an address no image maps (libipt: "no memory mapped").
	.text
	.globl f
	.type f, @function
f:	mov $1000, %ecx
	.globl loop
loop:	add $1, %eax
	dec %ecx
	jnz loop
	jmp 0x500000
	.size f, . - f
