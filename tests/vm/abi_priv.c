// SPDX-License-Identifier: GPL-2.0
/*
 * Privileges on a widened node (chmod 0666 /dev/pt0), as perf enforces
 * them, checked as uid/gid 65534 (nobody) in a child:
 *  - no kernel tracing (EPERM at SET_CONFIG), no whole-CPU user tracing
 *    (START without a CR3 filter: EPERM), no CR3 by value (EPERM);
 *  - PT_CR3_BY_PID only of a process it may trace: itself or a descendant
 *    with its credentials; pid 1, its root parent and a nobody process
 *    that is not its descendant: EPERM;
 *  - the derived CR3 is a physical address and never shown: SET_CR3
 *    returns 0, GET_CONFIG shows 0, and setting that configuration back
 *    keeps the derived value (a made-up value: EPERM); START then works;
 *  - buffer pages are charged against RLIMIT_MEMLOCK (set to 256 KiB):
 *    a buffer beyond it fails with EPERM when it is allocated (START),
 *    the largest that starts is reported and must fit the limit.
 * As root on the same node: PT_CR3_BY_PID of pid 1 returns the CR3, and
 * CR3_MATCH values with bits above MAXPHYADDR (LAM) are accepted, only
 * bits 4:0 are reserved.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/pt_trace.h>

#include "ptt_test.h"

static struct pt_trace_caps caps = { .size = sizeof(caps) };

static int set_cr3(int fd, __u32 how, int pid, __u64 val, __u64 *out)
{
	struct pt_trace_cr3 r = { .size = sizeof(r) };
	int ret;

	r.how = how;
	r.pid = pid;
	r.cr3 = val;
	errno = 0;
	ret = ioctl(fd, PT_TRACE_IOC_SET_CR3, &r);
	if (out)
		*out = r.cr3;
	return ret;
}

static pid_t sleeper(void)
{
	pid_t pid = fork();

	if (!pid) {
		pause();
		_exit(0);
	}
	return pid;
}

/* How large a buffer this process may pin under RLIMIT_MEMLOCK. */
static void pin_limit(int fd)
{
	struct rlimit rl = { 256 << 10, 256 << 10 };
	__u64 size, largest = 0;
	int refused = 0;

	REQUIRE(!setrlimit(RLIMIT_MEMLOCK, &rl), "setrlimit: %s",
		strerror(errno));
	for (size = 8 << 10; size <= 4 << 20; size <<= 1) {
		if (ioctl(fd, PT_TRACE_IOC_SET_BUFSIZE, &size)) {
			CHECK(0, "SET_BUFSIZE %llu: %s",
			      (unsigned long long)size, strerror(errno));
			break;
		}
		errno = 0;
		if (!ioctl(fd, PT_TRACE_IOC_START)) {
			largest = size;
			ioctl(fd, PT_TRACE_IOC_STOP);
			continue;
		}
		CHECK(errno == EPERM, "START of %llu bytes over the limit: %s",
		      (unsigned long long)size, strerror(errno));
		refused++;
	}
	fprintf(stderr,
		"PTT-INFO RLIMIT_MEMLOCK 256 KiB: largest buffer %llu bytes, %d sizes refused\n",
		(unsigned long long)largest, refused);
	CHECK(largest && largest + 4096 <= rl.rlim_cur && refused,
	      "pinned %llu bytes under a %lu-byte RLIMIT_MEMLOCK",
	      (unsigned long long)largest, (unsigned long)rl.rlim_cur);
}

