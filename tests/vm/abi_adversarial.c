// SPDX-License-Identifier: GPL-2.0
/*
 * The ABI against a hostile caller: malformed structures, random ioctl
 * numbers, random configurations, mmap abuse, a scribbled control page
 * and threads racing on one file.  Bad input must get an error (never a
 * warning or an oops: the VM panics on either), and every configuration
 * the driver accepts must run without a single modelled #GP or RTIT
 * operational error: the driver validates before it touches an MSR.
 * Seeded from PTT_SEED (default fixed) so a failure can be replayed.
 * ptt-timeout: 60 (its phases are bounded, about 20 s together at most;
 * a loaded debug kernel needs more than the default 30 s)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/pt_trace.h>

#include "ptt_test.h"

#define MODEL_GP	"/sys/kernel/debug/pt_trace/model/gp_faults"
#define DRIVER_GP	"/sys/kernel/debug/pt_trace/msr_faults"

static struct pt_trace_caps caps = { .size = sizeof(caps) };
static unsigned long long rng_state;

static unsigned long long rnd(void)
{
	unsigned long long x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	rng_state = x;
	return x;
}

static int errno_ok(int e)
{
	switch (e) {
	case EINVAL: case EOPNOTSUPP: case E2BIG: case EBUSY: case EPERM:
	case ENOMEM: case EFAULT: case ENOTTY: case ESRCH: case ERANGE:
	case EAGAIN: case ENODEV:
		return 1;
	}
	return 0;
}

/*
 * The model's and the driver's #GP counters must not move during this
 * test; they count since load, and an earlier test in this VM may have
 * added some.  The first call takes the baseline.
 */
static void check_no_gp(const char *when)
{
	static long long m0, d0;
	static int have_base;
	long long m = ptt_read_ll(MODEL_GP), d = ptt_read_ll(DRIVER_GP);

	if (!have_base) {
		m0 = m;
		d0 = d;
		have_base = 1;
	}
	CHECK(m == m0 && d == d0,
	      "%s: model #GPs +%lld, driver MSR faults +%lld", when, m - m0,
	      d - d0);
}

/* ---- 1. Structure sizes: too small, too big, non-zero tails ---- */

struct sized {
	const char *name;
	unsigned long cmd;
	unsigned int ver0;
	int in;		/* the driver reads the structure */
};

static const struct sized sized[] = {
	{ "GET_CAPS", PT_TRACE_IOC_GET_CAPS, PT_TRACE_CAPS_SIZE_VER0, 0 },
	{ "SET_CONFIG", PT_TRACE_IOC_SET_CONFIG, PT_TRACE_CONFIG_SIZE_VER0, 1 },
	{ "GET_CONFIG", PT_TRACE_IOC_GET_CONFIG, PT_TRACE_CONFIG_SIZE_VER0, 0 },
	{ "SET_CR3", PT_TRACE_IOC_SET_CR3, PT_TRACE_CR3_SIZE_VER0, 1 },
	{ "SET_CYC", PT_TRACE_IOC_SET_CYC, PT_TRACE_CYC_SIZE_VER0, 1 },
	{ "SET_ADDR", PT_TRACE_IOC_SET_ADDR, PT_TRACE_ADDR_SIZE_VER0, 1 },
	{ "GET_STATUS", PT_TRACE_IOC_GET_STATUS, PT_TRACE_STATUS_SIZE_VER0, 0 },
	{ "FOLLOW", PT_TRACE_IOC_FOLLOW, PT_TRACE_FOLLOW_SIZE_VER0, 1 },
	{ "GET_FOLLOW", PT_TRACE_IOC_GET_FOLLOW, PT_TRACE_FOLLOW_STATUS_SIZE_VER0, 0 },
};

/*
 * SET_CR3 answers in its structure: one the caller cannot write (a
 * read-only page) fails with EFAULT, and before the filter changes.
 */
