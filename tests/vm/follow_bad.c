// SPDX-License-Identifier: GPL-2.0
/*
 * PT_TRACE_IOC_FOLLOW and GET_FOLLOW given bad input, as root: unknown
 * flags, pid 0 and negative, a pid that does not exist, a kernel thread,
 * a zombie, CLEAR with a pid or another flag, a non-zero reserved field,
 * short and over-long structures (EINVAL, ESRCH, E2BIG), and FOLLOW or
 * CLEAR while tracing (EBUSY, the set unchanged).  A thread id follows
 * its process; GET_FOLLOW says nothing before FOLLOW.  A process whose
 * leader thread has exited (a zombie until the others end) is no zombie:
 * FOLLOW of its pid follows it and PT_CR3_BY_PID derives its CR3, where
 * both once failed (ESRCH, EINVAL) for want of the leader's mm.
 */
#include <limits.h>
#include <pthread.h>
#include <sys/syscall.h>

#include "follow_common.h"

static void expect(int fd, int pid, __u32 flags, int err, const char *what)
{
	int ret = fc_follow(fd, pid, flags);

	CHECK(ret == -1 && errno == err, "%s: %d (%s), wanted %s", what, ret,
	      strerror(errno), strerror(err));
}

static pid_t thread_tid;

static void *leaderless_thread(void *arg)
{
	(void)arg;
	pause();
	return NULL;
}

/* A child whose leader thread exits while another thread lives on. */
static pid_t leaderless(void)
{
	char path[64], st[256] = "", *p;
	pid_t pid = fork();
	int i;

	REQUIRE(pid >= 0, "fork: %s", strerror(errno));
	if (!pid) {
		pthread_t t;

		pthread_create(&t, NULL, leaderless_thread, NULL);
		syscall(SYS_exit, 0);	/* this thread alone */
	}
	/* Until /proc shows the leader a zombie: state Z after "(comm) ". */
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	for (i = 0; i < 500; i++) {
		ptt_read_str(path, st, sizeof(st));
		p = strrchr(st, ')');
		if (p && p[1] == ' ' && p[2] == 'Z')
			return pid;
		fc_sleep_ms(10);
	}
	REQUIRE(0, "the leader of %d did not exit: %s", pid, st);
	return -1;
}

static void *tid_thread(void *arg)
{
	(void)arg;
	__atomic_store_n(&thread_tid, syscall(SYS_gettid), __ATOMIC_RELEASE);
	pause();
	return NULL;
}

