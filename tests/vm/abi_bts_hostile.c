// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/btsN as hostile as abi_adversarial is to /dev/ptN, with
 * /dev/ptN of the same CPU beside it:
 *  both:   PT and BTS streaming on CPU 1 together (each START while the
 *          other traces), read, then stopped and closed in both orders,
 *          mapped and unmapped around the closes;
 *  random: four threads issue random ioctls (sizes, numbers, fields,
 *          configurations of both devices), START/STOP, reads, polls,
 *          mmaps and munmaps on /dev/pt1 and /dev/bts1 at once, a fifth
 *          closes and opens them again, a sixth takes CPU 1 offline and
 *          back.  Every error must be one the ABI lists.
 * Then: no modelled #GP and no driver MSR fault, both devices open again,
 * and nothing is left charged to this process (VmPin 0 kB, CAP_IPC_LOCK
 * dropped).  Seeded from PTT_SEED.  About 5 s.  Passes: nothing found
 * (also 150 s on the debug kernel with another seed: 98,000 calls,
 * 3,500 STARTs, 430 offlines).
 * ptt-timeout: 60
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <linux/capability.h>

#include "bts_common.h"

#define ONLINE1		"/sys/devices/system/cpu/cpu1/online"
#define MODEL_GP	"/sys/kernel/debug/pt_trace/model/gp_faults"
#define DRIVER_GP	"/sys/kernel/debug/pt_trace/msr_faults"
#define NWORKERS	4
#define NMAPS		4

static long pg;
static int stop_all;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static unsigned long long rnd(unsigned long long *s)
{
	unsigned long long x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

static int open_dev(const char *kind, int cpu)
{
	char path[32];

	snprintf(path, sizeof(path), "/dev/%s%d", kind, cpu);
	return open(path, O_RDWR | O_NONBLOCK);
}

static int pt_stream_cfg(int fd, __u64 size)
{
	struct pt_trace_config c = { .size = sizeof(c) };

	c.ctl = PT_CTL_BRANCHEN | PT_CTL_USER | PT_CTL_OS;
	c.mode = PT_MODE_STREAM;
	c.buffer_size = size;
	return ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &c);
}

static void status(int fd, struct pt_trace_status *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_GET_STATUS, st), "GET_STATUS: %s",
		strerror(errno));
}

/* ---- both: PT and BTS of one CPU together, closed in both orders ---- */

static void part_both(int order)
{
	static unsigned char buf[256 << 10];
	int pt = open_dev("pt", 1), bts = open_dev("bts", 1);
	size_t plen = 0, blen = 0;
	struct pt_trace_status st;
	void *mp, *mb;
	double t0;
	ssize_t n;

	REQUIRE(pt >= 0 && bts >= 0, "open pt1/bts1: %s", strerror(errno));
	REQUIRE(!pt_stream_cfg(pt, 64 << 10), "PT SET_CONFIG: %s",
		strerror(errno));
	REQUIRE(!bts_config(bts, bts_ctl_here(), PT_MODE_STREAM, 64 << 10, 0),
		"BTS SET_CONFIG: %s", strerror(errno));
	/* Each START while the other one traces the CPU. */
	if (order) {
		REQUIRE(!ioctl(bts, PT_TRACE_IOC_START), "BTS START: %s",
			strerror(errno));
		REQUIRE(!ioctl(pt, PT_TRACE_IOC_START), "PT START beside BTS: %s",
			strerror(errno));
	} else {
		REQUIRE(!ioctl(pt, PT_TRACE_IOC_START), "PT START: %s",
			strerror(errno));
		REQUIRE(!ioctl(bts, PT_TRACE_IOC_START), "BTS START beside PT: %s",
			strerror(errno));
	}
	mp = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, pt, 0);
	mb = mmap(NULL, pg + (64 << 10), PROT_READ, MAP_SHARED, bts, 0);
	CHECK(mp != MAP_FAILED && mb != MAP_FAILED, "mmap: %s",
	      strerror(errno));
	fcntl(pt, F_SETFL, O_NONBLOCK);
	fcntl(bts, F_SETFL, O_NONBLOCK);
	t0 = now();
	while (now() - t0 < 2 && (plen < 4096 || blen < 4096)) {
		ptt_pin_cpu(1);
		ptt_busy(20000);
		ptt_pin_cpu(0);
		while ((n = read(pt, buf, sizeof(buf))) > 0)
			plen += n;
		CHECK(n >= 0 || errno == EAGAIN, "PT read: %s", strerror(errno));
		while ((n = read(bts, buf, sizeof(buf))) > 0)
			blen += n;
		CHECK(n >= 0 || errno == EAGAIN, "BTS read: %s",
		      strerror(errno));
	}
	CHECK(plen > 0 && blen > 0, "order %d: PT read %zu bytes, BTS %zu",
	      order, plen, blen);
	CHECK(blen % BTS_REC == 0, "BTS read %zu bytes, not whole records",
	      blen);
	status(pt, &st);
	CHECK(st.flags & PT_STATUS_RUNNING, "PT stopped by BTS: %#x",
	      st.flags);
	status(bts, &st);
	CHECK(st.flags & PT_STATUS_RUNNING, "BTS stopped by PT: %#x",
	      st.flags);
	/* Close one while the other runs, its mapping still there. */
	if (order) {
		close(pt);
		status(bts, &st);
		CHECK(st.flags & PT_STATUS_RUNNING, "BTS stopped by PT's close");
		munmap(mp, pg);
		munmap(mb, pg + (64 << 10));
		close(bts);
	} else {
		close(bts);
		status(pt, &st);
		CHECK(st.flags & PT_STATUS_RUNNING, "PT stopped by BTS's close");
		munmap(mb, pg + (64 << 10));
		close(pt);
		munmap(mp, pg);
	}
}