static void test_cr3_readonly(int fd)
{
	struct pt_trace_config c = { .size = sizeof(c) };
	long pg = sysconf(_SC_PAGESIZE);
	struct pt_trace_cr3 *cr;
	int r, e;

	if (!(caps.flags & PT_CAP_CR3_FILTER))
		return;
	cr = mmap(NULL, pg, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	REQUIRE(cr != MAP_FAILED, "mmap");
	cr->size = sizeof(*cr);
	cr->how = PT_CR3_BY_PID;
	REQUIRE(mprotect(cr, pg, PROT_READ) == 0, "mprotect");
	errno = 0;
	r = ioctl(fd, PT_TRACE_IOC_SET_CR3, cr);
	e = errno;
	CHECK(r == -1 && e == EFAULT, "SET_CR3 from read-only memory: %d %s",
	      r, strerror(e));
	REQUIRE(ioctl(fd, PT_TRACE_IOC_GET_CONFIG, &c) == 0, "GET_CONFIG");
	CHECK(!(c.ctl & PT_CTL_CR3FILTER) && !c.cr3_match,
	      "SET_CR3 failed (%s) but set the filter (cr3 %#llx)",
	      strerror(e), (unsigned long long)c.cr3_match);
	ioctl(fd, PT_TRACE_IOC_SET_CR3,
	      &(struct pt_trace_cr3){ .size = sizeof(*cr), .how = PT_CR3_OFF });
	munmap(cr, pg);
}

static void test_sizes(int fd)
{
	static __u64 big64[3 * 4096 / 8];
	__u8 *big = (__u8 *)big64;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sized); i++) {
		const struct sized *s = &sized[i];
		__u32 sz[] = { 0, 4, s->ver0 - 8, s->ver0 - 1 };
		unsigned int j;
		int r;

		errno = 0;
		r = ioctl(fd, s->cmd, NULL);
		CHECK(r == -1 && errno == EFAULT, "%s(NULL): %d %s", s->name,
		      r, strerror(errno));
		r = ioctl(fd, s->cmd, (void *)8);
		CHECK(r == -1 && errno == EFAULT, "%s(8): %d %s", s->name, r,
		      strerror(errno));
		for (j = 0; j < ARRAY_SIZE(sz); j++) {
			memset(big64, 0, sizeof(big64));
			memcpy(big, &sz[j], 4);
			errno = 0;
			r = ioctl(fd, s->cmd, big);
			CHECK(r == -1 && errno == EINVAL, "%s(size %u): %d %s",
			      s->name, sz[j], r, strerror(errno));
		}
		/* Larger than a page: refused. */
		memset(big64, 0, sizeof(big64));
		*(__u32 *)big = 2 * 4096;
		r = ioctl(fd, s->cmd, big);
		if (s->in)
			CHECK(r == -1 && errno == E2BIG, "%s(8 KiB): %d %s",
			      s->name, r, strerror(errno));
		if (!s->in)
			continue;
		/* A longer structure with a non-zero unknown tail. */
		memset(big64, 0, sizeof(big64));
		*(__u32 *)big = s->ver0 + 64;
		big[s->ver0 + 63] = 1;
		errno = 0;
		r = ioctl(fd, s->cmd, big);
		CHECK(r == -1 && errno == E2BIG, "%s(tail): %d %s", s->name, r,
		      strerror(errno));
		/* The structure's end on an unmapped page: EFAULT, no oops. */
		{
			long pg = sysconf(_SC_PAGESIZE);
			__u8 *m = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			REQUIRE(m != MAP_FAILED, "mmap");
			munmap(m + pg, pg);
			*(__u32 *)(m + pg - 8) = s->ver0;
			errno = 0;
			r = ioctl(fd, s->cmd, m + pg - 8);
			CHECK(r == -1 && errno == EFAULT, "%s(at a page end): %d %s",
			      s->name, r, strerror(errno));
			munmap(m, pg);
		}
	}
}

/* ---- 2. Random ioctl numbers ---- */

