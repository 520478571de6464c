/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the tests/vm/follow_*.c tests (PT_TRACE_IOC_FOLLOW): devices
 * set up for user-space tracing, busy processes pinned to CPUs, and the
 * model's witness (debugfs model/witness), which samples every CPU's
 * user-mode context independently of the trace and says, per thread,
 * how often it ran with TraceEn 1 and 0.  fc_judge() holds the driver to
 * the contract: no thread outside the followed processes ran traced, no
 * thread inside ran untraced (every device running meanwhile), and each
 * named process was seen.
 */
#ifndef FOLLOW_COMMON_H
#define FOLLOW_COMMON_H

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/pt_trace.h>

#include "ptt_test.h"

#define FC_WITNESS	"/sys/kernel/debug/pt_trace/model/witness"
#define FC_NCPU		2
#define FC_MAX_ROWS	512

static inline void fc_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Only the icl profile adds coverage, unless the test says otherwise. */
static inline void fc_icl_only(void)
{
	const char *p = getenv("PTT_PROFILE");

	if (p && strcmp(p, "icl"))
		SKIP("following is profile-independent above the hw ops: icl only");
}

/* /dev/ptCPU with User|BranchEn in @mode, @size bytes. */
static inline int fc_open(int cpu, __u32 mode, __u64 size)
{
	struct pt_trace_config c = { .size = sizeof(c) };
	int fd = ptt_open_cpu(cpu, O_RDWR);

	REQUIRE(fd >= 0, "open /dev/pt%d: %s", cpu, strerror(errno));
	c.ctl = PT_CTL_BRANCHEN | PT_CTL_USER;
	c.mode = mode;
	c.buffer_size = size;
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &c), "SET_CONFIG cpu %d: %s",
		cpu, strerror(errno));
	return fd;
}

/* Does this CPU's PT have ToPA (streaming)? */
static inline int fc_has_topa(void)
{
	struct pt_trace_caps caps = { .size = sizeof(caps) };
	int fd = ptt_open_cpu(0, O_RDWR);

	REQUIRE(fd >= 0 && !ioctl(fd, PT_TRACE_IOC_GET_CAPS, &caps),
		"GET_CAPS: %s", strerror(errno));
	close(fd);
	return !!(caps.flags & PT_CAP_TOPA);
}

/* FOLLOW: 0 or -1 with errno. */
static inline int fc_follow(int fd, int pid, __u32 flags)
{
	struct pt_trace_follow f = { .size = sizeof(f) };

	f.pid = pid;
	f.flags = flags;
	errno = 0;
	return ioctl(fd, PT_TRACE_IOC_FOLLOW, &f);
}

/* Every CPU's device in @mode following @pid with @flags, started. */
static inline void fc_start_all(int *fd, __u32 mode, __u64 size, pid_t pid,
				__u32 flags)
{
	int cpu;

	for (cpu = 0; cpu < FC_NCPU; cpu++) {
		fd[cpu] = fc_open(cpu, mode, size);
		REQUIRE(!fc_follow(fd[cpu], pid, flags),
			"FOLLOW %d on CPU %d: %s", pid, cpu, strerror(errno));
		REQUIRE(!ioctl(fd[cpu], PT_TRACE_IOC_START), "START %d: %s",
			cpu, strerror(errno));
	}
}

static inline struct pt_trace_follow_status fc_status(int fd)
{
	struct pt_trace_follow_status st = { .size = sizeof(st) };

	CHECK(!ioctl(fd, PT_TRACE_IOC_GET_FOLLOW, &st), "GET_FOLLOW: %s",
	      strerror(errno));
	return st;
}

/* ---- Busy processes ---- */

static void *fc_spin_thread(void *arg)
{
	unsigned long n = 0;

	if ((long)arg >= 0)
		ptt_pin_cpu((long)arg);
	for (;;)
		__asm__ __volatile__("" : "+r"(n) : : "memory");
	return NULL;
}

/* Spin in one thread pinned on each CPU of @cpus (0: one, unpinned). */
static inline void fc_spinner_threads(unsigned int cpus)
{
	long cpu;

	if (!cpus)
		fc_spin_thread((void *)-1L);
	for (cpu = 0; cpu < 32; cpu++) {
		pthread_t t;

		if ((cpus & (1U << cpu)) && (cpus >> (cpu + 1)))
			pthread_create(&t, NULL, fc_spin_thread, (void *)cpu);
		else if (cpus & (1U << cpu))
			fc_spin_thread((void *)cpu);
	}
}

/*
 * A process spinning in user space, one thread pinned on each CPU of
 * @cpus (a bitmask; 0: one unpinned thread), until killed.  It waits
 * for a byte on a pipe first when @go is not NULL (*go: the write end).
 */
static inline pid_t fc_spinner(unsigned int cpus, int *go)
{
	int p[2] = { -1, -1 };
	pid_t pid;
	char c;

	if (go)
		REQUIRE(!pipe(p), "pipe");
	pid = fork();
	REQUIRE(pid >= 0, "fork: %s", strerror(errno));
	if (pid) {
		if (go) {
			close(p[0]);
			*go = p[1];
		}
		return pid;
	}
	if (go) {
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(1);
	}
	fc_spinner_threads(cpus);
	_exit(0);
}

