/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the traced programs built without libc and given arguments share
 * (exact_nolibc.c, exact_nolibc_fork.c; scripts/mkinitramfs.sh builds
 * exact_nolibc* static with -nostdlib): their entry, which passes the
 * initial stack (argc, then argv[]) to start_c(), sys4(), atou() and
 * exit_saying().  Each program includes this once, after workload.h
 * (sys3()).
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

/*
 * The raw system call with a fourth argument (r10: wait4()'s rusage,
 * ptrace()'s data), which sys3() leaves as it is.
 */
static inline long sys4(long nr, long a, long b, long c, long d)
{
	register long r10 asm("r10") = d;
	long ret;

	asm volatile ("syscall"
		      : "=a" (ret)
		      : "a" (nr), "D" (a), "S" (b), "d" (c), "r" (r10)
		      : "rcx", "r11", "memory");
	return ret;
}

/* The decimal number at the start of @s (0 if none). */
static inline unsigned int atou(const char *s)
{
	unsigned int v = 0;

	while (*s >= '0' && *s <= '9')
		v = v * 10 + (unsigned int)(*s++ - '0');
	return v;
}

/*
 * The last words of a program: write "@name@v\n" (@name ends in a space)
 * to stdout, then exit_group(0).  The tests read the line to see that the
 * program ran to its end.
 */
static inline void exit_saying(const char *name, unsigned long v)
{
	char msg[48];
	unsigned long w;
	unsigned int n = 0, i, d;

	while (name[n] && n < sizeof(msg) - 22)
		msg[n] = name[n], n++;
	for (w = v, d = 1; w >= 10; w /= 10)
		d++;
	for (w = v, i = n + d; i > n; w /= 10)
		msg[--i] = (char)('0' + w % 10);
	n += d;
	msg[n++] = '\n';
	sys3(1, 1, (long)msg, n);	/* write */
	for (;;)
		sys3(231, 0, 0, 0);	/* exit_group */
}

#endif
