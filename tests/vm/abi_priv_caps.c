// SPDX-License-Identifier: GPL-2.0
/*
 * The privilege rule of FOLLOW and PT_CR3_BY_PID is ptrace(2)'s: besides
 * the same uids and gids, a dumpable mm and a descendant, the target's
 * permitted capabilities must be a subset of the caller's (the commoncap
 * check of ptrace_may_access()), unless the caller has CAP_SYS_PTRACE.
 * Checked as root with no capability at all (capset() to empty; the
 * bounding set kept), against its child that exec'd a program as root
 * and so holds every capability, and made itself dumpable again
 * (PR_SET_DUMPABLE, as daemons that want core dumps do): ptrace() of it
 * is refused (the reference), and so must be FOLLOW and PT_CR3_BY_PID
 * (EPERM; before session 23 both were allowed).  A child without the
 * exec, with the caller's empty set, may be followed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/pt_trace.h>

#include "ptt_test.h"

static void drop_all_caps(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	REQUIRE(!syscall(SYS_capset, &h, d), "capset: %s", strerror(errno));
}

/* CapPrm of @pid, from /proc. */
static unsigned long long cap_prm(pid_t pid)
{
	char path[64], line[256];
	unsigned long long v = ~0ULL;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return v;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapPrm: %llx", &v) == 1)
			break;
	fclose(f);
	return v;
}

static int follow(int fd, pid_t pid)
{
	struct pt_trace_follow f = { .size = sizeof(f), .pid = pid };

	return ioctl(fd, PT_TRACE_IOC_FOLLOW, &f);
}

static int cr3_by_pid(int fd, pid_t pid)
{
	struct pt_trace_cr3 c = { .size = sizeof(c), .how = PT_CR3_BY_PID,
				  .pid = pid };

	return ioctl(fd, PT_TRACE_IOC_SET_CR3, &c);
}

static void follower(void)
{
	struct pollfd p;
	int fd, rep[2], r, e;
	pid_t c, plain;
	char b;

	drop_all_caps();
	fd = open("/dev/pt0", O_RDWR | O_CLOEXEC);
	REQUIRE(fd >= 0, "open /dev/pt0: %s", strerror(errno));
	REQUIRE(!pipe(rep), "pipe");
	c = fork();
	if (!c) {
		dup2(rep[1], 3);
		execl("/proc/self/exe", "abi_priv_caps", "caps", NULL);
		_exit(1);
	}
	p.fd = rep[0];
	p.events = POLLIN;
	REQUIRE(poll(&p, 1, 15000) == 1 && read(rep[0], &b, 1) == 1,
		"the child did not start");
	printf("PTT-INFO caller CapPrm %#llx, child (exec'd as root) %#llx\n",
	       cap_prm(getpid()), cap_prm(c));
	REQUIRE(!cap_prm(getpid()) && cap_prm(c), "capabilities not as set up");
	r = ptrace(PTRACE_SEIZE, c, 0, 0);
	e = errno;
	printf("PTT-INFO ptrace of it: %s\n", r ? strerror(e) : "allowed");
	if (!r)
		SKIP("ptrace() allows it here: nothing to compare");
	r = follow(fd, c);
	CHECK(r && errno == EPERM,
	      "FOLLOW of a child with more capabilities: %s (want EPERM)",
	      r ? strerror(errno) : "allowed");
	r = cr3_by_pid(fd, c);
	CHECK(r && errno == EPERM,
	      "PT_CR3_BY_PID of a child with more capabilities: %s (want EPERM)",
	      r ? strerror(errno) : "allowed");
	kill(c, SIGKILL);
	waitpid(c, NULL, 0);
	/* The same rule lets it follow a child with its own (empty) set. */
	plain = fork();
	if (!plain) {
		for (;;)
			pause();
	}
	CHECK(!follow(fd, plain), "FOLLOW of a child as capable as itself: %s",
	      strerror(errno));
	CHECK(!cr3_by_pid(fd, plain), "PT_CR3_BY_PID of that child: %s",
	      strerror(errno));
	kill(plain, SIGKILL);
	waitpid(plain, NULL, 0);
	close(fd);
	exit(ptt_done());
}

int main(int argc, char **argv)
{
	int st;
	pid_t c;

	/* The exec'd child: every capability, dumpable again, waits. */
	if (argc > 1 && !strcmp(argv[1], "caps")) {
		alarm(30);
		if (prctl(PR_SET_DUMPABLE, 1) || write(3, "x", 1) != 1)
			return 1;
		for (;;)
			pause();
	}
	if (getenv("PTT_PROFILE") && strcmp(getenv("PTT_PROFILE"), "icl"))
		SKIP("the rule is above the hw ops: icl only");
	setvbuf(stdout, NULL, _IONBF, 0);
	c = fork();
	if (!c) {
		alarm(30);
		follower();
	}
	waitpid(c, &st, 0);
	if (WIFEXITED(st) && WEXITSTATUS(st) == PTT_SKIP)
		return PTT_SKIP;
	CHECK(WIFEXITED(st) && !WEXITSTATUS(st), "follower: status %#x", st);
	return ptt_done();
}
