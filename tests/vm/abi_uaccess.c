// SPDX-License-Identifier: GPL-2.0
/*
 * User memory that faults or stalls inside the driver's copies, and
 * blocked readers interrupted:
 *  own:    ioctl arguments and read(2) buffers in the device's own
 *          mappings (its control page, writable; its read-only data;
 *          another CPU's control page), in a PROT_NONE page and
 *          straddling the end of a mapping into a hole: EFAULT (or the
 *          bytes before the hole), nothing consumed or changed by a
 *          failed call; then 1.5 s of threads mapping and unmapping the
 *          devices into one slot while others pass that slot to ioctls
 *          and read(2) (lock order: mmap takes pc->lock under mmap_lock);
 *  uffd:   a read(2) (in its copy) and a GET_STATUS (its size field)
 *          held by userfaultfd pages while STOP, SET_BUFSIZE and a
 *          resizing SET_CONFIG (EBUSY: a read copies), an O_NONBLOCK
 *          read (EAGAIN), munmap, the FOLLOW'd child's exit, CPU 1
 *          offline and close run beside them; then resolved (the read
 *          returns its bytes, the file is released: /dev/pt1 opens
 *          again); then a held read whose userfaultfd is closed;
 *  uring:  IORING_OP_READ on the device (data, EFAULT, one left pending
 *          when the ring is closed);
 *  signal: a reader child stopped and continued, ptrace-attached and
 *          detached, its reads restarted by a SIGALRM handler that reads
 *          too: together they read every byte (data_head) before end of
 *          file; a blocked reader killed while data arrives; twelve
 *          threads blocked in read(2) and poll(2) while the last fd is
 *          closed: they go on, and the file is released after them.
 * userfaultfd and io_uring: skipped where the kernel lacks them (the
 * debug kernel).  About 3 s.  A read onto its own control page's
 * data_head and data_tail, and a data_tail of ~0, left read(2) and
 * poll() waiting forever on a running stream before they went by the
 * published head and clamped data_tail in the control page.
 * ptt-timeout: 60
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <linux/io_uring.h>
#include <linux/userfaultfd.h>

#include "stream_common.h"

#define SIZE		(64u << 10)
#define ONLINE1		"/sys/devices/system/cpu/cpu1/online"

static long pg;

/* Where it is, should a step hang (the runner shows stderr). */
#define STAGE(...)	fprintf(stderr, "stage: " __VA_ARGS__)

static int open_stream(int cpu, int start)
{
	struct pt_trace_caps caps;
	int fd = st_setup(cpu, SIZE, 0, 0, &caps);

	if (start)
		REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START /dev/pt%d: %s",
			cpu, strerror(errno));
	return fd;
}

static unsigned long long tail_of(int fd)
{
	struct pt_trace_status st;
	const struct pt_trace_mmap_page *c;
	unsigned long long t;

	st_status(fd, &st);
	c = mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, 0);
	REQUIRE(c != MAP_FAILED, "mmap control: %s", strerror(errno));
	t = __atomic_load_n(&c->data_tail, __ATOMIC_ACQUIRE);
	munmap((void *)c, pg);
	return t;
}

static unsigned long long head_of(int fd)
{
	const struct pt_trace_mmap_page *c;
	unsigned long long h;

	c = mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, 0);
	REQUIRE(c != MAP_FAILED, "mmap control: %s", strerror(errno));
	h = __atomic_load_n(&c->data_head, __ATOMIC_ACQUIRE);
	munmap((void *)c, pg);
	return h;
}

/* Wait until @fd's stream has @bytes unread (at most 10 s). */
static void wait_unread(int fd, unsigned long long bytes)
{
	struct pt_trace_status st;
	double t0 = st_now();

	do {
		st_status(fd, &st);
		if (head_of(fd) - tail_of(fd) >= bytes)
			return;
		usleep(2000);
	} while (st_now() - t0 < 10);
	REQUIRE(0, "no %llu bytes unread in 10 s", bytes);
}

/* ---- own: arguments in the device's own mappings ---- */

/* A running stream's reads return data (within 3 s). */
static int reads_on(int fd)
{
	static unsigned char b[SIZE];
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int fl = fcntl(fd, F_GETFL);
	double t0 = st_now();
	ssize_t n = 0;

	fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	while (n <= 0 && st_now() - t0 < 3)
		if (poll(&p, 1, 100) == 1)
			n = read(fd, b, sizeof(b));
	fcntl(fd, F_SETFL, fl);
	return n > 0;
}

static void *slot;
static int race_fd[2];
static int race_stop;

