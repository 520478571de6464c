// SPDX-License-Identifier: GPL-2.0
/*
 * A session changing hands, and the charges it leaves behind:
 *  handover: root opens /dev/pt1 and /dev/bts1 (without CAP_IPC_LOCK,
 *           so their pages are charged to its mm's pinned_vm), configures
 *           kernel tracing, STARTs, maps, and gives the files to a child
 *           that drops to uid/gid 65534 (nobody), then exits.  nobody
 *           may read, map, GET_STATUS and STOP, but not configure
 *           (SET_CONFIG, SET_BUFSIZE) or START again (EPERM: the
 *           privilege is checked at each, not only at open); root's
 *           /dev/pt0 and /dev/bts0, configured and never started, do not
 *           start under nobody's read(2) (EPERM, configuration left as
 *           it was).  nobody's close is the last: the charge goes back
 *           to the exited opener's mm (KASAN: the mm is grabbed) and
 *           both devices open again.
 *  tight:   every START (after an mmap of the control page) under a
 *           global cap (locked_max_kb) from 4 KiB up, PT and BTS, flight
 *           and streaming, so that each allocation (ring, control page,
 *           BTS's DS area and buffer) fails in turn: ENOMEM and nothing
 *           else, and a second START on the same file after it.
 * Then nothing is left charged: with locked_max_kb at exactly what a
 * 4 MiB PT buffer charges (4100 KiB), its START works after the test as
 * before it, and VmPin is 0.  icl only (the paths are above the hw ops).
 * About 3 s.  Written in session 31's hostile-ABI hunt: it found no bug,
 * but no other test checks that charges come back after failed STARTs
 * or across a change of hands, or privileges after one (with
 * bts_src_may_start()'s check or bts_ds_drop()'s uncharge removed it
 * fails).
 * ptt-timeout: 60
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/pt_trace.h>

#include "bts_common.h"

#define LOCKED_MAX	"/sys/module/pt_trace/parameters/locked_max_kb"

static long pg;
static int have_bts;

static int open_dev(const char *kind, int cpu, int flags)
{
	char path[32];

	snprintf(path, sizeof(path), "/dev/%s%d", kind, cpu);
	return open(path, O_RDWR | flags);
}

/* ctl 0: kernel and user (BTS: both sides; PT: with BranchEn). */
static int cfg(int fd, int bts, __u64 ctl, __u32 mode, __u64 size, __u32 wm)
{
	if (!ctl)
		ctl = bts ? bts_ctl_here() :
		      PT_CTL_BRANCHEN | PT_CTL_USER | PT_CTL_OS;
	/* SET_CONFIG of any device (bts_common.h) */
	return bts_config(fd, ctl, mode, size, wm);
}

static int status(int fd, struct pt_trace_status *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	return ioctl(fd, PT_TRACE_IOC_GET_STATUS, st);
}

/*
 * The global cap: with locked_max_kb at exactly what a 4 MiB PT buffer
 * charges (its pages and the control page), START works only when no
 * other charge is left anywhere.  -1: could not tell.
 */
static int cap_free(void)
{
	char old[64] = "";
	int fd, ret;

	if (ptt_read_str(LOCKED_MAX, old, sizeof(old)) < 0)
		return -1;
	fd = open_dev("pt", 0, 0);
	if (fd < 0)
		return -1;
	ret = cfg(fd, 0, PT_CTL_BRANCHEN | PT_CTL_USER, PT_MODE_FLIGHT,
		  4 << 20, 0);
	if (!ret) {
		ptt_write_str(LOCKED_MAX, "4100");
		ret = ioctl(fd, PT_TRACE_IOC_START) ? errno : 0;
		ptt_write_str(LOCKED_MAX, old);
		ioctl(fd, PT_TRACE_IOC_STOP);
	}
	close(fd);
	return ret;
}

/*
 * tight: every START under a global cap from one page up, so that each
 * allocation (the ring, its control page, BTS's DS area and buffer)
 * fails in turn: ENOMEM, nothing kept charged (cap_free() after).
 */