/* The checks as nobody; @other: a nobody process that is not ours. */
static void as_nobody(pid_t root_parent, pid_t other)
{
	struct pt_trace_config c = { .size = sizeof(c) };
	__u64 cr3 = 1;
	pid_t child;
	int fd;

	REQUIRE(!setgid(65534) && !setuid(65534), "setuid: %s",
		strerror(errno));
	/* setuid made us (and the children we fork) undumpable: not traceable. */
	REQUIRE(!prctl(PR_SET_DUMPABLE, 1), "PR_SET_DUMPABLE: %s",
		strerror(errno));
	fd = ptt_open_cpu(0, O_RDWR);
	REQUIRE(fd >= 0, "open the widened node: %s", strerror(errno));

	c.ctl = PT_CTL_BRANCHEN | PT_CTL_USER | PT_CTL_OS;
	CHECK(ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &c) == -1 && errno == EPERM,
	      "kernel tracing: %s", strerror(errno));
	c.ctl = PT_CTL_BRANCHEN | PT_CTL_USER;
	c.buffer_size = 64 << 10;
	CHECK(!ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &c), "SET_CONFIG: %s",
	      strerror(errno));
	errno = 0;
	CHECK(ioctl(fd, PT_TRACE_IOC_START) == -1 && errno == EPERM,
	      "START tracing every process's user space: %s", strerror(errno));
	ioctl(fd, PT_TRACE_IOC_STOP);
	CHECK(set_cr3(fd, PT_CR3_BY_VALUE, 0, 0x1000, NULL) == -1 &&
	      errno == EPERM, "CR3 by value: %s", strerror(errno));
	CHECK(set_cr3(fd, PT_CR3_BY_PID, 1, 0, NULL) == -1 && errno == EPERM,
	      "CR3 of pid 1: %s", strerror(errno));
	CHECK(set_cr3(fd, PT_CR3_BY_PID, root_parent, 0, NULL) == -1 &&
	      errno == EPERM, "CR3 of the root parent: %s", strerror(errno));
	CHECK(set_cr3(fd, PT_CR3_BY_PID, other, 0, NULL) == -1 &&
	      errno == EPERM, "CR3 of another nobody process: %s",
	      strerror(errno));
	/* A descendant with our credentials. */
	child = sleeper();
	REQUIRE(child > 0, "fork");
	CHECK(!set_cr3(fd, PT_CR3_BY_PID, child, 0, &cr3) && cr3 == 0,
	      "CR3 of our child: %s, returned %#llx", strerror(errno),
	      (unsigned long long)cr3);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	/* Ourselves: the CR3 is hidden. */
	cr3 = 1;
	CHECK(!set_cr3(fd, PT_CR3_BY_PID, 0, 0, &cr3), "own CR3: %s",
	      strerror(errno));
	CHECK(cr3 == 0, "SET_CR3 returned the physical address %#llx",
	      (unsigned long long)cr3);
	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	CHECK(!ioctl(fd, PT_TRACE_IOC_GET_CONFIG, &c), "GET_CONFIG");
	CHECK((c.ctl & PT_CTL_CR3FILTER) && c.cr3_match == 0,
	      "GET_CONFIG: ctl %#llx cr3_match %#llx",
	      (unsigned long long)c.ctl, (unsigned long long)c.cr3_match);
	CHECK(!ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &c),
	      "GET_CONFIG set back: %s", strerror(errno));
	c.cr3_match = 0x1000;
	CHECK(ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &c) == -1 && errno == EPERM,
	      "a made-up CR3_MATCH: %s", strerror(errno));
	CHECK(!ioctl(fd, PT_TRACE_IOC_START), "START on our own CR3: %s",
	      strerror(errno));
	CHECK(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	pin_limit(fd);
	close(fd);
}

static void as_root(void)
{
	struct pt_trace_config c = { .size = sizeof(c) };
	__u64 cr3 = 0;
	int fd = ptt_open_cpu(0, O_RDWR);

	REQUIRE(fd >= 0, "open: %s", strerror(errno));
	CHECK(!set_cr3(fd, PT_CR3_BY_PID, 1, 0, &cr3) && cr3 && !(cr3 & 0x1f),
	      "root: CR3 of pid 1: %s, %#llx", strerror(errno),
	      (unsigned long long)cr3);
	c.ctl = PT_CTL_BRANCHEN | PT_CTL_USER | PT_CTL_CR3FILTER;
	c.cr3_match = 0x1000 | (1ULL << 61) | (1ULL << 62);
	CHECK(!ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &c),
	      "root: CR3_MATCH with LAM bits: %s", strerror(errno));
	c.cr3_match = 0x1010;
	CHECK(ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &c) == -1 && errno == EINVAL,
	      "root: CR3_MATCH bit 4: %s", strerror(errno));
	close(fd);
}

int main(void)
{
	pid_t other, pid;
	int fd, st;

	REQUIRE(getuid() == 0, "must start as root");
	fd = ptt_open_cpu(0, O_RDWR);
	REQUIRE(fd >= 0, "open: %s", strerror(errno));
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_GET_CAPS, &caps), "GET_CAPS");
	close(fd);
	if (!(caps.flags & PT_CAP_CR3_FILTER))
		SKIP("no CR3 filtering: nothing but root may trace");
	REQUIRE(chmod("/dev/pt0", 0666) == 0, "chmod: %s", strerror(errno));
	other = fork();
	if (!other) {
		if (setgid(65534) || setuid(65534))
			_exit(1);
		pause();
		_exit(0);
	}
	pid = fork();
	if (!pid) {
		as_nobody(getppid(), other);
		_exit(ptt_failures ? 1 : 0);
	}
	REQUIRE(pid > 0 && waitpid(pid, &st, 0) == pid, "wait");
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "as nobody: status %#x",
	      st);
	kill(other, SIGKILL);
	waitpid(other, NULL, 0);
	as_root();
	chmod("/dev/pt0", 0600);
	return ptt_done();
}
