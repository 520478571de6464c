// SPDX-License-Identifier: GPL-2.0
/*
 * FOLLOW of processes that share, reuse or change what names them, held
 * to the witness (follow_common.h: followed threads only traced, all
 * others only untraced):
 *  vfork:  the followed process vforks a child that spins on its memory;
 *  vm:     clone(CLONE_VM) without CLONE_THREAD: a second process on the
 *          followed one's mm, spinning beside it;
 *          both followed only with PT_FOLLOW_INHERIT, and never
 *          otherwise, though they run on the same page tables;
 *  ptrace: the followed process ptrace-seized, interrupted and continued
 *          by this (unfollowed) test while it spins;
 *  reuse:  the followed process exits and a new one is created with its
 *          pid (clone3 set_tid): not followed, the set stays empty;
 *  init:   FOLLOW of pid 1 (root): START, spinners beside it untraced;
 *  exec:   a child that FOLLOWs itself and execs this program: the new
 *          image is traced, and its exit releases the devices.
 * (Zombies and kernel threads: follow_bad.)  Passes: nothing found.
 * About 6 s; icl only.
 * ptt-timeout: 60
 */
#define _GNU_SOURCE
#include <linux/sched.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>

#include "follow_common.h"

#define SPIN_MS		300

static struct fc_row rows[FC_MAX_ROWS];

/* The last GET_FOLLOW on CPU 0, and every device stopped and closed. */
static struct pt_trace_follow_status finish(int *fd)
{
	struct pt_trace_follow_status fs = fc_status(fd[0]);
	int cpu;

	for (cpu = 0; cpu < FC_NCPU; cpu++) {
		CHECK(!ioctl(fd[cpu], PT_TRACE_IOC_STOP), "STOP: %s",
		      strerror(errno));
		close(fd[cpu]);
	}
	return fs;
}

/* ---- vfork and clone(CLONE_VM) ---- */

static int vm_child(void *arg)
{
	fc_spin_for(arg);
	return 0;
}

/* The followed process: spin, then vfork or clone a spinner; report it. */
static int share_how;