/* ---- random: four threads, reopen, hotplug ---- */

struct slot {
	const char *kind;
	pthread_rwlock_t lock;	/* read: use fd; write: replace it */
	int fd;
	pthread_mutex_t mlock;	/* maps[] */
	void *maps[NMAPS];
	size_t lens[NMAPS];
};

static struct slot slots[2] = {
	{ .kind = "pt", .lock = PTHREAD_RWLOCK_INITIALIZER,
	  .mlock = PTHREAD_MUTEX_INITIALIZER },
	{ .kind = "bts", .lock = PTHREAD_RWLOCK_INITIALIZER,
	  .mlock = PTHREAD_MUTEX_INITIALIZER },
};

static unsigned long long seed0;
static unsigned long n_calls, n_ok, n_starts, n_maps, n_reopens, n_plugs;

static int errno_ok(int e)
{
	switch (e) {
	case EINVAL: case EOPNOTSUPP: case E2BIG: case EBUSY: case EPERM:
	case ENOMEM: case EFAULT: case ENOTTY: case ESRCH: case EAGAIN:
	case ENODEV:
		return 1;
	}
	return 0;
}

static __u64 rand_size(unsigned long long *s)
{
	static const __u64 sizes[] = { 0, 4096, 8192, 12288, 16384, 65536,
				       1 << 20, 3 << 12, 4097, ~0ULL,
				       1ULL << 40 };

	return sizes[rnd(s) % ARRAY_SIZE(sizes)];
}

static void rand_config(unsigned long long *s, struct pt_trace_config *c,
			int bts)
{
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	switch (rnd(s) % 8) {
	case 0:		/* anything */
		c->ctl = rnd(s);
		c->mode = rnd(s) % 3;
		c->output = rnd(s) % 4;
		c->watermark = rnd(s);
		c->cr3_match = rnd(s) & 1 ? rnd(s) : 0;
		c->reserved[rnd(s) % 4] = rnd(s) & 1;
		break;
	default:	/* plausible */
		if (bts)
			c->ctl = (rnd(s) & 1 ? bts_ctl_here() : PT_CTL_OS) |
				 (rnd(s) % 4 ? 0 : PT_BTS_CTL_SWITCHES);
		else
			c->ctl = PT_CTL_BRANCHEN | PT_CTL_OS | PT_CTL_USER |
				 (rnd(s) % 4 ? 0 : PT_CTL_TSCEN);
		c->mode = rnd(s) & 1;
		c->watermark = c->mode && rnd(s) & 1 ? rnd(s) % 32768 : 0;
		break;
	}
	c->buffer_size = rand_size(s);
	if (rnd(s) % 8 == 0)
		c->size = PT_TRACE_CONFIG_SIZE_VER0 + (rnd(s) % 3) * 8 - 8;
}