static void *race_mapper(void *arg)
{
	unsigned int i = 0;
	void *p;

	(void)arg;
	while (!__atomic_load_n(&race_stop, __ATOMIC_RELAXED)) {
		int fd = race_fd[i & 1];

		p = mmap(slot, pg, (i & 2) ? PROT_READ : PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED, fd, 0);
		if (p == MAP_FAILED && (i & 2))
			p = mmap(slot, SIZE, PROT_READ, MAP_SHARED | MAP_FIXED,
				 fd, pg);
		usleep(100);
		mmap(slot, 2 * pg, PROT_NONE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		if (i % 7 == 0)
			mprotect(slot, pg, PROT_NONE);
		i++;
	}
	return NULL;
}

static unsigned long race_calls;

static void *race_caller(void *arg)
{
	static const unsigned long cmds[] = {
		PT_TRACE_IOC_GET_STATUS, PT_TRACE_IOC_GET_CONFIG,
		PT_TRACE_IOC_GET_CAPS, PT_TRACE_IOC_SET_CR3,
		PT_TRACE_IOC_SET_CONFIG, PT_TRACE_IOC_GET_FOLLOW,
		PT_TRACE_IOC_SET_BUFSIZE, PT_TRACE_IOC_SET_CYC,
	};
	unsigned int i = (unsigned int)(uintptr_t)arg;
	int ret;

	while (!__atomic_load_n(&race_stop, __ATOMIC_RELAXED)) {
		int fd = race_fd[(i >> 3) & 1];

		if (i % 9 == 0)	/* pt0 only: a read would start pt1 */
			ret = read(race_fd[0], (char *)slot + 1024 +
				   (i % 2) * (pg - 1024 - 24), 64);
		else
			ret = ioctl(fd, cmds[i % ARRAY_SIZE(cmds)], slot);
		/* EOPNOTSUPP: a CPU without CYC, CR3 filtering (min) */
		CHECK(ret >= 0 || errno == EFAULT || errno == EINVAL ||
		      errno == E2BIG || errno == EBUSY || errno == EPERM ||
		      errno == EAGAIN || errno == ESRCH || errno == EOPNOTSUPP,
		      "call %u with its argument in the slot: %s", i,
		      strerror(errno));
		__atomic_add_fetch(&race_calls, 1, __ATOMIC_RELAXED);
		i++;
	}
	return NULL;
}

static void part_own(void)
{
	struct pt_trace_status st, st2;
	struct pt_trace_config cfg, cfg2;
	unsigned long long t0;
	unsigned char *c0, *d0, *c1, *area, *none;
	pthread_t th[4];
	int fd0, fd1, i;
	ssize_t n;

	fd0 = open_stream(0, 1);
	fd1 = open_stream(1, 0);
	c0 = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd0, 0);
	d0 = mmap(NULL, SIZE, PROT_READ, MAP_SHARED, fd0, pg);
	REQUIRE(c0 != MAP_FAILED && d0 != MAP_FAILED, "mmap /dev/pt0");
	/* /dev/pt1's control page with a hole after it. */
	area = mmap(NULL, 3 * pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	REQUIRE(area != MAP_FAILED, "mmap");
	c1 = mmap(area + pg, pg, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
		  fd1, 0);
	REQUIRE(c1 == area + pg, "mmap /dev/pt1 control: %s", strerror(errno));
	none = area;
	wait_unread(fd0, 4096);

	/* The read-only data: in-structures are read, out-structures fail. */
	STAGE("own: read-only data, holes, PROT_NONE\n");
	memset(&cfg, 0, sizeof(cfg));
	cfg.size = sizeof(cfg);
	REQUIRE(!ioctl(fd1, PT_TRACE_IOC_GET_CONFIG, &cfg), "GET_CONFIG");
	CHECK(ioctl(fd0, PT_TRACE_IOC_GET_STATUS, d0) == -1 &&
	      (errno == EFAULT || errno == EINVAL),
	      "GET_STATUS into read-only data: %s", strerror(errno));
	CHECK(ioctl(fd1, PT_TRACE_IOC_SET_CR3, d0) == -1,
	      "SET_CR3 (in and out) in read-only data succeeded");
	/* trace data as a configuration: refused, nothing changed */
	CHECK(ioctl(fd1, PT_TRACE_IOC_SET_CONFIG, d0) == -1,
	      "trace data taken as a configuration");
	/* Straddling the end of the control page into the hole. */
	*(__u32 *)(c1 + pg - 8) = sizeof(st);
	CHECK(ioctl(fd0, PT_TRACE_IOC_GET_STATUS, c1 + pg - 8) == -1 &&
	      errno == EFAULT, "GET_STATUS across a hole: %s", strerror(errno));
	memcpy(c1 + pg - 16, &cfg, 16);
	CHECK(ioctl(fd1, PT_TRACE_IOC_SET_CONFIG, c1 + pg - 16) == -1 &&
	      errno == EFAULT, "SET_CONFIG across a hole: %s", strerror(errno));
	memset(&cfg2, 0, sizeof(cfg2));
	cfg2.size = sizeof(cfg2);
	REQUIRE(!ioctl(fd1, PT_TRACE_IOC_GET_CONFIG, &cfg2), "GET_CONFIG");
	CHECK(!memcmp(&cfg, &cfg2, sizeof(cfg)),
	      "failed SET_CONFIGs changed the configuration");
	CHECK(ioctl(fd0, PT_TRACE_IOC_GET_STATUS, none) == -1 &&
	      errno == EFAULT, "GET_STATUS into PROT_NONE: %s", strerror(errno));
	CHECK(ioctl(fd1, PT_TRACE_IOC_SET_BUFSIZE, none) == -1 &&
	      errno == EFAULT, "SET_BUFSIZE from PROT_NONE: %s", strerror(errno));

	/* read(2) into the same places. */
	STAGE("own: read(2)\n");
	t0 = tail_of(fd0);
	CHECK(read(fd0, d0, 64) == -1 && errno == EFAULT,
	      "read into its own read-only data: %s", strerror(errno));
	CHECK(read(fd0, none, 64) == -1 && errno == EFAULT,
	      "read into PROT_NONE: %s", strerror(errno));
	CHECK(tail_of(fd0) == t0, "failed reads moved data_tail %llu -> %llu",
	      t0, tail_of(fd0));
	n = read(fd0, c1 + pg - 40, 64);
	CHECK(n == 40, "read across a hole returned %zd (%s), not 40", n,
	      strerror(errno));
	CHECK(tail_of(fd0) == t0 + 40, "data_tail moved by %llu, not 40",
	      tail_of(fd0) - t0);
	n = read(fd0, c1, 256);
	CHECK(n == 256, "read into pt1's control page: %zd (%s)", n,
	      strerror(errno));
	/*
	 * Structures in the writable control pages land there: pt1's
	 * (stopped), then its own (which the driver updates beside them:
	 * only the calls' results are checked there).
	 */
	*(__u32 *)c1 = sizeof(st);
	CHECK(!ioctl(fd0, PT_TRACE_IOC_GET_STATUS, c1),
	      "GET_STATUS into pt1's control page: %s", strerror(errno));
	CHECK(((struct pt_trace_status *)c1)->flags & PT_STATUS_RUNNING,
	      "the status in pt1's control page says not running");
	*(__u32 *)c1 = sizeof(cfg);
	CHECK(!ioctl(fd0, PT_TRACE_IOC_GET_CONFIG, c1),
	      "GET_CONFIG into pt1's control page: %s", strerror(errno));
	CHECK(!ioctl(fd1, PT_TRACE_IOC_SET_CONFIG, c1),
	      "SET_CONFIG from pt1's control page: %s", strerror(errno));
	/* Away from the header (data_head, data_tail): the stream goes on. */
	*(__u32 *)(c0 + 1024) = sizeof(st);
	CHECK(!ioctl(fd0, PT_TRACE_IOC_GET_STATUS, c0 + 1024),
	      "GET_STATUS into its own control page: %s", strerror(errno));
	*(__u32 *)(c0 + 2048) = sizeof(cfg);
	CHECK(!ioctl(fd0, PT_TRACE_IOC_GET_CONFIG, c0 + 2048),
	      "GET_CONFIG into its own control page: %s", strerror(errno));
	n = read(fd0, c0 + 512, 256);
	CHECK(n > 0, "read into its own control page: %zd (%s)", n,
	      strerror(errno));
	/*
	 * Onto its header: a read's bytes land on data_head and data_tail
	 * (then the read stores its data_tail); then a data_tail far
	 * beyond data_head.  Clamped (abi.rst): reads go on.
	 */
	STAGE("own: a read onto its own data_head and data_tail\n");
	n = read(fd0, c0 + offsetof(struct pt_trace_mmap_page, data_head), 16);
	CHECK(n == 16, "read onto its own data_head: %zd (%s)", n,
	      strerror(errno));
	CHECK(reads_on(fd0), "no data in 3 s after a read onto its own data_head and data_tail");
	__atomic_store_n(&((struct pt_trace_mmap_page *)c0)->data_tail, ~0ULL,
			 __ATOMIC_RELEASE);
	CHECK(reads_on(fd0), "no data in 3 s after data_tail ~0");
	munmap(c0, pg);
	munmap(d0, SIZE);
	munmap(area, 3 * pg);

	/* Races: map, unmap and use one slot. */
	STAGE("own: races on one slot\n");
	slot = mmap(NULL, SIZE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	REQUIRE(slot != MAP_FAILED, "mmap");
	race_fd[0] = fd0;
	race_fd[1] = fd1;
	REQUIRE(!pthread_create(&th[0], NULL, race_mapper, NULL), "thread");
	for (i = 1; i < 4; i++)
		REQUIRE(!pthread_create(&th[i], NULL, race_caller,
					(void *)(uintptr_t)(i * 1000)), "thread");
	usleep(1500 * 1000);
	__atomic_store_n(&race_stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	printf("own: %lu racing calls with arguments in a remapped slot\n",
	       race_calls);
	munmap(slot, SIZE);

	/* Both still work. */
	STAGE("own: both devices still work\n");
	st_status(fd0, &st);
	CHECK(st.flags & PT_STATUS_RUNNING, "/dev/pt0 no longer runs");
	CHECK(!ioctl(fd0, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	CHECK(!ioctl(fd1, PT_TRACE_IOC_START), "START /dev/pt1: %s",
	      strerror(errno));
	usleep(20000);
	st_status(fd1, &st2);
	CHECK(st2.flags & PT_STATUS_RUNNING, "/dev/pt1 does not run");
	close(fd0);
	close(fd1);
}

/* ---- uffd: copies held by userfaultfd pages ---- */

static int hold_fd;
static void *hold_buf, *hold_st;
static ssize_t hold_ret, hold_st_ret;
static int hold_errno, hold_st_errno;

static void *hold_reader(void *arg)
{
	(void)arg;
	hold_ret = read(hold_fd, hold_buf, 2 * pg);
	hold_errno = errno;
	return NULL;
}

static void *hold_status(void *arg)
{
	(void)arg;
	/* the size field is in the held page: get_user() waits */
	hold_st_ret = ioctl(hold_fd, PT_TRACE_IOC_GET_STATUS, hold_st);
	hold_st_errno = errno;
	return NULL;
}

static int uffd_open(void)
{
	struct uffdio_api api = { .api = UFFD_API };
	int uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);

	if (uffd < 0)
		return -1;
	REQUIRE(!ioctl(uffd, UFFDIO_API, &api), "UFFDIO_API: %s",
		strerror(errno));
	return uffd;
}

static void uffd_reg(int uffd, void *p, size_t len)
{
	struct uffdio_register reg;

	memset(&reg, 0, sizeof(reg));
	reg.range.start = (uintptr_t)p;
	reg.range.len = len;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	REQUIRE(!ioctl(uffd, UFFDIO_REGISTER, &reg), "UFFDIO_REGISTER: %s",
		strerror(errno));
}

static int uffd_faults(int uffd, int want)
{
	struct uffd_msg msg;
	struct pollfd p = { .fd = uffd, .events = POLLIN };
	int got = 0;

	while (got < want && poll(&p, 1, 5000) == 1)
		if (read(uffd, &msg, sizeof(msg)) == sizeof(msg) &&
		    msg.event == UFFD_EVENT_PAGEFAULT)
			got++;
	return got;
}

static int online1(const char *v)
{
	return access(ONLINE1, W_OK) ? -ENOENT : ptt_write_str(ONLINE1, v);
}

static void part_uffd(void)
{
	struct pt_trace_follow fol = { .size = sizeof(fol) };
	struct pt_trace_config cfg;
	struct uffdio_zeropage zp;
	unsigned char *mem, *ctl;
	pthread_t rt, stt;
	__u64 sz = 2 * SIZE;
	int uffd, fd, ret, off = 0;
	pid_t child;
	cpu_set_t set;
	double t0;
	char b[64];

	uffd = uffd_open();
	if (uffd < 0) {
		printf("uffd: no userfaultfd (%s): skipped\n", strerror(errno));
		return;
	}
	mem = mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	REQUIRE(mem != MAP_FAILED, "mmap");
	mem[0] = 1;	/* the read's first page copies, its second waits */
	uffd_reg(uffd, mem + pg, 2 * pg);
	hold_buf = mem;
	hold_st = mem + 2 * pg;

	/* A followed child busy on CPU 1, which exits under the held calls. */
	child = fork();
	REQUIRE(child >= 0, "fork");
	if (!child) {
		CPU_ZERO(&set);
		CPU_SET(1, &set);
		sched_setaffinity(0, sizeof(set), &set);
		for (;;)
			ptt_busy(100000);
	}
	fd = open_stream(1, 0);
	fol.pid = child;
	CHECK(!ioctl(fd, PT_TRACE_IOC_FOLLOW, &fol), "FOLLOW the child: %s",
	      strerror(errno));
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	ctl = mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, 0);
	REQUIRE(ctl != MAP_FAILED, "mmap control: %s", strerror(errno));
	wait_unread(fd, 2 * pg);
	hold_fd = fd;
	REQUIRE(!pthread_create(&stt, NULL, hold_status, NULL), "thread");
	REQUIRE(!pthread_create(&rt, NULL, hold_reader, NULL), "thread");
	REQUIRE(uffd_faults(uffd, 2) == 2, "GET_STATUS and read did not fault");

	/* Beside them: everything that could wait for them or free under them. */
	STAGE("uffd: calls beside the held ones\n");
	CHECK(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP beside held calls: %s",
	      strerror(errno));
	ret = ioctl(fd, PT_TRACE_IOC_SET_BUFSIZE, &sz);
	CHECK(ret == -1 && errno == EBUSY,
	      "SET_BUFSIZE beside a held read: %d (%s)", ret, strerror(errno));
	memset(&cfg, 0, sizeof(cfg));
	cfg.size = sizeof(cfg);
	CHECK(!ioctl(fd, PT_TRACE_IOC_GET_CONFIG, &cfg), "GET_CONFIG: %s",
	      strerror(errno));
	cfg.buffer_size = 2 * SIZE;
	ret = ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &cfg);
	CHECK(ret == -1 && errno == EBUSY,
	      "SET_CONFIG (resize) beside a held read: %d (%s)", ret,
	      strerror(errno));
	fcntl(fd, F_SETFL, O_NONBLOCK);
	ret = read(fd, b, sizeof(b));
	CHECK(ret == -1 && errno == EAGAIN,
	      "O_NONBLOCK read beside a held read: %d (%s)", ret,
	      strerror(errno));
	munmap(ctl, pg);
	kill(child, SIGKILL);
	CHECK(waitpid(child, NULL, 0) == child, "waitpid");
	ret = online1("0");
	off = !ret;
	CHECK(ret == 0 || ret == -ENOENT,
	      "CPU 1 offline beside held calls: %s", strerror(-ret));
	CHECK(!close(fd), "close beside held calls: %s", strerror(errno));
	usleep(50 * 1000);
	memset(&zp, 0, sizeof(zp));
	zp.range.start = (uintptr_t)mem + pg;
	zp.range.len = 2 * pg;
	CHECK(!ioctl(uffd, UFFDIO_ZEROPAGE, &zp), "UFFDIO_ZEROPAGE: %s",
	      strerror(errno));
	pthread_join(stt, NULL);
	pthread_join(rt, NULL);
	printf("uffd: held GET_STATUS %zd (size 0), held read %zd (%s), CPU 1 %s\n",
	       hold_st_ret, hold_ret, hold_ret < 0 ? strerror(hold_errno) : "ok",
	       off ? "went offline and back" : "stayed online");
	/* Its size field, resolved as a zero page, reads 0: EINVAL. */
	CHECK(hold_st_ret == -1 && hold_st_errno == EINVAL,
	      "the held GET_STATUS read a size of 0: %zd (%s)", hold_st_ret,
	      strerror(hold_st_errno));
	CHECK(hold_ret == 2 * pg, "the held read: %zd (%s)", hold_ret,
	      strerror(hold_errno));
	if (off)
		CHECK(!online1("1"), "CPU 1 back online");
	/* Released after them: /dev/pt1 opens again. */
	t0 = st_now();
	while ((fd = ptt_open_cpu(1, O_RDWR)) < 0 &&
	       (errno == EBUSY || errno == ENOENT || errno == ENXIO) &&
	       st_now() - t0 < 5)
		usleep(10000);
	CHECK(fd >= 0, "/dev/pt1 after the held calls: %s", strerror(errno));
	if (fd >= 0)
		close(fd);
	munmap(mem, 3 * pg);

	/* A held read whose userfaultfd is closed under it. */
	STAGE("uffd: closed userfaultfd\n");
	mem = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	REQUIRE(mem != MAP_FAILED, "mmap");
	mem[0] = 1;
	close(uffd);
	uffd = uffd_open();
	uffd_reg(uffd, mem + pg, pg);
	hold_buf = mem;
	fd = open_stream(0, 1);
	wait_unread(fd, 3 * pg);
	hold_fd = fd;
	REQUIRE(!pthread_create(&rt, NULL, hold_reader, NULL), "thread");
	CHECK(uffd_faults(uffd, 1) == 1, "the read did not fault");
	close(uffd);
	pthread_join(rt, NULL);
	printf("uffd: read held by a closed userfaultfd: %zd (%s)\n", hold_ret,
	       hold_ret < 0 ? strerror(hold_errno) : "ok");
	CHECK(hold_ret == 2 * pg || hold_ret == pg,
	      "read held by a closed userfaultfd: %zd (%s)", hold_ret,
	      strerror(hold_errno));
	CHECK(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	close(fd);
	munmap(mem, 2 * pg);
}

/* ---- uring: IORING_OP_READ on the device ---- */

struct ring {
	int fd;
	void *sq, *cq;
	size_t sq_len, cq_len, sqes_len;
	unsigned int *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
};

static int ring_setup(struct ring *r)
{
	struct io_uring_params p;
	unsigned char *sq, *cq;

	memset(&p, 0, sizeof(p));
	r->fd = syscall(__NR_io_uring_setup, 4, &p);
	if (r->fd < 0)
		return -1;
	r->sq_len = p.sq_off.array + p.sq_entries * 4;
	r->cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	r->sqes_len = p.sq_entries * sizeof(struct io_uring_sqe);
	sq = mmap(NULL, r->sq_len, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQ_RING);
	cq = mmap(NULL, r->cq_len, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_CQ_RING);
	r->sq = sq;
	r->cq = cq;
	r->sqes = mmap(NULL, r->sqes_len,
		       PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
		       IORING_OFF_SQES);
	REQUIRE(sq != MAP_FAILED && cq != MAP_FAILED && r->sqes != MAP_FAILED,
		"io_uring mmap");
	r->sq_tail = (unsigned int *)(sq + p.sq_off.tail);
	r->sq_mask = (unsigned int *)(sq + p.sq_off.ring_mask);
	r->sq_array = (unsigned int *)(sq + p.sq_off.array);
	r->cq_head = (unsigned int *)(cq + p.cq_off.head);
	r->cq_tail = (unsigned int *)(cq + p.cq_off.tail);
	r->cq_mask = (unsigned int *)(cq + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	return 0;
}

static void ring_read(struct ring *r, int fd, void *buf, unsigned int len,
		      __u64 tag)
{
	unsigned int t = *r->sq_tail, i = t & *r->sq_mask;
	struct io_uring_sqe *e = &r->sqes[i];

	memset(e, 0, sizeof(*e));
	e->opcode = IORING_OP_READ;
	e->fd = fd;
	e->addr = (uintptr_t)buf;
	e->len = len;
	e->off = -1;
	e->user_data = tag;
	r->sq_array[i] = i;
	__atomic_store_n(r->sq_tail, t + 1, __ATOMIC_RELEASE);
	REQUIRE(syscall(__NR_io_uring_enter, r->fd, 1, 0, 0, NULL, 0) == 1,
		"io_uring_enter: %s", strerror(errno));
}

/* The next completion's result (waits up to 5 s). */
static int ring_wait(struct ring *r, __u64 *tag)
{
	unsigned int h = *r->cq_head;
	struct io_uring_cqe *c;
	double t0 = st_now();

	while (__atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE) == h) {
		if (st_now() - t0 > 5)
			return INT32_MIN;
		syscall(__NR_io_uring_enter, r->fd, 0, 1,
			IORING_ENTER_GETEVENTS, NULL, 0);
	}
	c = &r->cqes[h & *r->cq_mask];
	*tag = c->user_data;
	__atomic_store_n(r->cq_head, h + 1, __ATOMIC_RELEASE);
	return c->res;
}

static void part_uring(void)
{
	static unsigned char buf[SIZE];
	struct ring r;
	unsigned char *none;
	__u64 tag;
	int fd, res, i;
	double t0;

	if (ring_setup(&r)) {
		printf("uring: no io_uring (%s): skipped\n", strerror(errno));
		return;
	}
	fd = open_stream(0, 1);
	wait_unread(fd, 4096);
	ring_read(&r, fd, buf, sizeof(buf), 1);
	res = ring_wait(&r, &tag);
	CHECK(res > 0, "IORING_OP_READ: %d", res);
	none = mmap(NULL, pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	wait_unread(fd, 64);
	ring_read(&r, fd, none, 64, 2);
	res = ring_wait(&r, &tag);
	CHECK(res == -EFAULT, "IORING_OP_READ into PROT_NONE: %d", res);
	/* Drain, slow down, and leave a read pending at the ring's close. */
	STAGE("uring: a read pending at close\n");
	CHECK(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	st_model_slow();
	CHECK(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	for (i = 0; i < 3; i++)
		ring_read(&r, fd, buf, sizeof(buf), 10 + i);
	usleep(20000);
	t0 = st_now();
	munmap(r.sq, r.sq_len);
	munmap(r.cq, r.cq_len);
	munmap(r.sqes, r.sqes_len);
	close(r.fd);
	CHECK(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	close(fd);
	/* The ring's requests hold the file: released once they are gone. */
	while ((fd = ptt_open_cpu(0, O_RDWR)) < 0 && errno == EBUSY &&
	       st_now() - t0 < 5)
		usleep(10000);
	CHECK(fd >= 0, "/dev/pt0 after the ring closed: %s", strerror(errno));
	printf("uring: reads done; /dev/pt0 free %.3f s after the ring closed\n",
	       st_now() - t0);
	if (fd >= 0)
		close(fd);
	st_restore_model();
	munmap(none, pg);
}

/* ---- signal: blocked readers interrupted ---- */

static int sig_fd;
static unsigned long long sig_bytes;
static unsigned long sig_reads;

static void on_alarm(int sig)
{
	static unsigned char hb[512];
	struct pollfd p = { .fd = sig_fd, .events = POLLIN };
	ssize_t n;

	(void)sig;
	if (poll(&p, 1, 0) == 1 && (p.revents & POLLIN)) {
		n = read(sig_fd, hb, sizeof(hb));
		if (n > 0)
			sig_bytes += n;
		sig_reads++;
	}
}

/* The child: read to end of file (main loop and handler), report. */
static void signal_child(int fd, int wfd)
{
	static unsigned char b[4096];
	struct itimerval it = { { 0, 3000 }, { 0, 3000 } };
	struct sigaction sa;
	unsigned long long got = 0, r[2];
	ssize_t n;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	sig_fd = fd;
	setitimer(ITIMER_REAL, &it, NULL);
	for (;;) {
		n = read(fd, b, sizeof(b));
		if (n > 0)
			got += n;
		else if (n == 0 || errno != EINTR)
			break;
	}
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	r[0] = n == 0 ? got : ~0ULL;
	r[1] = sig_bytes;
	if (write(wfd, r, sizeof(r)) != sizeof(r))
		_exit(2);
	_exit(0);
}

struct blocked {
	pthread_t t;
	int fd, poller, done;
	ssize_t ret;
};

/* One read(2) or poll(2) each, in flight when the last fd is closed. */
static void *blocked_fn(void *arg)
{
	struct blocked *b = arg;
	unsigned char buf[2048];
	struct pollfd p = { .fd = b->fd, .events = POLLIN };

	if (b->poller)
		b->ret = poll(&p, 1, 1500);
	else
		b->ret = read(b->fd, buf, sizeof(buf));
	__atomic_store_n(&b->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void part_signal(void)
{
	struct pt_trace_status st;
	struct blocked bl[12];
	unsigned long long r[2], head;
	int fd, p[2], status, i, alive;
	pid_t c;
	double t0;

	/*
	 * A stage line before each step: this part once hung on the debug
	 * kernel (bdw) until the runner's 90 s, saying nothing of where.
	 */
	STAGE("signal: a reader with a 3 ms SIGALRM that reads too\n");
	fd = open_stream(0, 1);
	REQUIRE(!pipe(p), "pipe");
	c = fork();
	REQUIRE(c >= 0, "fork");
	if (!c)
		signal_child(fd, p[1]);
	usleep(100 * 1000);
	STAGE("signal: the reader stopped, continued, ptraced\n");
	kill(c, SIGSTOP);
	usleep(100 * 1000);
	kill(c, SIGCONT);
	usleep(50 * 1000);
	if (!ptrace(PTRACE_ATTACH, c, 0, 0)) {
		/*
		 * The attach's SIGSTOP may come after a SIGALRM's
		 * signal-delivery-stop: pass those on until it comes.  A
		 * detach at the SIGALRM's stop left the SIGSTOP pending, and
		 * the untraced child stopped for good (debug kernel: the
		 * runner's 90 s, twice).
		 */
		for (i = 0; i < 1000; i++) {
			if (waitpid(c, &status, __WALL) != c ||
			    !WIFSTOPPED(status) || WSTOPSIG(status) == SIGSTOP)
				break;
			ptrace(PTRACE_CONT, c, 0, WSTOPSIG(status));
		}
		CHECK(WIFSTOPPED(status) && WSTOPSIG(status) == SIGSTOP,
		      "PTRACE_ATTACH: no SIGSTOP stop (status %#x, %d others)",
		      status, i);
		usleep(50 * 1000);
		CHECK(!ptrace(PTRACE_DETACH, c, 0, 0), "PTRACE_DETACH: %s",
		      strerror(errno));
		printf("signal: ptraced; %d signal stops before the attach's\n",
		       i);
	} else {
		printf("signal: PTRACE_ATTACH: %s\n", strerror(errno));
	}
	usleep(200 * 1000);
	STAGE("signal: STOP, the reader to reach end of file\n");
	CHECK(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	head = head_of(fd);
	memset(r, 0, sizeof(r));
	CHECK(read(p[0], r, sizeof(r)) == sizeof(r), "the reader child said nothing");
	STAGE("signal: the reader's report read\n");
	waitpid(c, &status, 0);
	printf("signal: data_head %llu, read %llu (%llu in the handler)\n",
	       head, r[0], r[1]);
	CHECK(r[0] != ~0ULL, "the reader child did not reach end of file");
	CHECK(r[0] + r[1] == head,
	      "stopped, continued, traced and signalled readers read %llu of %llu bytes",
	      r[0] + r[1], head);
	close(p[0]);
	close(p[1]);

	/* A blocked reader killed while data arrives. */
	STAGE("signal: a blocked reader killed\n");
	st_model_slow();
	CHECK(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	c = fork();
	REQUIRE(c >= 0, "fork");
	if (!c) {
		char b[64];

		for (;;)
			if (read(fd, b, sizeof(b)) <= 0)
				_exit(0);
	}
	usleep(300 * 1000);
	kill(c, SIGKILL);
	t0 = st_now();
	CHECK(waitpid(c, &status, 0) == c && WIFSIGNALED(status),
	      "killed reader");
	CHECK(st_now() - t0 < 2, "a killed reader took %.1f s", st_now() - t0);

	/*
	 * Twelve blocked threads and the last fd closed under them.  At the
	 * usual pace: a sleeping reader is woken at the watermark.
	 */
	STAGE("signal: twelve blocked calls, last fd closed\n");
	CHECK(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	while (read(fd, r, sizeof(r)) > 0)
		;
	st_restore_model();
	CHECK(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	for (i = 0; i < 12; i++) {
		bl[i].fd = fd;
		bl[i].poller = i >= 8;
		bl[i].done = 0;
		bl[i].ret = -2;
		REQUIRE(!pthread_create(&bl[i].t, NULL, blocked_fn, &bl[i]),
			"thread");
	}
	usleep(50 * 1000);
	close(fd);
	/* In flight, the calls hold the file: the readers get data still. */
	t0 = st_now();
	do {
		usleep(20000);
		for (i = 0, alive = 0; i < 12; i++)
			alive += !__atomic_load_n(&bl[i].done, __ATOMIC_ACQUIRE);
	} while (alive && st_now() - t0 < 8);
	CHECK(!alive, "%d of 12 blocked calls still blocked 8 s after close",
	      alive);
	for (i = 0; i < 8 && !alive; i++) {
		pthread_join(bl[i].t, NULL);
		CHECK(bl[i].ret > 0, "reader %d in flight at close: %zd", i,
		      bl[i].ret);
	}
	for (; i < 12 && !alive; i++)
		pthread_join(bl[i].t, NULL);
	REQUIRE(!alive, "blocked threads");
	t0 = st_now();
	while ((fd = ptt_open_cpu(0, O_RDWR)) < 0 && errno == EBUSY &&
	       st_now() - t0 < 5)
		usleep(10000);
	CHECK(fd >= 0, "/dev/pt0 after its blocked threads: %s",
	      strerror(errno));
	if (fd >= 0) {
		st_status(fd, &st);
		CHECK(!(st.flags & PT_STATUS_RUNNING),
		      "a new open finds the old trace running");
		close(fd);
	}
	st_restore_model();
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	pg = sysconf(_SC_PAGESIZE);
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP("needs CPU 1");
	part_own();
	part_uffd();
	part_uring();
	part_signal();
	return ptt_done();
}
