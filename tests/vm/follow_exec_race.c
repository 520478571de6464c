// SPDX-License-Identifier: GPL-2.0
/*
 * FOLLOW racing the followed process's exec of a setuid program, without
 * CAP_PERFMON (uid/gid 65534 on a widened /dev/pt0).  FOLLOW checks that
 * the caller may trace the process, then lists its set, where the exec
 * probe finds it and removes a process that turned setuid.  An exec that
 * committed its new credentials and passed its probe between the two
 * left the setuid program followed (session 23).  To open that window
 * wide: the process is 2000 levels below the caller (the check walks its
 * ancestors up to the caller: a few ms), so its exec, started 0 to 4 ms
 * before FOLLOW, replaces its memory during the walk; that memory (32 MiB,
 * filled) then goes with FOLLOW's reference, dropped after the check,
 * and freeing it lasts long enough for the exec of a one-page static
 * program to pass its probe.  Once the program runs (it writes a byte on
 * a pipe, then pauses, setuid), GET_FOLLOW must show no process in the
 * set.  Before the fix some execs of each run stayed followed; now
 * FOLLOW holds the process's exec_update_lock from the check to the
 * listing, as perf_event_open() does: FOLLOW comes first and the exec
 * then leaves the set, or the exec first and FOLLOW fails with EPERM.
 * icl only (the race is above the hw ops).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/pt_trace.h>

#include "ptt_test.h"

#define SUID	"/tmp/follow_exec_race_suid"
#define STACK	(16 << 10)
#define BIG	(32 << 20)
#define ROUNDS	10	/* at least; up to MAX_ROUNDS until one raced */
#define MAX_ROUNDS	40
#define DEPTH	2000	/* the walk: about 5 ms on the debug kernel */
/* The levels share all they can: a clone copies little (make check's time). */
#define CHAIN	(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_SYSVSEM | SIGCHLD)

static int depth;
static char *stacks;
static int cmd[2], pids[2], rdy[2], go[2], rep[2];

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/*
 * The setuid program: a static ELF of one page, whose exec is short (no
 * interpreter), so it passes its probe while FOLLOW frees the memory:
 *	write(3, "x", 1); for (;;) pause();
 */
static int write_prog(const char *to)
{
	static const unsigned char code[] = {
		0xb8, 0x01, 0x00, 0x00, 0x00,		/* mov $1, %eax */
		0xbf, 0x03, 0x00, 0x00, 0x00,		/* mov $3, %edi */
		0x48, 0x8d, 0x35, 0x10, 0x00, 0x00, 0x00, /* lea msg(%rip), %rsi */
		0xba, 0x01, 0x00, 0x00, 0x00,		/* mov $1, %edx */
		0x0f, 0x05,				/* syscall */
		0xb8, 0x22, 0x00, 0x00, 0x00,		/* 1: mov $34, %eax */
		0x0f, 0x05,				/* syscall */
		0xeb, 0xf7,				/* jmp 1b */
		'x',					/* msg */
	};
	/* ELF header (64 bytes), one PT_LOAD header (56), the code. */
	unsigned char f[64 + 56 + sizeof(code)] = { 0x7f, 'E', 'L', 'F', 2, 1, 1 };
	__u64 base = 0x400000, entry = base + 64 + 56, size = sizeof(f);
	__u16 h16[] = { 2, 62 };		/* ET_EXEC, EM_X86_64 */
	__u16 sizes[] = { 64, 56, 1 };		/* ehsize, phentsize, phnum */
	__u32 one = 1, pt_load[] = { 1, 5 };	/* PT_LOAD, PF_R | PF_X */
	__u64 phoff = 64, seg[] = { 0, base, base, size, size, 0x1000 };
	int fd = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0700);

	memcpy(f + 16, h16, sizeof(h16));
	memcpy(f + 20, &one, 4);		/* e_version */
	memcpy(f + 24, &entry, 8);
	memcpy(f + 32, &phoff, 8);
	memcpy(f + 52, sizes, sizeof(sizes));
	memcpy(f + 64, pt_load, sizeof(pt_load));
	memcpy(f + 72, seg, sizeof(seg));	/* offset, vaddr, paddr, sizes, align */
	memcpy(f + 120, code, sizeof(code));
	if (fd < 0 || write(fd, &f, sizeof(f)) != sizeof(f))
		return -1;
	close(fd);
	return chown(to, 0, 0) || chmod(to, 04755) ? -1 : 0;
}

/*
 * A process of its own (a copy of the follower's memory), which fills
 * BIG bytes before it execs: FOLLOW's reference may be the last one on
 * that memory once the exec has replaced it, and freeing it then (in
 * FOLLOW, after the check) takes long enough for the exec to finish.
 */
static int leaf(void *arg)
{
	static char *const av[] = { "follow_exec_race_suid", NULL };
	static char *const ev[] = { NULL };
	char b = 'r';

	(void)arg;
	if (syscall(SYS_mmap, NULL, BIG, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0) == -1)
		syscall(SYS_exit, 1);
	syscall(SYS_write, rdy[1], &b, 1);
	syscall(SYS_read, go[0], &b, 1);
	syscall(SYS_dup2, rep[1], 3);
	syscall(SYS_execve, SUID, av, ev);
	syscall(SYS_exit, 1);
	return 0;
}