static void test_random_cmds(int fd)
{
	static __u64 arg64[4096 / 8];
	__u8 *arg = (__u8 *)arg64;
	int i;

	for (i = 0; i < 3000; i++) {
		unsigned long long r = rnd();
		unsigned int nr = r & 0x3f, dir = (r >> 8) & 3;
		unsigned int size = (r >> 10) & 0x3fff;
		unsigned long cmd = _IOC(dir, i & 1 ? PT_TRACE_IOC_MAGIC : (r >> 24) & 0xff,
					 nr, size);
		unsigned int k;
		int ret;

		/* Start and stop are exercised elsewhere, with valid state. */
		if (cmd == PT_TRACE_IOC_START || cmd == PT_TRACE_IOC_STOP)
			continue;
		for (k = 0; k < 64; k++)
			arg[k] = rnd();
		*(__u32 *)arg = (r >> 32) & 0x1ff;
		errno = 0;
		ret = ioctl(fd, cmd, arg);
		CHECK(ret == 0 || errno_ok(errno), "ioctl %#lx: %d %s", cmd,
		      ret, strerror(errno));
	}
	ioctl(fd, PT_TRACE_IOC_STOP);
}

/* ---- 3. Random configurations: accepted ones must run cleanly ---- */

static __u64 pick_field(__u64 mask, __u32 bitmap)
{
	unsigned int shift = __builtin_ctzll(mask), v = rnd() & 15;

	if (!bitmap)
		return 0;	/* the field does not exist here */

	/* Mostly a valid encoding, sometimes anything. */
	if (rnd() & 3)
		while (!(bitmap & (1u << v)))
			v = (v + 1) & 15;
	return (__u64)v << shift;
}

static __u64 rnd_addr(void)
{
	switch (rnd() & 3) {
	case 0: return rnd();				/* often non-canonical */
	case 1: return rnd() & 0x00007fffffffffffULL;	/* user */
	case 2: return rnd() | 0xffff800000000000ULL;	/* kernel */
	}
	return (unsigned long)&rnd_addr + (rnd() & 0xffff);
}

/*
 * A configuration that is valid on its face (each field within what the
 * caps list), then, one time in three, one field made wrong.  The driver
 * may still refuse combinations; what it accepts must run cleanly.
 */