static void part_tight(void)
{
	char old[64] = "", v[32];
	int kb, k, fd, ok = 0, nomem = 0;
	void *m;

	if (ptt_read_str(LOCKED_MAX, old, sizeof(old)) < 0)
		return;
	for (kb = 4; kb <= 160; kb += 4) {
		for (k = 0; k < (have_bts ? 4 : 2); k++) {
			int bts = k >= 2, mode = k & 1;

			fd = open_dev(bts ? "bts" : "pt", 1, 0);
			if (fd < 0)
				continue;
			cfg(fd, bts, 0, mode, 65536, 0);
			snprintf(v, sizeof(v), "%d", kb);
			ptt_write_str(LOCKED_MAX, v);
			m = mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, 0);
			CHECK(m != MAP_FAILED || errno == ENOMEM,
			      "mmap under %d KiB: %s", kb, strerror(errno));
			if (!ioctl(fd, PT_TRACE_IOC_START)) {
				ok++;
			} else {
				CHECK(errno == ENOMEM, "%s START under %d KiB: %s",
				      bts ? "BTS" : "PT", kb, strerror(errno));
				nomem++;
			}
			/* Again: a failed START left nothing half-set. */
			if (!ioctl(fd, PT_TRACE_IOC_START))
				ok++;
			else
				CHECK(errno == ENOMEM || errno == EBUSY,
				      "%s START again under %d KiB: %s",
				      bts ? "BTS" : "PT", kb, strerror(errno));
			ptt_write_str(LOCKED_MAX, old);
			ioctl(fd, PT_TRACE_IOC_STOP);
			if (m != MAP_FAILED)
				munmap(m, pg);
			close(fd);
		}
	}
	ptt_write_str(LOCKED_MAX, old);
	/* 4 KiB holds nothing, 160 KiB every 64 KiB session. */
	CHECK(ok && nomem, "tight: %d starts, %d ENOMEM", ok, nomem);
}

/* A call nobody may not make: 1 (and why) unless it failed with EPERM. */
static int not_eperm(long ret, int i, const char *what)
{
	if (ret < 0 && errno == EPERM)
		return 0;
	fprintf(stderr, "nobody, file %d: %s %s (want EPERM)\n", i, what,
		ret < 0 ? strerror(errno) : "succeeded");
	return 1;
}

/* nobody: what it may and may not do with root's files. */
static int nobody_side(int *fds, pid_t opener)
{
	static unsigned char buf[64 << 10];
	struct pt_trace_config c;
	struct pt_trace_status st;
	int i, bad = 0;
	__u64 size = 8192;
	ssize_t n;
	void *m;

	if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
		return 1;
	/* The opener, whose mm the buffers are charged to, is gone. */
	while (getppid() == opener)
		usleep(1000);
	/* Running, root's kernel tracing: use it, stop it, no more. */
	for (i = 0; i < (have_bts ? 2 : 1); i++) {
		int fd = fds[i], bts = i == 1;

		fcntl(fd, F_SETFL, O_NONBLOCK);
		if (status(fd, &st) || !(st.flags & PT_STATUS_RUNNING)) {
			fprintf(stderr, "nobody, file %d: status %s flags %#x\n",
				i, strerror(errno), st.flags);
			bad = 1;
		}
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno != EAGAIN) {
			fprintf(stderr, "nobody, file %d: read %s\n", i,
				strerror(errno));
			bad = 1;
		}
		m = mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED) {
			fprintf(stderr, "nobody, file %d: mmap %s\n", i,
				strerror(errno));
			bad = 1;
		}
		if (ioctl(fd, PT_TRACE_IOC_STOP)) {
			fprintf(stderr, "nobody, file %d: STOP %s\n", i,
				strerror(errno));
			bad = 1;
		}
		bad |= not_eperm(ioctl(fd, PT_TRACE_IOC_SET_BUFSIZE, &size), i,
				 "SET_BUFSIZE");
		bad |= not_eperm(cfg(fd, bts, 0, PT_MODE_STREAM, 64 << 10, 0),
				 i, "SET_CONFIG");
		bad |= not_eperm(ioctl(fd, PT_TRACE_IOC_START), i, "START");
		/* Stopped: the rest of the stream, then the end. */
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			;
		if (n < 0) {
			fprintf(stderr, "nobody, file %d: read after STOP %s\n",
				i, strerror(errno));
			bad = 1;
		}
		if (m != MAP_FAILED)
			munmap(m, pg);
	}
	/*
	 * Configured by root (kernel tracing), never started: a read(2)
	 * would start it (autostart) as the caller, who may not.
	 */
	for (i = 2; i < (have_bts ? 4 : 3); i++) {
		bad |= not_eperm(read(fds[i], buf, 1), i, "read (autostart)");
		memset(&c, 0, sizeof(c));
		c.size = sizeof(c);
		if (ioctl(fds[i], PT_TRACE_IOC_GET_CONFIG, &c) ||
		    c.mode != PT_MODE_FLIGHT) {
			fprintf(stderr, "nobody, file %d: mode %u after the read\n",
				i, c.mode);
			bad = 1;
		}
		bad |= not_eperm(ioctl(fds[i], PT_TRACE_IOC_START), i, "START");
		close(fds[i]);
	}
	/* Last close here: the charge goes back to the exited opener. */
	close(fds[0]);
	if (have_bts)
		close(fds[1]);
	return bad;
}