/* Level @arg of the chain; the deepest makes a leaf per command. */
static int level(void *arg)
{
	long l = (long)arg;
	char b;
	int pid;

	if (l == 1) {
		cpu_set_t one;

		CPU_ZERO(&one);
		CPU_SET(1, &one);
		syscall(SYS_sched_setaffinity, 0, sizeof(one), &one);
	}
	if (l < depth) {
		pid = clone(level, stacks + (l + 1) * STACK, CHAIN, (void *)(l + 1));
		if (pid < 0)
			syscall(SYS_write, pids[1], &pid, sizeof(pid));
		for (;;)
			syscall(SYS_pause);
	}
	while (syscall(SYS_read, cmd[0], &b, 1) == 1) {
		pid = clone(leaf, stacks + (depth + 2) * STACK, SIGCHLD, NULL);
		syscall(SYS_write, pids[1], &pid, sizeof(pid));
		syscall(SYS_wait4, pid, NULL, 0, NULL);
	}
	syscall(SYS_exit, 0);
	return 0;
}

static void follower(void)
{
	struct pt_trace_follow f = { .size = sizeof(f) };
	struct pt_trace_follow_status fs;
	struct pollfd pfd;
	int fd, i, pid, chain, hits = 0, r;
	double t0, t1;
	char b = 'c';

	ptt_pin_cpu(0);
	REQUIRE(!setgid(65534) && !setuid(65534), "setuid: %s", strerror(errno));
	/* The uid change made the memory the chain shares undumpable. */
	REQUIRE(!prctl(PR_SET_DUMPABLE, 1), "PR_SET_DUMPABLE: %s", strerror(errno));
	fd = open("/dev/pt0", O_RDWR | O_CLOEXEC);
	REQUIRE(fd >= 0, "open /dev/pt0: %s", strerror(errno));
	stacks = mmap(NULL, (depth + 3) * STACK, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	REQUIRE(stacks != MAP_FAILED, "mmap");
	REQUIRE(!pipe2(cmd, O_CLOEXEC) && !pipe2(pids, O_CLOEXEC) &&
		!pipe2(rdy, O_CLOEXEC) &&
		!pipe2(go, O_CLOEXEC) && !pipe2(rep, O_CLOEXEC), "pipe");
	t0 = now();
	chain = clone(level, stacks + STACK, CHAIN, (void *)1L);
	REQUIRE(chain > 0, "clone: %s", strerror(errno));
	for (i = 0; i < MAX_ROUNDS && (i < ROUNDS || !hits); i++) {
		REQUIRE(write(cmd[1], &b, 1) == 1, "cmd");
		REQUIRE(read(pids[0], &pid, sizeof(pid)) == sizeof(pid), "pid");
		REQUIRE(pid > 0, "the chain stopped at a failed clone");
		REQUIRE(read(rdy[0], &b, 1) == 1 && b == 'r', "the leaf");
		if (!i) {
			/* The walk alone: FOLLOW of the leaf waiting to exec. */
			t1 = now();
			f.pid = pid;
			CHECK(!ioctl(fd, PT_TRACE_IOC_FOLLOW, &f), "FOLLOW: %s",
			      strerror(errno));
			printf("PTT-INFO chain of %d in %.2f s; FOLLOW there: %.2f ms\n",
			       depth, t1 - t0, (now() - t1) * 1e3);
		}
		/*
		 * The exec starts, then FOLLOW 0 to 4 ms later (where the
		 * window lies depends on the kernel and the machine's speed).
		 */
		REQUIRE(write(go[1], &b, 1) == 1, "go");
		f.pid = pid;
		t1 = now();
		while (now() - t1 < (i % 9) * 0.5 / 1000)
			;
		t1 = now();
		r = ioctl(fd, PT_TRACE_IOC_FOLLOW, &f);
		t1 = now() - t1;
		pfd.fd = rep[0];
		pfd.events = POLLIN;
		REQUIRE(poll(&pfd, 1, 15000) == 1 && read(rep[0], &b, 1) == 1,
			"the setuid program did not start");
		memset(&fs, 0, sizeof(fs));
		fs.size = sizeof(fs);
		REQUIRE(!ioctl(fd, PT_TRACE_IOC_GET_FOLLOW, &fs), "GET_FOLLOW");
		printf("PTT-INFO exec %d: FOLLOW %s in %.2f ms; then %llu processes, %llu left\n",
		       i, r ? strerror(errno) : "ok", t1 * 1e3, fs.processes,
		       fs.left);
		if (!r) {
			hits++;
			CHECK(!fs.processes,
			      "exec %d: a setuid program is followed (%llu processes)",
			      i, fs.processes);
		}
		kill(pid, SIGKILL);
	}
	CHECK(hits, "FOLLOW never raced the exec (EPERM each time)");
	kill(chain, SIGKILL);
	close(fd);
	exit(ptt_done());
}

int main(void)
{
	struct rlimit rl = { 1 << 16, 1 << 16 };
	int st;
	pid_t c;

	if (getenv("PTT_PROFILE") && strcmp(getenv("PTT_PROFILE"), "icl"))
		SKIP("the race is above the hw ops: icl only");
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP("needs 2 CPUs");
	depth = DEPTH;
	setvbuf(stdout, NULL, _IONBF, 0);
	REQUIRE(!chmod("/dev/pt0", 0666), "chmod: %s", strerror(errno));
	REQUIRE(!write_prog(SUID), "write the program: %s", strerror(errno));
	setrlimit(RLIMIT_NPROC, &rl);
	c = fork();
	if (!c) {
		setpgid(0, 0);
		alarm(120);
		follower();
	}
	waitpid(c, &st, 0);
	kill(-c, SIGKILL);
	chmod("/dev/pt0", 0600);
	unlink(SUID);
	CHECK(WIFEXITED(st) && !WEXITSTATUS(st), "follower: status %#x", st);
	return ptt_done();
}
