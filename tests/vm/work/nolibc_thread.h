/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Threads for the traced programs built without libc (included after
 * workload.h and nolibc.h, once): ptt_clone() starts one on a stack of
 * the program's, futex_wait() joins it through the word the kernel
 * clears at its exit.
 */
#ifndef PTT_NOLIBC_THREAD_H
#define PTT_NOLIBC_THREAD_H

/*
 * CLONE_VM | FS | FILES | SIGHAND | THREAD | SYSVSEM | PARENT_SETTID |
 * CHILD_CLEARTID
 */
#define THREAD_FLAGS 0x00350f00L

/*
 * ptt_clone(flags, sp, tidp): a thread on stack sp, whose two words are
 * the function and its argument; the kernel stores its tid in *tidp at
 * once (PARENT_SETTID, no race with the join) and clears it and wakes
 * the futex there when it exits (CHILD_CLEARTID).  The child pops the
 * two words (sp + 16 is 16-byte aligned for the call) and exits.
 */
long ptt_clone(long flags, void *sp, int *tidp);
asm(".globl ptt_clone\n"
	"ptt_clone:\n"
	"	mov %rdx, %r10\n"
	"	xor %r8d, %r8d\n"
	"	mov $56, %eax\n"
	"	syscall\n"
	"	test %rax, %rax\n"
	"	jnz 1f\n"
	"	pop %rax\n"
	"	pop %rdi\n"
	"	call *%rax\n"
	"	mov $60, %eax\n"
	"	xor %edi, %edi\n"
	"	syscall\n"
	"	hlt\n"
	"1:	ret\n");

/* futex(uaddr, FUTEX_WAIT, val, NULL): r10, the timeout, is 0. */
static inline void futex_wait(int *uaddr, int val)
{
	register long r10 asm("r10") = 0;
	long ret;

	asm volatile ("syscall"
		      : "=a" (ret)
		      : "a" (202L), "D" (uaddr), "S" (0L), "d" ((long)val),
			"r" (r10)
		      : "rcx", "r11", "memory");
	(void)ret;
}

#endif
