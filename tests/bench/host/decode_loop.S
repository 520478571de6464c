# SPDX-License-Identifier: GPL-2.0
# The decode benchmark's code (decode_bench.sh): a loop of four
# instructions whose conditional branch the trace says is always taken.
	.text
	.globl f
	.type f, @function
f:	mov $1000, %ecx
	.globl loop
loop:	add $1, %eax
	xor %edx, %edx
	dec %ecx
	jnz loop
	ret
	.size f, . - f