/* argv "spin MS": two threads spin for MS milliseconds, then exit 0. */
static void *fc_spin_for(void *arg)
{
	struct timespec t0, t;
	unsigned long n = 0;
	long ms = (long)arg;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 100000; i++)
			__asm__ __volatile__("" : "+r"(n) : : "memory");
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 +
		 (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
	return NULL;
}

static inline void fc_spin_main(int argc, char **argv)
{
	pthread_t t;
	long ms;

	if (argc < 3 || strcmp(argv[1], "spin"))
		return;
	ms = atol(argv[2]);
	pthread_create(&t, NULL, fc_spin_for, (void *)ms);
	fc_spin_for((void *)ms);
	pthread_join(t, NULL);
	exit(0);
}

/*
 * A child that waits for a byte on *go (the write end returned there)
 * and then runs @fn(@arg) and exits 0.
 */
static inline pid_t fc_child(void (*fn)(void *), void *arg, int *go)
{
	int p[2];
	pid_t pid;
	char c;

	REQUIRE(!pipe(p), "pipe");
	pid = fork();
	REQUIRE(pid >= 0, "fork: %s", strerror(errno));
	if (!pid) {
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(1);
		fn(arg);
		_exit(0);
	}
	close(p[0]);
	*go = p[1];
	return pid;
}

/* Let a waiting child (fc_child(), fc_spinner()) go. */
static inline void fc_go(int go)
{
	REQUIRE(write(go, "g", 1) == 1, "release the child");
	close(go);
}

static inline void fc_kill(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* ---- The witness ---- */

struct fc_row {
	int cpu, tid, tgid;
	unsigned long long traced, untraced;
	char comm[32];
};

static inline void fc_witness_start(void)
{
	int ret = ptt_write_str(FC_WITNESS, "500");

	if (ret == -ENOENT)
		SKIP("the model has no witness");
	REQUIRE(!ret, "start the witness: %s", strerror(-ret));
}

/* Stop sampling and read what it saw; the number of rows. */
static inline int fc_witness_stop(struct fc_row *rows)
{
	unsigned long long full, samples, user;
	char line[256];
	int n = 0, cpu;
	FILE *f;

	REQUIRE(!ptt_write_str(FC_WITNESS, "0"), "stop the witness");
	f = fopen(FC_WITNESS, "r");
	REQUIRE(f, "open the witness: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		struct fc_row *r = &rows[n];

		if (sscanf(line, "cpu %d samples %llu user %llu full %llu", &cpu,
			   &samples, &user, &full) == 4) {
			CHECK(!full, "witness: %llu samples on CPU %d beyond its table",
			      full, cpu);
			fprintf(stderr,
				"PTT-INFO witness CPU %d: %llu samples, %llu in user mode\n",
				cpu, samples, user);
			continue;
		}
		r->comm[0] = 0;
		if (n < FC_MAX_ROWS &&
		    sscanf(line, "%d %d %d %llu %llu %31s", &r->cpu, &r->tid,
			   &r->tgid, &r->traced, &r->untraced, r->comm) >= 5)
			n++;
	}
	fclose(f);
	return n;
}

static inline int fc_in(int pid, const int *set)
{
	for (; *set; set++)
		if (*set == pid)
			return 1;
	return 0;
}

/*
 * The contract over @rows: threads of @followed (0-terminated tgids) ran
 * only traced, every other thread only untraced; each process of
 * @followed and @others (0-terminated) was seen.  @traced[cpu]: the
 * followed processes' samples per CPU.
 */
static inline void fc_judge(const char *what, const struct fc_row *rows,
			    int n, const int *followed, const int *others,
			    unsigned long long *traced)
{
	const int *p;
	int i;

	for (i = 0; i < FC_NCPU; i++)
		traced[i] = 0;
	for (i = 0; i < n; i++) {
		const struct fc_row *r = &rows[i];

		if (fc_in(r->tgid, followed)) {
			CHECK(!r->untraced,
			      "%s: followed thread %d (%s) ran %llu samples untraced on CPU %d",
			      what, r->tid, r->comm, r->untraced, r->cpu);
			if (r->cpu < FC_NCPU)
				traced[r->cpu] += r->traced;
		} else {
			CHECK(!r->traced,
			      "%s: thread %d of %d (%s), not followed, ran %llu traced on CPU %d",
			      what, r->tid, r->tgid, r->comm, r->traced, r->cpu);
		}
	}
	for (p = followed; *p; p++) {
		unsigned long long s = 0;

		for (i = 0; i < n; i++)
			if (rows[i].tgid == *p)
				s += rows[i].traced;
		CHECK(s, "%s: followed process %d never seen traced", what, *p);
	}
	for (p = others; *p; p++) {
		unsigned long long s = 0;

		for (i = 0; i < n; i++)
			if (rows[i].tgid == *p)
				s += rows[i].untraced + rows[i].traced;
		CHECK(s, "%s: process %d never seen by the witness", what, *p);
	}
}

#endif /* FOLLOW_COMMON_H */
