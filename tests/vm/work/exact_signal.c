// SPDX-License-Identifier: GPL-2.0
/*
 * The traced program of tests/vm/exact_signal.sh: signal handlers, stepped
 * from their first instruction: raise() (delivered at the syscall's
 * return), a fault (SIGSEGV at a faulting instruction, left with
 * siglongjmp) and SIG_IGN.  Linked statically (mkinitramfs.sh): a PIE's
 * ld.so start-up is 70,000 more steps, 75 s on the debug kernel, and
 * exact_pie steps it.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

sig_atomic_t got;	/* global: the handler's stores stay */
static sigjmp_buf env;

static void on_usr1(int sig)
{
	got += sig;
}

/* A store to page 0 that the compiler can neither drop nor reorder. */
static void __attribute__((noipa)) raise_segv(void)
{
	__asm__ volatile("movl $1, 16" : : : "memory");
}

static void on_segv(int sig)
{
	(void)sig;
	siglongjmp(env, 1);
}

int main(void)
{
	struct sigaction sa;
	int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_segv;
	sa.sa_flags = SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
	signal(SIGUSR2, SIG_IGN);
	for (i = 0; i < 3; i++)
		raise(SIGUSR1);
	raise(SIGUSR2);
	if (!sigsetjmp(env, 1))
		raise_segv();	/* faults: the handler jumps back */
	printf("exact_signal %d\n", (int)got);
	return 0;
}