static void rnd_config(struct pt_trace_config *c)
{
	static const __u64 sizes[] = { 0, 4096, 8192, 12288, 16 << 10,
				       64 << 10, 1 << 20, 3 << 20 };
	unsigned int n;

	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	c->ctl = (rnd() & caps.ctl_valid) | PT_CTL_USER;
	if (!(rnd() & 3))
		c->ctl &= ~PT_CTL_OS;
	c->ctl &= ~(PT_CTL_MTCFREQ_MASK | PT_CTL_CYCTHRESH_MASK |
		    PT_CTL_PSBFREQ_MASK);
	c->ctl |= pick_field(PT_CTL_MTCFREQ_MASK, caps.mtc_periods);
	c->ctl |= pick_field(PT_CTL_CYCTHRESH_MASK, caps.cyc_thresholds);
	c->ctl |= pick_field(PT_CTL_PSBFREQ_MASK, caps.psb_periods);
	for (n = 0; n < PT_TRACE_MAX_ADDR_RANGES; n++) {
		c->ctl &= ~PT_CTL_ADDR_CFG_MASK(n);
		if (n >= caps.num_addr_ranges || (rnd() & 1))
			continue;
		c->ctl |= (__u64)(rnd() % 3) << PT_CTL_ADDR_CFG_SHIFT(n);
		c->addr[n].start = (unsigned long)&rnd_addr & ~0xfffUL;
		c->addr[n].end = c->addr[n].start + (rnd() & 0xfffff);
	}
	if (c->ctl & PT_CTL_CR3FILTER)
		c->cr3_match = rnd() & 0x7ffff000ULL;
	c->output = rnd() % 3;
	c->mode = rnd() % 2;
	c->buffer_size = sizes[rnd() % ARRAY_SIZE(sizes)];
	if (c->mode == PT_MODE_STREAM && (rnd() & 1))
		c->watermark = rnd() & 0x1fff;

	switch (rnd() % 30) {
	case 0:
		c->ctl |= rnd() & ~caps.ctl_valid;
		break;
	case 1:
		c->ctl |= PT_CTL_TRACEEN;
		break;
	case 2:
		c->ctl |= PT_CTL_TOPA;
		break;
	case 3:
		c->ctl ^= (__u64)(rnd() & 15) << PT_CTL_MTCFREQ_SHIFT;
		break;
	case 4:
		c->ctl ^= (__u64)(rnd() & 15) << PT_CTL_CYCTHRESH_SHIFT;
		break;
	case 5:
		c->ctl ^= (__u64)(rnd() & 15) << PT_CTL_PSBFREQ_SHIFT;
		break;
	case 6:
		n = rnd() % PT_TRACE_MAX_ADDR_RANGES;
		c->ctl |= (__u64)(1 + rnd() % 15) << PT_CTL_ADDR_CFG_SHIFT(n);
		c->addr[n].start = rnd_addr();
		c->addr[n].end = rnd_addr();
		break;
	case 7:
		c->addr[rnd() % 4].start = rnd();
		break;
	case 8:
		c->cr3_match = rnd();
		break;
	case 9:
		c->output = 3 + rnd() % 1000;
		break;
	case 10:
		c->mode = 2 + rnd() % 1000;
		break;
	case 11:
		c->buffer_size = rnd();
		break;
	case 12:
		c->buffer_size = 1ULL << (rnd() % 64);
		break;
	case 13:
		c->watermark = rnd();
		break;
	case 14:
		c->reserved[rnd() & 3] = rnd() | 1;
		break;
	case 15:
		c->ctl |= PT_CTL_FABRICEN;
		break;
	}
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void spin(unsigned int us)
{
	struct timespec t = { 0, us * 1000L };

	nanosleep(&t, NULL);
}

static void test_random_configs(int fd)
{
	struct pt_trace_status st = { .size = sizeof(st) };
	struct pt_trace_config c;
	int i, accepted = 0, started = 0;
	double t0 = now();

	/* 400 tries, or 8 s on a slow (debug) kernel: the test timeout is 30 s. */
	for (i = 0; i < 400 && now() - t0 < 8; i++) {
		int r;

		rnd_config(&c);
		errno = 0;
		r = ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &c);
		if (r) {
			CHECK(errno_ok(errno), "SET_CONFIG: %s", strerror(errno));
			continue;
		}
		accepted++;
		errno = 0;
		r = ioctl(fd, PT_TRACE_IOC_START);
		if (r) {
			/* Only memory may refuse an accepted configuration. */
			CHECK(errno == ENOMEM,
			      "START of an accepted config: %s (ctl %#llx output %u mode %u size %llu)",
			      strerror(errno), (unsigned long long)c.ctl,
			      c.output, c.mode,
			      (unsigned long long)c.buffer_size);
			continue;
		}
		started++;
		spin(2000);
		CHECK(ioctl(fd, PT_TRACE_IOC_STOP) == 0, "STOP: %s",
		      strerror(errno));
		CHECK(ioctl(fd, PT_TRACE_IOC_GET_STATUS, &st) == 0,
		      "GET_STATUS: %s", strerror(errno));
		CHECK(!(st.flags & PT_STATUS_HW_ERROR),
		      "operational error %#llx with ctl %#llx output %u mode %u size %llu",
		      (unsigned long long)st.rtit_status,
		      (unsigned long long)c.ctl, c.output, c.mode,
		      (unsigned long long)c.buffer_size);
		if (ptt_failures)
			break;
	}
	fprintf(stderr, "PTT-INFO random configs: %d accepted, %d started\n",
		accepted, started);
	CHECK(started > 0, "no random configuration was accepted and started");
	check_no_gp("random configurations");
}