static void note(const char *kind, const char *what, long r)
{
	__atomic_add_fetch(&n_calls, 1, __ATOMIC_RELAXED);
	if (r >= 0) {
		__atomic_add_fetch(&n_ok, 1, __ATOMIC_RELAXED);
		return;
	}
	CHECK(errno_ok(errno), "%s %s: %s", kind, what, strerror(errno));
}

static void map_one(unsigned long long *s, struct slot *sl, int fd)
{
	struct pt_trace_status st = { .size = sizeof(st) };
	size_t data = 64 << 10, len;
	off_t off = 0;
	int prot = PROT_READ, i;
	unsigned char *p;
	void *m;

	if (!ioctl(fd, PT_TRACE_IOC_GET_STATUS, &st) && st.buffer_size)
		data = st.buffer_size;
	switch (rnd(s) % 4) {
	case 0:
		len = pg;
		prot |= rnd(s) & 1 ? PROT_WRITE : 0;
		break;
	case 1:
		len = pg + data;
		break;
	case 2:
		len = data;
		off = pg;
		break;
	default:
		len = (1 + rnd(s) % 20) * pg;
		off = (rnd(s) % 3) * pg;
		break;
	}
	m = mmap(NULL, len, prot, MAP_SHARED, fd, off);
	note(sl->kind, "mmap", m == MAP_FAILED ? -1 : 0);
	if (m == MAP_FAILED)
		return;
	__atomic_add_fetch(&n_maps, 1, __ATOMIC_RELAXED);
	p = m;
	(void)__atomic_load_n(p, __ATOMIC_RELAXED);
	(void)__atomic_load_n(p + len - 1, __ATOMIC_RELAXED);
	pthread_mutex_lock(&sl->mlock);
	i = rnd(s) % NMAPS;
	if (sl->maps[i])
		munmap(sl->maps[i], sl->lens[i]);
	sl->maps[i] = m;
	sl->lens[i] = len;
	pthread_mutex_unlock(&sl->mlock);
}

static void unmap_all(struct slot *sl)
{
	int i;

	pthread_mutex_lock(&sl->mlock);
	for (i = 0; i < NMAPS; i++) {
		if (sl->maps[i])
			munmap(sl->maps[i], sl->lens[i]);
		sl->maps[i] = NULL;
	}
	pthread_mutex_unlock(&sl->mlock);
}

