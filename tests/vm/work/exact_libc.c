// SPDX-License-Identifier: GPL-2.0
/*
 * Real code of libc, for tests/vm/exact_realprog2.sh (a PIE with libc):
 * each argument names a part run in that order (none: all of them):
 *  mem     memcpy/memset/memmove/strlen/memchr/memcmp of buffers from 100
 *          bytes to 12 KB (libc's vector loops, rep movsb/stosb above
 *          its threshold: a rep instruction is one instruction)
 *  tls     dlopen()s /ptt/work/exact_dl_tls.so and calls its function,
 *          whose __thread variables go through __tls_get_addr, in this
 *          thread and in a second one (a block of its own)
 *  vdso    clock_gettime (several clocks), gettimeofday and time in a
 *          loop: the vDSO's code
 *  sys     syscall(2) directly, and a raw syscall instruction
 *  stdio   a file written with fprintf, read back with fgets/fscanf
 *  sigalt  a SIGALRM of an interval timer taken in a busy loop (an
 *          asynchronous signal), its handler on a sigaltstack, left
 *          with siglongjmp; a raise() on the alternate stack too.  The
 *          loop tests a flag: a loop of direct jumps alone sends no
 *          packet, and no trace says how often it ran before the
 *          signal (Documentation/tools.rst)
 *  spawn   posix_spawn() and vfork() + execve() of
 *          /ptt/work/exact_nolibc_exec, waited for
 * Prints "exact_libc" and a checksum at its end.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static unsigned long sum;

static void mem(void)
{
	static const size_t sizes[] = { 100, 1000, 3000, 12000 };
	char *a = malloc(16384), *b = malloc(16384);

	if (!a || !b)
		exit(2);
	for (unsigned int i = 0; i < NELEM(sizes); i++) {
		size_t n = sizes[i];

		memset(a, 'a' + i, n);
		a[n - 1] = 0;
		memcpy(b, a, n);
		memmove(b + 1, b, n - 1);
		sum += strlen(a) + strlen(b + 1);
		sum += (char *)memchr(a, 0, n) - a;
		sum += memcmp(a, b + 1, n - 2) == 0;
	}
	free(a);
	free(b);
}

static long (*tls_fn)(long x);

static void *tls_thread(void *arg)
{
	return (void *)tls_fn((long)arg);
}

static void tls(void)
{
	void *h = dlopen("/ptt/work/exact_dl_tls.so", RTLD_NOW);
	pthread_t t;
	void *r;

	if (!h) {
		fprintf(stderr, "exact_libc: %s\n", dlerror());
		exit(2);
	}
	*(void **)&tls_fn = dlsym(h, "exact_dl_tls");
	if (!tls_fn)
		exit(2);
	sum += tls_fn(3) + tls_fn(5);
	if (pthread_create(&t, NULL, tls_thread, (void *)7) || pthread_join(t, &r))
		exit(2);
	sum += (long)r;
}

static void vdso(void)
{
	struct timespec ts;
	struct timeval tv;

	for (int i = 0; i < 20; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		sum += ts.tv_nsec & 1;
		clock_gettime(CLOCK_REALTIME, &ts);
		clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
		clock_gettime(CLOCK_BOOTTIME, &ts);
		gettimeofday(&tv, NULL);
		sum += time(NULL) & 1;
	}
}

static void sys(void)
{
	static const char msg[] = "exact_libc: syscall write\n";
	char cwd[64];
	long r;

	sum += syscall(SYS_getpid) == getpid();
	sum += syscall(SYS_gettid) > 0;
	sum += syscall(SYS_getcwd, cwd, sizeof(cwd)) > 0;
	syscall(SYS_write, 1, msg, sizeof(msg) - 1);
	asm volatile ("syscall" : "=a" (r) : "a" (SYS_getppid) : "rcx", "r11", "memory");
	sum += r > 0;
}

static void file_io(void)
{
	FILE *f = fopen("/tmp/exact_libc.txt", "w+");
	char line[80];
	int a, b;

	if (!f)
		exit(2);
	for (int i = 0; i < 4; i++)
		fprintf(f, "%d %d line %s\n", i, i * i, i % 2 ? "odd" : "even");
	fflush(f);
	rewind(f);
	while (fgets(line, sizeof(line), f))
		sum += strlen(line);
	rewind(f);
	while (fscanf(f, "%d %d %*s %*s", &a, &b) == 2)
		sum += a + b;
	fclose(f);
	remove("/tmp/exact_libc.txt");
	puts("exact_libc: stdio done");
	fflush(stdout);
}

static sigjmp_buf env;
static sig_atomic_t ticks;

static void on_alarm(int sig)
{
	char here;

	ticks++;
	sum += (unsigned long)&here & 0xf;
	siglongjmp(env, sig);
}

static void on_usr1(int sig)
{
	sum += sig;
}

static void sigalt(void)
{
	static char altstack[65536];
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
	struct sigaction sa = { .sa_flags = SA_ONSTACK };
	struct itimerval it = { .it_value = { .tv_usec = 20000 } };
	unsigned long spin = 0;

	if (sigaltstack(&ss, NULL))
		exit(2);
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	raise(SIGUSR1);
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	if (sigsetjmp(env, 1) == 0) {
		setitimer(ITIMER_REAL, &it, NULL);
		/* the handler's store: a load a pass */
		while (!__atomic_load_n(&ticks, __ATOMIC_RELAXED))
			__atomic_store_n(&spin, spin + 1, __ATOMIC_RELAXED);
	}
	sum += ticks;
}

static void spawn(void)
{
	static char *const argv[] = { "exact_nolibc_exec", NULL };
	const char *path = "/ptt/work/exact_nolibc_exec";
	pid_t pid;
	int st;

	if (posix_spawn(&pid, path, NULL, NULL, argv, environ))
		exit(2);
	if (waitpid(pid, &st, 0) != pid || st)
		exit(2);
	pid = vfork();
	if (pid == 0) {
		execve(path, argv, environ);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || st)
		exit(2);
	sum++;
}

static const struct {
	const char *name;
	void (*fn)(void);
} parts[] = {
	{ "mem", mem }, { "tls", tls }, { "vdso", vdso }, { "sys", sys },
	{ "stdio", file_io }, { "sigalt", sigalt }, { "spawn", spawn },
};

int main(int argc, char **argv)
{
	unsigned int i;

	for (int a = 1; a < argc; a++) {
		for (i = 0; i < NELEM(parts); i++)
			if (!strcmp(argv[a], parts[i].name))
				break;
		if (i == NELEM(parts))
			return 2;
		parts[i].fn();
	}
	if (argc == 1)
		for (i = 0; i < NELEM(parts); i++)
			parts[i].fn();
	printf("exact_libc %lx\n", sum);
	return 0;
}