/* Random SET_CR3 / SET_CYC / SET_ADDR, then a start must be clean. */
static void test_random_setters(int fd)
{
	struct pt_trace_config c = { .size = sizeof(c) };
	double t0 = now();
	int i, r;

	c.ctl = PT_CTL_USER | PT_CTL_BRANCHEN;
	REQUIRE(ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &c) == 0, "SET_CONFIG: %s",
		strerror(errno));
	for (i = 0; i < 300 && now() - t0 < 5; i++) {
		struct pt_trace_cr3 cr3 = { .size = sizeof(cr3) };
		struct pt_trace_cyc cyc = { .size = sizeof(cyc) };
		struct pt_trace_addr a = { .size = sizeof(a) };

		switch (rnd() % 3) {
		case 0:
			cr3.how = rnd() % 4;
			cr3.cr3 = rnd() & 1 ? rnd() : rnd() & ~0xfffULL & 0xffffffffffULL;
			cr3.pid = rnd() & 1 ? (int)rnd() : (int)(rnd() % 3) - 1;
			cr3.reserved = !(rnd() & 7);
			r = ioctl(fd, PT_TRACE_IOC_SET_CR3, &cr3);
			break;
		case 1:
			cyc.enable = rnd() % 3;
			cyc.threshold = rnd() % 20;
			cyc.reserved = !(rnd() & 7);
			r = ioctl(fd, PT_TRACE_IOC_SET_CYC, &cyc);
			break;
		default:
			a.index = rnd() % 6;
			a.cfg = rnd() % 4;
			a.start = rnd_addr();
			a.end = rnd() & 1 ? a.start + (rnd() & 0xffff) : rnd_addr();
			a.reserved = !(rnd() & 7);
			r = ioctl(fd, PT_TRACE_IOC_SET_ADDR, &a);
			break;
		}
		CHECK(r == 0 || errno_ok(errno), "setter: %s", strerror(errno));
		if (!(i % 10)) {
			errno = 0;
			r = ioctl(fd, PT_TRACE_IOC_START);
			CHECK(r == 0 || errno == ENOMEM, "START: %s",
			      strerror(errno));
			if (!r) {
				spin(1000);
				CHECK(ioctl(fd, PT_TRACE_IOC_STOP) == 0, "STOP");
			}
		}
	}
	check_no_gp("random setters");
}

/* ---- 4. mmap abuse ---- */

static sigjmp_buf fault_jmp;

static void on_fault(int sig)
{
	siglongjmp(fault_jmp, sig);
}

/* Reading @p faults (SIGBUS/SIGSEGV)?  */
static int faults(const __u8 *p)
{
	if (sigsetjmp(fault_jmp, 1))
		return 1;
	(void)__atomic_load_n(p, __ATOMIC_RELAXED);
	return 0;
}

static void test_mmap(int fd)
{
	struct pt_trace_config c = { .size = sizeof(c) };
	long pg = sysconf(_SC_PAGESIZE);
	size_t size = 64 << 10, len = pg + size;
	struct sigaction sa = { .sa_handler = on_fault };
	__u8 *m, *m2;
	pid_t pid;
	int st;

	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	c.ctl = PT_CTL_USER | PT_CTL_BRANCHEN;
	c.buffer_size = size;
	REQUIRE(ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &c) == 0, "SET_CONFIG: %s",
		strerror(errno));

	errno = 0;
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m == MAP_FAILED && errno == EPERM, "writable data mapping: %s",
	      strerror(errno));
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	CHECK(m == MAP_FAILED, "private writable data mapping accepted");
	m = mmap(NULL, len + pg, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(m == MAP_FAILED && errno == EINVAL, "oversized mapping: %s",
	      strerror(errno));
	m = mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, 2 * pg);
	CHECK(m == MAP_FAILED && errno == EINVAL, "mapping at page 2: %s",
	      strerror(errno));
	m = mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, 1ULL << 40);
	CHECK(m == MAP_FAILED, "mapping far beyond the buffer accepted");

	m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	REQUIRE(m != MAP_FAILED, "mmap: %s", strerror(errno));
	errno = 0;
	CHECK(mprotect(m, len, PROT_READ | PROT_WRITE) == -1,
	      "mprotect made the trace writable");
	m2 = mremap(m, len, len + pg, MREMAP_MAYMOVE);
	CHECK(m2 == MAP_FAILED, "mremap grew the mapping");
	/* A size change under a mapping must be refused. */
	errno = 0;
	CHECK(ioctl(fd, PT_TRACE_IOC_SET_BUFSIZE, &(__u64){ 2 * size }) == -1 &&
	      errno == EBUSY, "SET_BUFSIZE under a mapping: %s",
	      strerror(errno));
	/* The child does not inherit it (VM_DONTCOPY). */
	pid = fork();
	if (!pid)
		_exit(faults(m + pg) ? 0 : 1);
	REQUIRE(pid > 0, "fork");
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "a forked child can read the trace mapping (status %#x)", st);
	/* Partial unmap leaves the rest usable. */
	CHECK(munmap(m + pg, pg) == 0, "partial munmap");
	CHECK(!faults(m) && !faults(m + len - 1), "rest of the mapping");
	CHECK(faults(m + pg), "unmapped page still readable");
	munmap(m, len);

	/* Control page alone, shared writable: allowed (data_tail). */
	m = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED, "writable control page: %s", strerror(errno));
	if (m != MAP_FAILED)
		munmap(m, pg);
	signal(SIGSEGV, SIG_DFL);
	signal(SIGBUS, SIG_DFL);
}