static void drop_ipc_lock(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	struct rlimit rl = { 256 << 20, 256 << 20 };

	/* Room for both buffers under the limit that now applies. */
	if (setrlimit(RLIMIT_MEMLOCK, &rl))
		_exit(32);
	if (syscall(SYS_capget, &h, d))
		_exit(30);
	d[0].effective &= ~(1U << CAP_IPC_LOCK);
	if (syscall(SYS_capset, &h, d))
		_exit(31);
}

static void part_handover(void)
{
	int st, fds[4] = { -1, -1, -1, -1 };
	pid_t opener, nobody;
	void *m;

	/* nobody comes back to this process when the opener exits. */
	REQUIRE(!prctl(PR_SET_CHILD_SUBREAPER, 1), "subreaper: %s",
		strerror(errno));
	opener = fork();
	REQUIRE(opener >= 0, "fork: %s", strerror(errno));
	if (!opener) {
		opener = getpid();
		/* Charged to this process's mm, which goes first. */
		drop_ipc_lock();
		fds[0] = open_dev("pt", 1, 0);
		if (fds[0] < 0 ||
		    cfg(fds[0], 0, 0, PT_MODE_STREAM, 64 << 10, 0) ||
		    ioctl(fds[0], PT_TRACE_IOC_START))
			_exit(20);
		m = mmap(NULL, pg + (64 << 10), PROT_READ, MAP_SHARED,
			 fds[0], 0);
		if (m == MAP_FAILED)
			_exit(21);
		if (have_bts) {
			fds[1] = open_dev("bts", 1, 0);
			if (fds[1] < 0 ||
			    cfg(fds[1], 1, bts_ctl_here() | PT_BTS_CTL_SWITCHES,
				PT_MODE_STREAM, 64 << 10, 0) ||
			    ioctl(fds[1], PT_TRACE_IOC_START))
				_exit(22);
		}
		if (ptt_vmpin_kb() <= 0)
			_exit(26);	/* not charged here: nothing to test */
		fds[2] = open_dev("pt", 0, 0);
		if (fds[2] < 0 ||
		    cfg(fds[2], 0, 0, PT_MODE_FLIGHT, 64 << 10, 0))
			_exit(24);
		if (have_bts) {
			fds[3] = open_dev("bts", 0, 0);
			if (fds[3] < 0 ||
			    cfg(fds[3], 1, 0, PT_MODE_FLIGHT, 64 << 10, 0))
				_exit(25);
		}
		/* The files go to nobody, the mapping stays with the opener. */
		nobody = fork();
		if (!nobody)
			_exit(nobody_side(fds, opener));
		_exit(nobody < 0 ? 23 : 0);
	}
	REQUIRE(waitpid(opener, &st, 0) == opener, "wait opener");
	CHECK(WIFEXITED(st) && !WEXITSTATUS(st), "opener: status %#x", st);
	nobody = waitpid(-1, &st, 0);
	REQUIRE(nobody > 0, "wait nobody: %s", strerror(errno));
	CHECK(WIFEXITED(st) && !WEXITSTATUS(st),
	      "nobody: status %#x (the lines above say why)", st);
	/* Released at nobody's close. */
	fds[0] = open_dev("pt", 1, 0);
	CHECK(fds[0] >= 0, "pt1 after handover: %s", strerror(errno));
	close(fds[0]);
	if (have_bts) {
		fds[1] = open_dev("bts", 1, 0);
		CHECK(fds[1] >= 0, "bts1 after handover: %s", strerror(errno));
		close(fds[1]);
	}
}

int main(void)
{
	int c0, c1;

	pg = sysconf(_SC_PAGESIZE);
	if (getenv("PTT_PROFILE") && strcmp(getenv("PTT_PROFILE"), "icl"))
		SKIP("runs on icl (the paths are above the hw ops)");
	have_bts = ptt_read_ll("/sys/kernel/pt_trace/bts/present") == 1 &&
		   !bts_pti() && access("/dev/bts1", F_OK) == 0;
	if (access("/dev/pt1", F_OK))
		SKIP("needs CPU 1");
	c0 = cap_free();
	part_handover();
	part_tight();
	c1 = cap_free();
	CHECK(c0 != 0 || c1 == 0,
	      "a 4 MiB buffer under locked_max_kb=4100 started before, not after: %s (a charge leaked)",
	      strerror(c1));
	if (c0)
		fprintf(stderr, "no leak check: the 4 MiB START failed before (%s)\n",
			c0 < 0 ? "no locked_max_kb" : strerror(c0));
	CHECK(ptt_vmpin_kb() == 0, "VmPin %ld kB", ptt_vmpin_kb());
	return ptt_done();
}
