/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the traced programs built without libc and given arguments share
 * (exact_nolibc.c, exact_nolibc_fork.c; scripts/mkinitramfs.sh builds
 * exact_nolibc* static with -nostdlib): their entry, which passes the
 * initial stack (argc, then argv[]) to start_c(), and atou().  Each
 * program includes this once, after workload.h.
 */
#ifndef PTT_NOLIBC_H
#define PTT_NOLIBC_H

/* Entry: the stack holds argc, argv[]; aligned, then start_c(sp). */
asm(".globl _start\n"
	"_start:\n"
	"	xor %ebp, %ebp\n"
	"	mov %rsp, %rdi\n"
	"	and $-16, %rsp\n"
	"	call start_c\n"
	"	hlt\n");

void start_c(unsigned long *sp);

/* The decimal number at the start of @s (0 if none). */
static inline unsigned int atou(const char *s)
{
	unsigned int v = 0;

	while (*s >= '0' && *s <= '9')
		v = v * 10 + (unsigned int)(*s++ - '0');
	return v;
}

#endif