/* ---- 5. A scribbled control page must not confuse the driver ---- */

static ssize_t recv_nb(int fd, void *buf, size_t len)
{
	int fl = fcntl(fd, F_GETFL);
	ssize_t n;

	fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	n = read(fd, buf, len);
	fcntl(fd, F_SETFL, fl);
	return n;
}

static void test_scribble(int fd)
{
	struct pt_trace_config c = { .size = sizeof(c) };
	struct pt_trace_status st = { .size = sizeof(st) };
	long pg = sysconf(_SC_PAGESIZE);
	size_t size = 64 << 10;
	static __u8 out[1 << 20];
	__u8 *m;
	ssize_t n;
	int i;

	c.ctl = PT_CTL_USER | PT_CTL_BRANCHEN;
	c.buffer_size = size;
	c.mode = PT_MODE_STREAM;
	if (!(caps.flags & PT_CAP_TOPA)) {
		fprintf(stderr, "PTT-INFO no ToPA: no streaming to scribble on\n");
		return;
	}
	REQUIRE(ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &c) == 0, "SET_CONFIG stream: %s",
		strerror(errno));
	m = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	REQUIRE(m != MAP_FAILED, "control page: %s", strerror(errno));
	REQUIRE(ioctl(fd, PT_TRACE_IOC_START) == 0, "START: %s", strerror(errno));
	for (i = 0; i < 40; i++) {
		unsigned int k;

		for (k = 0; k < (unsigned int)pg; k += 8)
			*(__u64 *)(m + k) = rnd() & 1 ? rnd() : ~0ULL;
		spin(3000);
		n = recv_nb(fd, out, rnd() % sizeof(out));
		CHECK(n >= 0 || errno == EAGAIN || errno == EINVAL,
		      "read after scribbling: %s", strerror(errno));
		CHECK(n <= (ssize_t)sizeof(out), "read %zd", n);
		CHECK(ioctl(fd, PT_TRACE_IOC_GET_STATUS, &st) == 0,
		      "GET_STATUS: %s", strerror(errno));
		CHECK(st.head >= st.offset && st.buffer_size == size,
		      "status after scribbling: head %llu size %llu",
		      (unsigned long long)st.head,
		      (unsigned long long)st.buffer_size);
	}
	CHECK(ioctl(fd, PT_TRACE_IOC_STOP) == 0, "STOP: %s", strerror(errno));
	CHECK(!(st.flags & PT_STATUS_HW_ERROR), "operational error %#llx",
	      (unsigned long long)st.rtit_status);
	munmap(m, pg);
	check_no_gp("scribbled control page");
}

/* ---- 6. read(2) with random counts and hostile buffers ---- */

/*
 * Every read consumes exactly what it returns (data_tail moves by it), 0
 * only at the end after STOP; a buffer in an unmapped page gets EFAULT
 * and consumes nothing; a buffer whose second page is unmapped gets the
 * bytes before the hole.
 */