static void sharer(void *arg)
{
	int rep = *(int *)arg;
	pid_t c;

	fc_spin_for((void *)100L);
	if (share_how == 0) {
		c = vfork();
		if (!c) {
			/* On the parent's stack and memory: spin, then go. */
			fc_spin_for((void *)(long)SPIN_MS);
			_exit(0);
		}
	} else {
		size_t sz = 256 << 10;
		char *stk = mmap(NULL, sz, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (stk == MAP_FAILED)
			_exit(2);
		c = clone(vm_child, stk + sz, CLONE_VM | SIGCHLD,
			  (void *)(long)SPIN_MS);
	}
	if (c < 0 || write(rep, &c, sizeof(c)) != sizeof(c))
		_exit(3);
	fc_spin_for((void *)(long)SPIN_MS);
	waitpid(c, NULL, 0);
}

static void part_share(int how, __u32 flags)
{
	const char *what = how ? (flags ? "clone(CLONE_VM) inherit" :
					  "clone(CLONE_VM)") :
				 (flags ? "vfork inherit" : "vfork");
	struct pt_trace_follow_status fs;
	unsigned long long traced[FC_NCPU];
	int fd[FC_NCPU], go, rep[2], n, st;
	pid_t par, child = 0, other;

	share_how = how;
	other = fc_spinner(0x3, NULL);
	REQUIRE(!pipe(rep), "pipe");
	par = fc_child(sharer, &rep[1], &go);
	fc_start_all(fd, PT_MODE_FLIGHT, 1 << 20, par, flags);
	fc_witness_start();
	fc_go(go);
	REQUIRE(read(rep[0], &child, sizeof(child)) == sizeof(child),
		"%s: child pid", what);
	REQUIRE(waitpid(par, &st, 0) == par && WIFEXITED(st) &&
		!WEXITSTATUS(st), "%s: the followed process failed: %#x", what,
		st);
	n = fc_witness_stop(rows);
	fs = finish(fd);
	fprintf(stderr, "PTT-INFO %s: joined %llu left %llu processes %llu state %#x\n",
		what, (unsigned long long)fs.joined,
		(unsigned long long)fs.left,
		(unsigned long long)fs.processes, fs.state);
	if (flags)
		fc_judge(what, rows, n, (int[]){ par, child, 0 },
			 (int[]){ other, 0 }, traced);
	else
		fc_judge(what, rows, n, (int[]){ par, 0 },
			 (int[]){ other, child, 0 }, traced);
	CHECK(fs.joined == (flags ? 2u : 1u) && fs.left == fs.joined &&
	      !fs.processes && (fs.state & PT_FOLLOW_EMPTY),
	      "%s: GET_FOLLOW joined %llu left %llu processes %llu state %#x",
	      what, (unsigned long long)fs.joined,
	      (unsigned long long)fs.left, (unsigned long long)fs.processes,
	      fs.state);
	fc_kill(other);
	close(rep[0]);
}

/* ---- ptrace ---- */

static void part_ptrace(void)
{
	unsigned long long traced[FC_NCPU];
	int fd[FC_NCPU], n, i, st;
	pid_t victim = fc_spinner(0x3, NULL);

	fc_start_all(fd, PT_MODE_FLIGHT, 1 << 20, victim, 0);
	fc_witness_start();
	REQUIRE(!ptrace(PTRACE_SEIZE, victim, 0, 0), "PTRACE_SEIZE: %s",
		strerror(errno));
	for (i = 0; i < 10; i++) {
		fc_sleep_ms(30);
		CHECK(!ptrace(PTRACE_INTERRUPT, victim, 0, 0),
		      "PTRACE_INTERRUPT: %s", strerror(errno));
		if (waitpid(victim, &st, __WALL) != victim)
			break;
		/* The tracer reads the stopped process's memory. */
		errno = 0;
		ptrace(PTRACE_PEEKDATA, victim, (void *)&traced, 0);
		CHECK(!errno, "PEEKDATA: %s", strerror(errno));
		ptrace(PTRACE_CONT, victim, 0, 0);
	}
	fc_sleep_ms(50);
	n = fc_witness_stop(rows);
	ptrace(PTRACE_DETACH, victim, 0, 0);
	/*
	 * The tracer (this process) is not required to be seen: it sleeps
	 * and waits nearly all the time, and on a loaded 6.1 VM the
	 * witness once had no sample of it.  Any sample of it must still
	 * be untraced (fc_judge()'s first loop).
	 */
	fc_judge("ptrace", rows, n, (int[]){ victim, 0 }, (int[]){ 0 },
		 traced);
	fc_kill(victim);
	finish(fd);
}

/* ---- a pid reused ---- */

static pid_t clone_with_pid(pid_t pid)
{
	struct clone_args a = { .exit_signal = SIGCHLD };
	pid_t set = pid;
	long r;

	a.set_tid = (unsigned long)&set;
	a.set_tid_size = 1;
	r = syscall(SYS_clone3, &a, sizeof(a));
	if (!r) {
		fc_spinner_threads(0x3);
		_exit(0);
	}
	return r;
}

static void part_reuse(void)
{
	struct pt_trace_follow_status fs;
	unsigned long long traced[FC_NCPU];
	int fd[FC_NCPU], n;
	pid_t victim = fc_spinner(0x3, NULL), again;
	__u64 in0;

	fc_start_all(fd, PT_MODE_FLIGHT, 1 << 20, victim, PT_FOLLOW_INHERIT);
	fc_sleep_ms(50);
	fc_kill(victim);
	fs = fc_status(fd[0]);
	in0 = fs.switches_in;
	CHECK(!fs.processes && (fs.state & PT_FOLLOW_EMPTY),
	      "reuse: the process exited, the set says %llu processes, state %#x",
	      (unsigned long long)fs.processes, fs.state);
	again = clone_with_pid(victim);
	if (again < 0) {
		fprintf(stderr, "PTT-INFO reuse: clone3 set_tid %d: %s\n",
			victim, strerror(errno));
		finish(fd);
		return;
	}
	CHECK(again == victim, "clone3 set_tid %d gave %d", victim, again);
	fc_witness_start();
	fc_sleep_ms(SPIN_MS);
	n = fc_witness_stop(rows);
	fs = finish(fd);
	fc_judge("reuse", rows, n, (int[]){ 0 }, (int[]){ again, 0 }, traced);
	CHECK(!fs.processes && fs.joined == 1 && fs.left == 1 &&
	      fs.switches_in == in0,
	      "reuse: pid %d again: processes %llu joined %llu left %llu switches_in %llu -> %llu",
	      again, (unsigned long long)fs.processes,
	      (unsigned long long)fs.joined, (unsigned long long)fs.left,
	      (unsigned long long)in0, (unsigned long long)fs.switches_in);
	fc_kill(again);
}

/* ---- pid 1 ---- */

/*
 * Not fc_judge(): init (the runner) may run or not meanwhile.  Whatever
 * of it ran was traced; the spinner beside it was not.
 */
static void part_init(void)
{
	unsigned long long seen = 0;
	int fd[FC_NCPU], n, i;
	pid_t other = fc_spinner(0x3, NULL);

	fc_start_all(fd, PT_MODE_FLIGHT, 1 << 20, 1, 0);
	fc_witness_start();
	fc_sleep_ms(200);
	n = fc_witness_stop(rows);
	finish(fd);
	for (i = 0; i < n; i++) {
		const struct fc_row *r = &rows[i];

		if (r->tgid == 1)
			CHECK(!r->untraced, "init: pid 1 ran %llu samples untraced on CPU %d",
			      r->untraced, r->cpu);
		else
			CHECK(!r->traced, "init: thread %d of %d (%s) ran %llu samples traced",
			      r->tid, r->tgid, r->comm, r->traced);
		if (r->tgid == other)
			seen += r->untraced;
	}
	CHECK(seen, "init: the spinner %d was never seen", other);
	fc_kill(other);
}

/* ---- our own pid, then exec ---- */

static void part_exec(const char *self)
{
	unsigned long long traced[FC_NCPU];
	pid_t child, other = fc_spinner(0x3, NULL);
	int go[2], ready[2], n, st, fd;
	char c;

	REQUIRE(!pipe(go) && !pipe(ready), "pipe");
	child = fork();
	REQUIRE(child >= 0, "fork");
	if (!child) {
		int cfd[FC_NCPU];

		/* Followed by itself; the fds survive the exec. */
		fc_start_all(cfd, PT_MODE_FLIGHT, 1 << 20, getpid(), 0);
		if (write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(1);
		execl(self, "follow_hostile", "spin", "400", NULL);
		_exit(2);
	}
	/* Both devices follow it before the witness looks. */
	REQUIRE(read(ready[0], &c, 1) == 1, "the exec child failed");
	fc_witness_start();
	fc_go(go[1]);
	REQUIRE(waitpid(child, &st, 0) == child && WIFEXITED(st) &&
		!WEXITSTATUS(st), "exec child: %#x", st);
	close(ready[0]);
	close(ready[1]);
	n = fc_witness_stop(rows);
	fc_judge("exec", rows, n, (int[]){ child, 0 }, (int[]){ other, 0 },
		 traced);
	fc_kill(other);
	close(go[0]);
	/* Its exit closed the devices. */
	fd = ptt_open_cpu(0, O_RDWR);
	CHECK(fd >= 0, "/dev/pt0 after the exec'd follower exited: %s",
	      strerror(errno));
	if (fd >= 0)
		close(fd);
}

int main(int argc, char **argv)
{
	fc_spin_main(argc, argv);
	fc_icl_only();
	part_share(0, 0);
	part_share(0, PT_FOLLOW_INHERIT);
	part_share(1, 0);
	part_share(1, PT_FOLLOW_INHERIT);
	part_ptrace();
	part_reuse();
	part_init();
	part_exec("/proc/self/exe");
	return ptt_done();
}