static void one_op(unsigned long long *s, struct slot *sl, int fd)
{
	static __thread unsigned char buf[64 << 10];
	static __thread __u64 arg64[1024];
	struct pt_trace_config c;
	int bts = sl == &slots[1];
	unsigned long cmd;
	__u64 size;
	long r;

	switch (rnd(s) % 12) {
	case 0:
	case 1:
		rand_config(s, &c, bts);
		note(sl->kind, "SET_CONFIG",
		     ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &c));
		break;
	case 2:
		size = rand_size(s);
		note(sl->kind, "SET_BUFSIZE",
		     ioctl(fd, PT_TRACE_IOC_SET_BUFSIZE, &size));
		break;
	case 3:
		r = ioctl(fd, PT_TRACE_IOC_START);
		if (!r)
			__atomic_add_fetch(&n_starts, 1, __ATOMIC_RELAXED);
		note(sl->kind, "START", r);
		break;
	case 4:
		note(sl->kind, "STOP", ioctl(fd, PT_TRACE_IOC_STOP));
		break;
	case 5:
		r = read(fd, buf, 1 + rnd(s) % sizeof(buf));
		/* EIO would be RTIT_STATUS.Error: a driver bug. */
		note(sl->kind, "read", r);
		break;
	case 6:
		poll(&(struct pollfd){ .fd = fd, .events = POLLIN | POLLPRI },
		     1, 0);
		break;
	case 7:
		map_one(s, sl, fd);
		break;
	case 8:
		pthread_mutex_lock(&sl->mlock);
		r = rnd(s) % NMAPS;
		if (sl->maps[r])
			munmap(sl->maps[r], sl->lens[r]);
		sl->maps[r] = NULL;
		pthread_mutex_unlock(&sl->mlock);
		break;
	case 9: {	/* a known ioctl with random size and contents */
		static const unsigned long cmds[] = {
			PT_TRACE_IOC_GET_CAPS, PT_TRACE_IOC_SET_CONFIG,
			PT_TRACE_IOC_GET_CONFIG, PT_TRACE_IOC_SET_CR3,
			PT_TRACE_IOC_SET_CYC, PT_TRACE_IOC_SET_ADDR,
			PT_TRACE_IOC_GET_STATUS, PT_TRACE_IOC_FOLLOW,
			PT_TRACE_IOC_GET_FOLLOW,
		};
		unsigned int i;

		for (i = 0; i < 1024; i++)
			arg64[i] = rnd(s) % 4 ? 0 : rnd(s);
		arg64[0] = (arg64[0] & ~0xffffffffULL) | rnd(s) % 256;
		cmd = cmds[rnd(s) % ARRAY_SIZE(cmds)];
		note(sl->kind, "ioctl", ioctl(fd, cmd, arg64));
		break;
	}
	case 10:	/* any number and direction of our magic */
		memset(arg64, 0, sizeof(arg64));
		arg64[0] = rnd(s) % 200;
		cmd = _IOC(rnd(s) % 4, PT_TRACE_IOC_MAGIC, rnd(s) % 0x20,
			   rnd(s) % 300);
		if (_IOC_NR(cmd) == _IOC_NR(PT_TRACE_IOC_FOLLOW))
			break;	/* would follow a random pid: FOLLOW below */
		note(sl->kind, "ioctl nr", ioctl(fd, cmd, arg64));
		break;
	default: {
		struct pt_trace_follow f = { .size = sizeof(f) };

		f.pid = rnd(s) & 1 ? getpid() : (int)(rnd(s) % 3) - 1;
		f.flags = rnd(s) % 4;
		note(sl->kind, "FOLLOW", ioctl(fd, PT_TRACE_IOC_FOLLOW, &f));
		break;
	}
	}
}

static void *worker(void *arg)
{
	unsigned long long s = seed0 * 31 + (long)arg;
	struct slot *sl;

	while (!__atomic_load_n(&stop_all, __ATOMIC_RELAXED) &&
	       ptt_failures < 20) {
		sl = &slots[rnd(&s) & 1];
		pthread_rwlock_rdlock(&sl->lock);
		if (sl->fd >= 0)
			one_op(&s, sl, sl->fd);
		pthread_rwlock_unlock(&sl->lock);
	}
	return NULL;
}

/* Close and open a device again: after its mappings are gone it opens. */
static void *reopener(void *arg)
{
	unsigned long long s = seed0 ^ 0x5555;
	struct slot *sl;
	int tries;

	(void)arg;
	while (!__atomic_load_n(&stop_all, __ATOMIC_RELAXED)) {
		usleep(30000 + rnd(&s) % 100000);
		sl = &slots[rnd(&s) & 1];
		pthread_rwlock_wrlock(&sl->lock);
		unmap_all(sl);
		if (sl->fd >= 0)
			close(sl->fd);
		sl->fd = -1;
		for (tries = 0; tries < 20 && sl->fd < 0; tries++) {
			sl->fd = open_dev(sl->kind, 1);
			if (sl->fd < 0) {
				/* CPU 1 offline: no node; never EBUSY. */
				CHECK(errno == ENOENT || errno == ENXIO ||
				      errno == ENODEV,
				      "reopen /dev/%s1: %s", sl->kind,
				      strerror(errno));
				usleep(5000);
			}
		}
		if (sl->fd >= 0)
			__atomic_add_fetch(&n_reopens, 1, __ATOMIC_RELAXED);
		pthread_rwlock_unlock(&sl->lock);
	}
	return NULL;
}

static void *hotplug(void *arg)
{
	unsigned long long s = seed0 ^ 0xaaaa;

	(void)arg;
	while (!__atomic_load_n(&stop_all, __ATOMIC_RELAXED)) {
		usleep(20000 + rnd(&s) % 150000);
		if (!ptt_write_str(ONLINE1, "0"))
			__atomic_add_fetch(&n_plugs, 1, __ATOMIC_RELAXED);
		usleep(rnd(&s) % 50000);
		ptt_write_str(ONLINE1, "1");
	}
	ptt_write_str(ONLINE1, "1");
	return NULL;
}