static void test_read_counts(int fd)
{
	struct pt_trace_config c = { .size = sizeof(c) };
	const struct pt_trace_mmap_page *ctl;
	long pg = sysconf(_SC_PAGESIZE);
	static __u8 out[96 << 10];
	unsigned long long pos = 0, reads = 0;
	double t0;
	__u8 *hole;
	ssize_t n;

	if (!(caps.flags & PT_CAP_TOPA))
		return;
	/* OS too: the model traces what its timer interrupts, mostly idle. */
	c.ctl = PT_CTL_OS | PT_CTL_USER | PT_CTL_BRANCHEN;
	c.buffer_size = 64 << 10;
	c.mode = PT_MODE_STREAM;
	c.watermark = 4096;
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &c), "SET_CONFIG: %s",
		strerror(errno));
	ctl = mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, 0);
	REQUIRE(ctl != MAP_FAILED, "control page: %s", strerror(errno));
	hole = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	REQUIRE(hole != MAP_FAILED, "mmap");
	munmap(hole + pg, pg);
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	/*
	 * 300 reads (about 1 s on a quiet host; a run of 3 s did 1050 and
	 * found nothing more), at most 3 s on a loaded one.
	 */
	for (t0 = now(); (reads < 300 && now() - t0 < 3) || !ctl->data_head;
	     reads++) {
		unsigned long long r = rnd(), head;
		size_t count = r & 1 ? 1 + (r >> 8) % 3 : 1 + (r >> 8) % sizeof(out);
		int fl = fcntl(fd, F_GETFL);
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		/* Data comes at every watermark: a blocking read returns. */
		if (ctl->data_head == pos && poll(&pfd, 1, 5000) <= 0) {
			CHECK(0, "no data for 5 s at %llu: the model stands still",
			      pos);
			break;
		}

		if ((r >> 40) % 16 == 0) {
			errno = 0;
			n = read(fd, hole + pg, count);
			CHECK(n == -1 && (errno == EFAULT || errno == EAGAIN),
			      "read into an unmapped page: %zd %s", n, strerror(errno));
		} else if ((r >> 40) % 16 == 1 &&
			   ctl->data_head - pos > (unsigned long long)pg) {
			/* Room for 100 bytes before the hole: only those. */
			n = read(fd, hole + pg - 100, 2 * pg);
			CHECK(n == 100, "read across a hole: %zd %s", n,
			      strerror(errno));
		} else {
			fcntl(fd, F_SETFL, (r >> 20) & 1 ? fl | O_NONBLOCK : fl);
			head = ctl->data_head;
			n = read(fd, out, count);
			fcntl(fd, F_SETFL, fl);
			CHECK(n > 0 || (n == -1 && errno == EAGAIN),
			      "read(%zu) while streaming: %zd %s", count, n,
			      strerror(errno));
			CHECK(n <= (ssize_t)count, "read(%zu) returned %zd",
			      count, n);
			if (head > pos && n < (ssize_t)count)
				CHECK(n == -1 ? 0 : (unsigned long long)n >=
				      (head - pos < count ? head - pos : count),
				      "read(%zu) returned %zd of %llu unread",
				      count, n, head - pos);
		}
		if (n > 0)
			pos += n;
		CHECK(ctl->data_tail == pos, "data_tail %llu, read up to %llu",
		      (unsigned long long)ctl->data_tail, pos);
		if (ptt_failures)
			break;
	}
	CHECK(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	while ((n = read(fd, out, 1 + rnd() % sizeof(out))) > 0)
		pos += n;
	CHECK(n == 0 && pos == ctl->data_head,
	      "after STOP: %zd at %llu of %llu", n, pos,
	      (unsigned long long)ctl->data_head);
	fprintf(stderr, "PTT-INFO random read counts: %llu reads, %llu bytes\n",
		reads, pos);
	munmap(hole, pg);
	munmap((void *)ctl, pg);
}

/* ---- 7. Threads racing on one file ---- */

static int race_fd;
static int race_stop;
static unsigned long race_ops;