int main(void)
{
	struct {
		struct pt_trace_follow f;
		__u64 more;
	} big;
	struct pt_trace_follow f = { .size = 8 };
	struct pt_trace_follow_status fs;
	pthread_t t;
	pid_t zombie, other;
	int fd;

	fc_icl_only();
	memset(&big, 0, sizeof(big));
	big.f.size = sizeof(big);
	fd = fc_open(0, PT_MODE_FLIGHT, 64 << 10);
	fs = fc_status(fd);
	CHECK(!fs.pid && !fs.state && !fs.switches_in,
	      "GET_FOLLOW before FOLLOW: pid %d state %#x", fs.pid, fs.state);
	expect(fd, getpid(), 1U << 2, EINVAL, "unknown flag 1<<2");
	expect(fd, getpid(), 1U << 31, EINVAL, "unknown flag 1<<31");
	expect(fd, 0, 0, EINVAL, "pid 0");
	expect(fd, -1, 0, EINVAL, "pid -1");
	expect(fd, INT_MIN, 0, EINVAL, "pid INT_MIN");
	expect(fd, INT_MAX, 0, ESRCH, "pid INT_MAX");
	expect(fd, 2, 0, EINVAL, "kthreadd");
	expect(fd, getpid(), PT_FOLLOW_CLEAR, EINVAL, "CLEAR with a pid");
	expect(fd, 0, PT_FOLLOW_CLEAR | PT_FOLLOW_INHERIT, EINVAL,
	       "CLEAR with INHERIT");
	zombie = fork();
	if (!zombie)
		_exit(0);
	fc_sleep_ms(100);
	expect(fd, zombie, 0, ESRCH, "a zombie");
	waitpid(zombie, NULL, 0);
	other = leaderless();
	CHECK(!fc_follow(fd, other, 0),
	      "FOLLOW of a process whose leader exited: %s", strerror(errno));
	fs = fc_status(fd);
	CHECK(fs.pid == other && fs.processes == 1,
	      "the leaderless process: pid %d processes %llu", fs.pid,
	      (unsigned long long)fs.processes);
	{
		struct pt_trace_cr3 c = { .size = sizeof(c),
					  .how = PT_CR3_BY_PID, .pid = other };

		CHECK(!ioctl(fd, PT_TRACE_IOC_SET_CR3, &c) && c.cr3,
		      "PT_CR3_BY_PID of a process whose leader exited: %s",
		      strerror(errno));
		c.how = PT_CR3_OFF;
		c.pid = 0;
		CHECK(!ioctl(fd, PT_TRACE_IOC_SET_CR3, &c), "CR3 off: %s",
		      strerror(errno));
	}
	CHECK(!fc_follow(fd, 0, PT_FOLLOW_CLEAR), "CLEAR: %s",
	      strerror(errno));
	fc_kill(other);
	f.pid = getpid();
	CHECK(ioctl(fd, PT_TRACE_IOC_FOLLOW, &f) == -1 && errno == EINVAL,
	      "size 8: %s", strerror(errno));
	f.size = sizeof(f);
	f.reserved = 1;
	CHECK(ioctl(fd, PT_TRACE_IOC_FOLLOW, &f) == -1 && errno == EINVAL,
	      "reserved 1: %s", strerror(errno));
	big.f.pid = getpid();
	big.more = 1;
	CHECK(ioctl(fd, PT_TRACE_IOC_FOLLOW, &big) == -1 && errno == E2BIG,
	      "a longer structure with a non-zero tail: %s", strerror(errno));
	big.more = 0;
	CHECK(!ioctl(fd, PT_TRACE_IOC_FOLLOW, &big),
	      "a longer structure with a zero tail: %s", strerror(errno));
	fs.size = 8;
	CHECK(ioctl(fd, PT_TRACE_IOC_GET_FOLLOW, &fs) == -1 && errno == EINVAL,
	      "GET_FOLLOW size 8: %s", strerror(errno));
	fs = fc_status(fd);
	CHECK(fs.pid == getpid() && fs.processes == 1, "FOLLOW self: pid %d",
	      fs.pid);
	/* While tracing: EBUSY, and the set stays. */
	other = fc_spinner(0, NULL);
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	expect(fd, other, 0, EBUSY, "FOLLOW while tracing");
	expect(fd, 0, PT_FOLLOW_CLEAR, EBUSY, "CLEAR while tracing");
	fs = fc_status(fd);
	CHECK(fs.pid == getpid(), "the set changed under EBUSY: pid %d",
	      fs.pid);
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP");
	/* A thread id names its process. */
	pthread_create(&t, NULL, tid_thread, NULL);
	while (!__atomic_load_n(&thread_tid, __ATOMIC_ACQUIRE))
		fc_sleep_ms(1);
	CHECK(!fc_follow(fd, thread_tid, PT_FOLLOW_INHERIT),
	      "FOLLOW a thread id: %s", strerror(errno));
	fs = fc_status(fd);
	CHECK(fs.pid == thread_tid && fs.flags == PT_FOLLOW_INHERIT &&
	      fs.processes == 1, "FOLLOW a thread id: pid %d processes %llu",
	      fs.pid, (unsigned long long)fs.processes);
	CHECK(!fc_follow(fd, 0, PT_FOLLOW_CLEAR), "CLEAR: %s",
	      strerror(errno));
	fc_kill(other);
	close(fd);
	return ptt_done();
}