static void part_random(double secs)
{
	pthread_t w[NWORKERS], ro, hp;
	long long m0 = ptt_read_ll(MODEL_GP), d0 = ptt_read_ll(DRIVER_GP);
	double t0 = now();
	int i, fd;

	for (i = 0; i < 2; i++) {
		slots[i].fd = open_dev(slots[i].kind, 1);
		REQUIRE(slots[i].fd >= 0, "open /dev/%s1: %s", slots[i].kind,
			strerror(errno));
	}
	for (i = 0; i < NWORKERS; i++)
		REQUIRE(!pthread_create(&w[i], NULL, worker, (void *)(long)i),
			"thread");
	REQUIRE(!pthread_create(&ro, NULL, reopener, NULL), "thread");
	REQUIRE(!pthread_create(&hp, NULL, hotplug, NULL), "thread");
	while (now() - t0 < secs && ptt_failures < 20)
		usleep(50000);
	__atomic_store_n(&stop_all, 1, __ATOMIC_RELAXED);
	for (i = 0; i < NWORKERS; i++)
		pthread_join(w[i], NULL);
	pthread_join(ro, NULL);
	pthread_join(hp, NULL);
	fprintf(stderr,
		"PTT-INFO seed %llu %.1f s: %lu calls (%lu ok), %lu starts, %lu maps, %lu reopens, %lu offlines\n",
		seed0, now() - t0, n_calls, n_ok, n_starts, n_maps, n_reopens,
		n_plugs);
	for (i = 0; i < 2; i++) {
		unmap_all(&slots[i]);
		if (slots[i].fd >= 0)
			close(slots[i].fd);
		slots[i].fd = -1;
	}
	CHECK(ptt_read_ll(MODEL_GP) == m0 && ptt_read_ll(DRIVER_GP) == d0,
	      "model #GPs %lld -> %lld, driver MSR faults %lld -> %lld", m0,
	      ptt_read_ll(MODEL_GP), d0, ptt_read_ll(DRIVER_GP));
	CHECK(n_starts > 2 && n_plugs > 1, "too little raced");
	/* Everything closed: both open again, nothing left charged. */
	for (i = 0; i < 2; i++) {
		fd = open_dev(slots[i].kind, 1);
		CHECK(fd >= 0, "/dev/%s1 after the race: %s", slots[i].kind,
		      strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	CHECK(ptt_vmpin_kb() == 0, "VmPin %ld kB with every device closed",
	      ptt_vmpin_kb());
}

/*
 * Without CAP_IPC_LOCK buffers are charged to pinned_vm (VmPin): what is
 * left charged at the end was leaked.  CAP_PERFMON stays (BTS needs it).
 */
static void drop_ipc_lock(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	struct rlimit rl = { 256 << 20, 256 << 20 };

	REQUIRE(!setrlimit(RLIMIT_MEMLOCK, &rl), "RLIMIT_MEMLOCK: %s",
		strerror(errno));
	REQUIRE(!syscall(SYS_capget, &h, d), "capget: %s", strerror(errno));
	d[0].effective &= ~(1U << CAP_IPC_LOCK);
	REQUIRE(!syscall(SYS_capset, &h, d), "capset: %s", strerror(errno));
}

int main(void)
{
	const char *e = getenv("PTT_SEED");

	pg = sysconf(_SC_PAGESIZE);
	bts_require();
	if (ptt_read_ll(ONLINE1) != 1)
		SKIP("needs CPU 1 (hotplug)");
	drop_ipc_lock();
	seed0 = e ? strtoull(e, NULL, 0) : 0x2545f4914f6cdd1dULL;
	if (!seed0)
		seed0 = 1;
	part_both(0);
	part_both(1);
	CHECK(ptt_vmpin_kb() == 0, "VmPin %ld kB after part both",
	      ptt_vmpin_kb());
	part_random(getenv("PTT_SECS") ? atof(getenv("PTT_SECS")) : 4);
	return ptt_done();
}