static void *racer(void *arg)
{
	unsigned long long r = (unsigned long)arg * 0x9e3779b97f4a7c15ULL;
	static __u8 out[64 << 10];
	long pg = sysconf(_SC_PAGESIZE);

	while (!__atomic_load_n(&race_stop, __ATOMIC_RELAXED)) {
		struct pt_trace_config c = { .size = sizeof(c) };
		struct pt_trace_status st = { .size = sizeof(st) };
		void *m;

		r ^= r << 13;
		r ^= r >> 7;
		r ^= r << 17;
		__atomic_add_fetch(&race_ops, 1, __ATOMIC_RELAXED);
		switch (r % 8) {
		case 0:
			ioctl(race_fd, PT_TRACE_IOC_START);
			break;
		case 1:
			ioctl(race_fd, PT_TRACE_IOC_STOP);
			break;
		case 2:
			c.ctl = PT_CTL_USER | PT_CTL_BRANCHEN;
			c.buffer_size = (r >> 8) & 1 ? 16 << 10 : 32 << 10;
			c.mode = (caps.flags & PT_CAP_TOPA) ? (r >> 9) & 1 : 0;
			ioctl(race_fd, PT_TRACE_IOC_SET_CONFIG, &c);
			break;
		case 3:
			ioctl(race_fd, PT_TRACE_IOC_GET_STATUS, &st);
			break;
		case 4: {
			int fl = fcntl(race_fd, F_GETFL);

			fcntl(race_fd, F_SETFL, fl | O_NONBLOCK);
			if (read(race_fd, out, sizeof(out)) < 0 &&
			    !errno_ok(errno) && errno != EINTR)
				ptt_fail(__FILE__, __LINE__, "read", "%s",
					 strerror(errno));
			break;
		}
		case 5:
			m = mmap(NULL, pg + (16 << 10), PROT_READ, MAP_SHARED,
				 race_fd, 0);
			if (m != MAP_FAILED)
				munmap(m, pg + (16 << 10));
			break;
		case 6:
			ioctl(race_fd, PT_TRACE_IOC_SET_BUFSIZE,
			      &(__u64){ (r >> 8) & 1 ? 16 << 10 : 32 << 10 });
			break;
		default:
			poll(&(struct pollfd){ .fd = race_fd, .events = POLLIN }, 1, 1);
			break;
		}
	}
	return NULL;
}

static void test_race(int fd)
{
	pthread_t t[4];
	int i;

	race_fd = fd;
	__atomic_store_n(&race_stop, 0, __ATOMIC_RELAXED);
	for (i = 0; i < 4; i++)
		REQUIRE(pthread_create(&t[i], NULL, racer, (void *)(long)(i + 1)) == 0,
			"pthread_create");
	/* 1 s: the four threads do thousands of operations on the file. */
	sleep(1);
	__atomic_store_n(&race_stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	fprintf(stderr, "PTT-INFO race: %lu operations\n", race_ops);
	CHECK(race_ops > 100, "racing threads: only %lu operations", race_ops);
	ioctl(fd, PT_TRACE_IOC_STOP);
	check_no_gp("racing threads");
}

int main(void)
{
	const char *seed = getenv("PTT_SEED");
	int fd;

	rng_state = seed ? strtoull(seed, NULL, 0) : 0x5eed1234abcdULL;
	fprintf(stderr, "PTT-INFO seed %#llx\n", rng_state);
	REQUIRE(ptt_pin_cpu(0) == 0, "pin: %s", strerror(errno));
	fd = ptt_open_cpu(0, O_RDWR);
	REQUIRE(fd >= 0, "open /dev/pt0: %s", strerror(errno));
	REQUIRE(ioctl(fd, PT_TRACE_IOC_GET_CAPS, &caps) == 0, "GET_CAPS: %s",
		strerror(errno));
	check_no_gp("start");

	fprintf(stderr, "PTT-INFO test_sizes\n");
	test_sizes(fd);
	test_cr3_readonly(fd);
	fprintf(stderr, "PTT-INFO test_random_cmds\n");
	test_random_cmds(fd);
	fprintf(stderr, "PTT-INFO test_random_configs\n");
	test_random_configs(fd);
	fprintf(stderr, "PTT-INFO test_random_setters\n");
	test_random_setters(fd);
	fprintf(stderr, "PTT-INFO test_mmap\n");
	test_mmap(fd);
	fprintf(stderr, "PTT-INFO test_scribble\n");
	test_scribble(fd);
	fprintf(stderr, "PTT-INFO test_read_counts\n");
	test_read_counts(fd);
	fprintf(stderr, "PTT-INFO test_race\n");
	test_race(fd);

	/* After all that, a plain trace still works. */
	{
		struct pt_trace_config c = { .size = sizeof(c) };

		c.ctl = PT_CTL_USER | PT_CTL_BRANCHEN;
		CHECK(ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &c) == 0,
		      "final SET_CONFIG: %s", strerror(errno));
		CHECK(ioctl(fd, PT_TRACE_IOC_START) == 0, "final START: %s",
		      strerror(errno));
		spin(5000);
		CHECK(ioctl(fd, PT_TRACE_IOC_STOP) == 0, "final STOP: %s",
		      strerror(errno));
	}
	close(fd);
	check_no_gp("end");
	return ptt_done();
}
