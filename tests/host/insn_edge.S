/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Encodings libc does not have, for tests/host/run's decoder check: every
 * branch class, every immediate rule, VEX/EVEX in all maps, prefixes in
 * odd places.  Assembled, disassembled with objdump and compared with the
 * model's decoder by insn_objdump (--all-classes: each class must occur).
 * Never run.
 */
	.text
	.globl edge
edge:
	/* conditional: jcc short and near, loop family, jrcxz, jecxz */
	jz	1f
	jz	edge_far
	.byte	0x2e, 0x74, 0x00	/* cs jz (branch hint) */
	.byte	0x3e, 0x0f, 0x85, 0, 0, 0, 0	/* ds jnz rel32 */
	.byte	0x66, 0x0f, 0x84, 0, 0, 0, 0	/* 66 ignored on Intel */
1:	loop	1b
	loope	1b
	loopne	1b
	jrcxz	1b
	.byte	0x67, 0xe3, 0x00	/* jecxz */
	/* direct jmp/call, short and near, prefixed */
	jmp	1b
	jmp	edge_far
	call	edge_far
	.byte	0xf2, 0xe8, 0, 0, 0, 0	/* bnd call */
	.byte	0x66, 0xe9, 0, 0, 0, 0	/* 66 jmp: still rel32 */
	/* indirect, near and far */
	jmp	*%rax
	jmp	*0x10(%rax,%rbx,4)
	notrack jmp *%rdx
	call	*%r11
	call	*edge(%rip)
	ljmp	*(%rax)
	rex.W ljmp *(%rax)
	lcall	*0x8(%rbx)
	/* returns */
	ret
	ret	$8
	lretl
	lretl	$16
	lretq
	iretq
	iretl
	/* system */
	syscall
	sysretq
	sysretl
	sysenter
	sysexitl
	sysexitq
	int3
	int	$0x80
	.byte	0xf1			/* int1 */
	ud2
	ud1	(%rax), %eax
	ud0	%eax, %eax
	/* immediates: 66 and REX.W rules */
	add	$0x1234, %ax
	add	$0x12345678, %eax
	add	$0x12345678, %rax
	addw	$0x1234, (%rax)
	push	$0x12345678
	pushw	$0x1234
	mov	$0x1122334455667788, %rax
	mov	$0x1234, %ax
	.byte	0x66, 0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8	/* REX.W wins */
	.byte	0x66, 0x48, 0x05, 1, 2, 3, 4	/* 66 REX.W add imm32 */
	testb	$1, (%rax)
	testw	$0x100, (%rax)
	testl	$0x10000, 8(%rax)
	testq	$0x10000, %rax
	.byte	0xf6, 0x08, 1		/* test /1: an alias of /0 */
	.byte	0xf7, 0x08, 1, 2, 3, 4
	.byte	0x66, 0xf7, 0x48, 0x10, 1, 2
	notl	(%rax)
	negq	%rax
	mull	(%rax)
	imul	$0x1234, %ax, %ax
	imul	$5, (%rax), %ecx
	movabs	0x1122334455667788, %al
	movabs	%rax, 0x1122334455667788
	.byte	0x67, 0xa1, 1, 2, 3, 4	/* addr32 moffs */
	.byte	0x67, 0xa2, 1, 2, 3, 4
	enter	$0x10, $0
	enter	$0x100, $3
	ret	$0x1234
	movb	$1, 0x12345678(%rip)
	movw	$1, (%rsp)
	movq	$-1, 0x80(%rsp,%rcx,8)
	xabort	$1
	xbegin	1f
1:	xend
	/* ModRM/SIB/displacement forms */
	mov	(%rsp), %eax
	mov	(%rbp), %eax
	mov	(%r12), %eax
	mov	(%r13), %eax
	mov	0x7f(%rax), %eax
	mov	0x80(%rax), %eax
	mov	0x12345678(,%rcx,8), %eax
	mov	0x12345678, %eax
	mov	(%rax,%rbp,1), %eax
	lea	0(,%rbp,2), %rax
	addr32 mov (%eax), %eax
	mov	%cr0, %rax
	mov	%rax, %cr3
	mov	%dr7, %rax
	.byte	0x0f, 0x20, 0x00	/* mod 00 ignored: no disp */
	/* 0F, 0F38, 0F3A maps, groups */
	cpuid
	rdtsc
	bswap	%eax
	bswap	%r9
	pshufd	$0x1b, %xmm1, %xmm2
	psrldq	$4, %xmm1
	shld	$3, %eax, (%rbx)
	bt	$5, %eax
	cmpps	$1, %xmm1, %xmm2
	pshufb	%xmm1, %xmm2
	pshufb	0x10(%rax), %xmm2
	crc32b	%al, %eax
	movbe	(%rax), %ecx
	palignr	$3, %xmm1, %xmm2
	pextrd	$1, %xmm1, 0x12345678(%rip)
	roundss	$1, (%rax), %xmm3
	endbr64
	nopw	%cs:0x0(%rax,%rax,1)
	.byte	0x66, 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0
	prefetchw (%rax)
	popcnt	%eax, %ecx
	tzcnt	%rax, %rcx
	lock cmpxchg %ecx, (%rdx)
	lock cmpxchg16b (%rdi)
	rdrand	%eax
	fxsave	(%rax)
	xsaveopt (%rax)
	clflushopt (%rax)
	wbinvd
	rdmsr
	wrmsr
	swapgs
	rdpid	%rax
	fldt	(%rax)
	fstp	%st(1)
	fnstsw	%ax
	/* string instructions with and without rep */
	rep movsb
	rep stosq
	repne scasb
	repe cmpsb
	lodsb
	rep insb (%dx), %es:(%rdi)
	rep outsw %ds:(%rsi), (%dx)
	/* VEX: C5, C4 in maps 1-3, with immediates */
	vzeroupper
	vzeroall
	vmovdqu	(%rax), %ymm0
	vpaddd	%ymm1, %ymm2, %ymm3
	vpshufd	$1, %ymm1, %ymm2
	vcmpps	$1, %ymm1, %ymm2, %ymm3
	vpshufb	%ymm1, %ymm2, %ymm3
	vpermq	$0x1b, %ymm1, %ymm2
	vpblendd $3, 0x40(%rax,%rbx,4), %ymm2, %ymm3
	vpsrldq	$4, %ymm1, %ymm2
	vmovq	%xmm8, %rax
	andn	%eax, %ebx, %ecx
	shlx	%r9, %r10, %r11
	rorx	$3, %rax, %rbx
	kmovw	%k1, %k2
	vpextrq	$1, %xmm9, %rax
	/* EVEX: maps 1, 2, 3, 5, 6, disp8*N */
	vmovdqu64 (%rax), %zmm0
	vmovdqu64 0x40(%rax), %zmm0
	vpaddd	%zmm1, %zmm2, %zmm3{%k1}{z}
	vpshufd	$1, %zmm1, %zmm2
	vpcmpub	$4, %zmm1, %zmm2, %k1
	vpternlogd $0x96, %zmm1, %zmm2, %zmm3
	vpermb	%zmm1, %zmm2, %zmm3
	vcmpps	$1, %zmm1, %zmm2, %k1
	vaddph	%zmm1, %zmm2, %zmm3
	vfmadd132ph %zmm1, %zmm2, %zmm3
	vcvtph2psx %ymm1, %zmm2
	vpxorq	0x12345678(%rip), %zmm30, %zmm31
	vextracti64x4 $1, %zmm1, (%rax)
edge_far:
	hlt
	nop
