// SPDX-License-Identifier: GPL-2.0
/*
 * The device's mappings and files handed to the rest of the kernel, on
 * /dev/pt1 and /dev/bts1 streaming, while a thread STOPs, STARTs and
 * resizes (SET_BUFSIZE) beside it:
 *  mremap:  grow (refused), shrink, move, MREMAP_DONTUNMAP (refused), a
 *           zero-length duplicate; each piece still reads;
 *  madvise: DONTNEED, DONTFORK, DOFORK, WIPEONFORK, DONTDUMP, DODUMP,
 *           REMOVE, COLD, PAGEOUT, WILLNEED, POPULATE_*, MERGEABLE,
 *           HUGEPAGE, FREE; mprotect to PROT_WRITE (refused) and
 *           PROT_EXEC; mlock, munlock, mlockall(MCL_FUTURE) then mmap;
 *           a private control page made writable by mprotect or a
 *           /proc/self/mem write (refused: both once made a private
 *           copy, though mmap refuses it writable);
 *  foreign: /proc/self/mem and process_vm_writev writes into the data
 *           (refused) and the writable control page; O_DIRECT and
 *           read(2) of a file into the data (EFAULT), O_DIRECT from it;
 *           vmsplice of the data into a pipe read after the device is
 *           closed and its buffer freed; splice, sendfile and
 *           copy_file_range from the device;
 *  fork:    MADV_DOFORK'd mappings in a child that stores data_tail and
 *           unmaps after the parent closed (the device stays busy until
 *           then); a core dump of a process holding the mappings;
 *  files:   O_NONBLOCK toggled under a blocked reader, dup3 and close,
 *           the fd passed over a unix socket to a child that reads
 *           (starting the trace) and exits, and one left in flight;
 *           epoll (EPOLLET, EPOLLONESHOT, EPOLLEXCLUSIVE) on many fds of
 *           one device; lseek, pread, pwrite, write, readv with 1024
 *           and 1025 iovecs; select and poll on an fd above 1024.
 * Every error must be one the ABI or the kernel lists; then the device
 * opens again and nothing stays charged (VmPin, CAP_IPC_LOCK dropped).
 * The debug kernel has no madvise(2), process_vm_*(2), AF_UNIX or core
 * dumps: those parts run on 6.1 and 6.12.  Nothing else found (the
 * driver's pages are ordinary order-0 pages behind a VM_DONTEXPAND,
 * VM_DONTCOPY, VM_DONTDUMP mapping without VM_MAYWRITE on the data).
 * About 3 s (5 on the debug kernel); icl only.
 * ptt-timeout: 90
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <linux/capability.h>

#include "bts_common.h"

#define SIZE		(64u << 10)

static long pg;
static int have_bts;
/* The debug kernel has neither (ADVISE_SYSCALLS, CROSS_MEMORY_ATTACH). */
static int have_madvise, have_pvm;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int dev_open(int bts, int flags)
{
	char path[32];

	snprintf(path, sizeof(path), "/dev/%s1", bts ? "bts" : "pt");
	return open(path, O_RDWR | flags);
}

/* Streaming, configured (not started); SIZE bytes. */
static int dev_setup(int bts, int flags)
{
	struct pt_trace_config c = { .size = sizeof(c) };
	int fd = dev_open(bts, flags);

	REQUIRE(fd >= 0, "open %s1: %s", bts ? "bts" : "pt", strerror(errno));
	c.ctl = bts ? bts_ctl_here() : PT_CTL_BRANCHEN | PT_CTL_USER | PT_CTL_OS;
	c.mode = PT_MODE_STREAM;
	c.buffer_size = SIZE;
	c.watermark = 4096;
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &c), "SET_CONFIG: %s",
		strerror(errno));
	return fd;
}

/* The device opens again (its file was released), within 2 s. */
static void reopens(int bts, const char *when)
{
	double t0 = now();
	int fd;

	while ((fd = dev_open(bts, 0)) < 0 && errno == EBUSY &&
	       now() - t0 < 2)
		usleep(10000);
	CHECK(fd >= 0, "%s: %s1 does not open again: %s", when,
	      bts ? "bts" : "pt", strerror(errno));
	if (fd >= 0)
		close(fd);
}

static void unpin(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	CPU_SET(1, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void touch(const void *m, size_t len)
{
	const unsigned char *p = m;
	size_t i;

	for (i = 0; i < len; i += pg)
		(void)__atomic_load_n(p + i, __ATOMIC_RELAXED);
}

static int errno_ok(int e)
{
	switch (e) {
	case EINVAL: case EOPNOTSUPP: case EBUSY: case EPERM: case ENOMEM:
	case EFAULT: case EAGAIN: case EACCES: case EIO: case ESPIPE:
	case EXDEV: case EBADF: case ENODEV:
		return 1;
	}
	return 0;
}

#define TRY(what, expr)							\
	do {								\
		errno = 0;						\
		if ((long)(expr) < 0)					\
			CHECK(errno_ok(errno), "%s: %s", what,		\
			      strerror(errno));				\
	} while (0)

/* STOP, START and SET_BUFSIZE beside the games (EBUSY while mapped). */
static int race_fd, race_stop;
static unsigned long race_ops;

static void *racer(void *arg)
{
	__u64 sizes[2] = { SIZE, 2 * SIZE };
	unsigned int i = 0;

	(void)arg;
	while (!__atomic_load_n(&race_stop, __ATOMIC_RELAXED)) {
		int r;

		switch (i++ % 4) {
		case 0:
			r = ioctl(race_fd, PT_TRACE_IOC_STOP);
			break;
		case 1:
			r = ioctl(race_fd, PT_TRACE_IOC_SET_BUFSIZE,
				  &sizes[(i / 4) & 1]);
			break;
		default:
			r = ioctl(race_fd, PT_TRACE_IOC_START);
			break;
		}
		CHECK(r == 0 || errno == EBUSY || errno == EAGAIN,
		      "STOP/START/SET_BUFSIZE beside: %s", strerror(errno));
		__atomic_add_fetch(&race_ops, 1, __ATOMIC_RELAXED);
		usleep(200);
	}
	return NULL;
}

static void race_begin(int fd, pthread_t *t)
{
	race_fd = fd;
	race_stop = 0;
	REQUIRE(!pthread_create(t, NULL, racer, NULL), "thread");
}

static void race_end(pthread_t t)
{
	__atomic_store_n(&race_stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
}

/* A mapping of the control page and data, whatever size it has now. */
static void *map_all(int fd, size_t *len, int flags)
{
	struct pt_trace_status st;
	void *m;
	int i;

	for (i = 0; i < 1000; i++) {
		memset(&st, 0, sizeof(st));
		st.size = sizeof(st);
		REQUIRE(!ioctl(fd, PT_TRACE_IOC_GET_STATUS, &st), "status");
		*len = pg + st.buffer_size;
		m = mmap(NULL, *len, PROT_READ, flags, fd, 0);
		if (m != MAP_FAILED)
			return m;
		/* Resized meanwhile (a racer): the shape is checked. */
		CHECK(errno == EINVAL, "mmap: %s", strerror(errno));
	}
	REQUIRE(0, "no mapping in 1000 tries");
	return NULL;
}

/* ---- mremap, madvise, mprotect, mlock ---- */

static void part_mapping(int bts)
{
	static const int advice[] = {
		MADV_DONTNEED, MADV_DONTFORK, MADV_DOFORK, MADV_WIPEONFORK,
		MADV_KEEPONFORK, MADV_DONTDUMP, MADV_DODUMP, MADV_REMOVE,
		MADV_COLD, MADV_PAGEOUT, MADV_WILLNEED, MADV_POPULATE_READ,
		MADV_POPULATE_WRITE, MADV_MERGEABLE, MADV_UNMERGEABLE,
		MADV_HUGEPAGE, MADV_NOHUGEPAGE, MADV_FREE, MADV_SEQUENTIAL,
		MADV_RANDOM, MADV_NORMAL,
	};
	int fd = dev_setup(bts, O_NONBLOCK);
	int mem = open("/proc/self/mem", O_RDWR);
	size_t len, l2;
	unsigned int i, round;
	__u64 v = ~0ULL;
	pthread_t t;
	void *m, *m2, *hole;

	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	race_begin(fd, &t);
	for (round = 0; round < 8; round++) {
		m = map_all(fd, &len, MAP_SHARED);
		touch(m, len);
		/* Grow: the mapping cannot expand, in place or moved. */
		errno = 0;
		CHECK(mremap(m, len, len + pg, 0) == MAP_FAILED,
		      "mremap grew the mapping");
		CHECK(mremap(m, len, len + pg, MREMAP_MAYMOVE) == MAP_FAILED,
		      "mremap grew the mapping (moved)");
		m2 = mremap(m, len, pg, MREMAP_MAYMOVE | MREMAP_DONTUNMAP);
		CHECK(m2 == MAP_FAILED, "MREMAP_DONTUNMAP of the device");
		if (m2 != MAP_FAILED)
			munmap(m2, pg);
		/* A zero-length duplicate of a shared mapping. */
		m2 = mremap(m, 0, pg, MREMAP_MAYMOVE);
		if (m2 != MAP_FAILED) {
			touch(m2, pg);
			munmap(m2, pg);
		}
		/* Shrink, then move what is left. */
		l2 = len - 2 * pg;
		m2 = mremap(m, len, l2, 0);
		CHECK(m2 == m, "mremap shrink: %s", strerror(errno));
		touch(m, l2);
		hole = mmap(NULL, l2 + pg, PROT_NONE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		REQUIRE(hole != MAP_FAILED, "mmap");
		m2 = mremap(m, l2, l2, MREMAP_MAYMOVE | MREMAP_FIXED,
			    (char *)hole + pg);
		CHECK(m2 == (char *)hole + pg, "mremap move: %s",
		      strerror(errno));
		m = m2;
		touch(m, l2);
		for (i = 0; have_madvise && i < ARRAY_SIZE(advice); i++) {
			TRY("madvise", madvise(m, l2, advice[i]));
			touch(m, pg);
		}
		errno = 0;
		CHECK(mprotect(m, l2, PROT_READ | PROT_WRITE) == -1 &&
		      errno == EACCES, "mprotect PROT_WRITE: %s",
		      strerror(errno));
		TRY("mprotect exec", mprotect(m, l2, PROT_READ | PROT_EXEC));
		TRY("mlock", mlock(m, l2));
		touch(m, l2);
		TRY("munlock", munlock(m, l2));
		/* The middle moved away alone. */
		m2 = mremap((char *)m + pg, pg, pg, MREMAP_MAYMOVE);
		if (m2 != MAP_FAILED) {
			touch(m2, pg);
			munmap(m2, pg);
		}
		munmap(hole, l2 + pg);
		/* The control page alone: written shared; never private. */
		m = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		CHECK(m != MAP_FAILED, "control page: %s", strerror(errno));
		if (m != MAP_FAILED) {
			for (i = 0; have_madvise && i < ARRAY_SIZE(advice); i++)
				TRY("madvise ctrl", madvise(m, pg, advice[i]));
			munmap(m, pg);
		}
		m = mmap(NULL, pg, PROT_READ, MAP_PRIVATE, fd, 0);
		CHECK(m != MAP_FAILED, "private control page: %s",
		      strerror(errno));
		if (m != MAP_FAILED) {
			/*
			 * mmap refuses it writable (EPERM), so mprotect
			 * must not add it, nor a FOLL_FORCE write (a
			 * private copy that hides the driver's updates).
			 */
			errno = 0;
			CHECK(mprotect(m, pg, PROT_READ | PROT_WRITE) == -1 &&
			      errno == EACCES,
			      "mprotect made a private control page writable: %s",
			      strerror(errno));
			CHECK(pwrite(mem, &v, 8, (off_t)(unsigned long)m +
				     offsetof(struct pt_trace_mmap_page,
					      data_tail)) < 0,
			      "/proc/self/mem wrote a private control page");
			if (have_madvise)
				TRY("madvise priv",
				    madvise(m, pg, MADV_DONTNEED));
			touch(m, pg);
			munmap(m, pg);
		}
	}
	/* Every new mapping locked. */
	TRY("mlockall", mlockall(MCL_CURRENT | MCL_FUTURE));
	m = map_all(fd, &len, MAP_SHARED);
	touch(m, len);
	munmap(m, len);
	munlockall();
	race_end(t);
	close(fd);
	close(mem);
	reopens(bts, "after the mapping games");
}

/* ---- /proc/self/mem, process_vm_writev, gup, splice ---- */

static void part_foreign(int bts)
{
	int fd = dev_setup(bts, O_NONBLOCK), mem, pfd[2], nul, zero, dio, i;
	unsigned char *buf = aligned_alloc(4096, 4 * SIZE);
	size_t len;
	pthread_t t;
	void *m, *c;
	__u64 v = ~0ULL;
	ssize_t n;
	loff_t off;

	REQUIRE(buf, "aligned_alloc");
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	mem = open("/proc/self/mem", O_RDWR);
	nul = open("/dev/null", O_RDWR);
	zero = open("/dev/zero", O_RDONLY);
	/* tmpfs has O_DIRECT since 6.6; elsewhere skipped. */
	dio = open("/tmp/abi_mm_dio", O_RDWR | O_CREAT | O_TRUNC | O_DIRECT,
		   0600);
	if (dio >= 0 && (ftruncate(dio, 8192) ||
			 pread(dio, buf, 4096, 0) != 4096)) {
		close(dio);
		dio = -1;
	}
	if (dio < 0)
		fprintf(stderr, "PTT-INFO no O_DIRECT file: %s\n",
			strerror(errno));
	REQUIRE(mem >= 0 && nul >= 0 && zero >= 0, "open: %s", strerror(errno));
	REQUIRE(!pipe(pfd), "pipe");
	fcntl(pfd[0], F_SETPIPE_SZ, 1 << 20);
	race_begin(fd, &t);
	for (i = 0; i < 10; i++) {
		m = map_all(fd, &len, i & 1 ? MAP_PRIVATE : MAP_SHARED);
		c = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		/* Writes into the read-only data through the kernel. */
		errno = 0;
		n = pwrite(mem, buf, 64, (off_t)(unsigned long)m + pg);
		CHECK(n < 0, "/proc/self/mem wrote %zd bytes into the data", n);
		n = pwrite(mem, buf, 64, (off_t)(unsigned long)m);
		CHECK(n < 0, "/proc/self/mem wrote %zd bytes into the read-only control page", n);
		n = pread(mem, buf, len, (off_t)(unsigned long)m);
		CHECK(n == (ssize_t)len, "/proc/self/mem read %zd of %zu: %s",
		      n, len, strerror(errno));
		{
			struct iovec l = { buf, 64 },
				     r = { (char *)m + pg, 64 };

			n = process_vm_writev(getpid(), &l, 1, &r, 1, 0);
			CHECK(n < 0, "process_vm_writev wrote %zd bytes into the data", n);
			r.iov_len = len - pg;
			l.iov_len = len - pg;
			n = process_vm_readv(getpid(), &l, 1, &r, 1, 0);
			CHECK(n == (ssize_t)(len - pg) || !have_pvm,
			      "process_vm_readv %zd: %s", n, strerror(errno));
		}
		/* O_DIRECT into the data: the pages are pinned for writing. */
		if (dio >= 0) {
			n = pread(dio, (char *)m + pg, 4096, 0);
			CHECK(n < 0 && errno == EFAULT,
			      "O_DIRECT read into the data: %zd %s", n,
			      strerror(errno));
			n = pwrite(dio, (char *)m + pg, 4096, 4096);
			CHECK(n == 4096 || errno == EINVAL,
			      "O_DIRECT write from the data: %zd %s", n,
			      strerror(errno));
		}
		/* A file read into the data: the copy faults. */
		n = read(zero, (char *)m + pg, 64);
		CHECK(n < 0 && errno == EFAULT,
		      "read(2) into the data: %zd %s", n, strerror(errno));
		if (c != MAP_FAILED) {
			/* data_tail through the kernel's FOLL_FORCE write. */
			off = (off_t)(unsigned long)c +
			      offsetof(struct pt_trace_mmap_page, data_tail);
			TRY("/proc/self/mem ctrl", pwrite(mem, &v, 8, off));
			{
				struct iovec l = { &v, 8 },
					     r = { (char *)c + off -
						   (off_t)(unsigned long)c, 8 };

				if (have_pvm)
					TRY("process_vm_writev ctrl",
					    process_vm_writev(getpid(), &l, 1,
							      &r, 1, 0));
			}
			n = read(fd, buf, SIZE);
			CHECK(n >= 0 || errno == EAGAIN || errno == EINVAL,
			      "read after data_tail ~0: %s", strerror(errno));
		}
		/* The pages into a pipe (pinned), read after all is gone. */
		{
			struct iovec iv = { m, len };
			unsigned int fl = SPLICE_F_NONBLOCK |
					  (i & 2 ? SPLICE_F_GIFT : 0);

			TRY("vmsplice", vmsplice(pfd[1], &iv, 1, fl));
		}
		TRY("write from the data", write(nul, m, len));
		errno = 0;
		CHECK(splice(fd, NULL, pfd[1], NULL, 4096,
			     SPLICE_F_NONBLOCK) < 0,
		      "splice from the device worked");
		CHECK(sendfile(nul, fd, NULL, 4096) < 0,
		      "sendfile from the device worked");
		CHECK(copy_file_range(fd, NULL, nul, NULL, 4096, 0) < 0,
		      "copy_file_range from the device worked");
		if (c != MAP_FAILED)
			munmap(c, pg);
		munmap(m, len);
		/* A few of them: let the resize through meanwhile. */
		if (i % 5 == 4) {
			race_end(t);
			close(fd);
			reopens(bts, "with pages in a pipe");
			fd = dev_setup(bts, O_NONBLOCK);
			ioctl(fd, PT_TRACE_IOC_START);
			race_begin(fd, &t);
			/* The freed buffers' pages, from the pipe. */
			fcntl(pfd[0], F_SETFL, O_NONBLOCK);
			while (read(pfd[0], buf, SIZE) > 0)
				;
		}
	}
	race_end(t);
	close(fd);
	close(pfd[1]);
	while (read(pfd[0], buf, SIZE) > 0)
		;
	close(pfd[0]);
	close(mem);
	close(nul);
	close(zero);
	if (dio >= 0)
		close(dio);
	unlink("/tmp/abi_mm_dio");
	free(buf);
	reopens(bts, "after the foreign accesses");
}

/* ---- fork and core dumps ---- */

static void part_fork(int bts)
{
	int fd = dev_setup(bts, O_NONBLOCK), st, wfd[2];
	char core_old[256] = "";
	struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };
	size_t len;
	void *m, *c;
	pid_t pid;

	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	m = map_all(fd, &len, MAP_SHARED);
	c = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	REQUIRE(c != MAP_FAILED, "control page: %s", strerror(errno));
	/* Copied into the child (no VM_DONTCOPY any more). */
	/* Copied into the child (no VM_DONTCOPY any more). */
	if (!have_madvise) {
		fprintf(stderr, "PTT-INFO %s: no madvise(2): no fork with mappings\n",
			bts ? "bts" : "pt");
		munmap(m, len);
		munmap(c, pg);
		close(fd);
		goto core;
	}
	CHECK(!madvise(m, len, MADV_DOFORK) && !madvise(c, pg, MADV_DOFORK),
	      "MADV_DOFORK: %s", strerror(errno));
	REQUIRE(!pipe(wfd), "pipe");
	pid = fork();
	REQUIRE(pid >= 0, "fork");
	if (!pid) {
		struct pt_trace_mmap_page *cp = c;
		char b;

		close(fd);
		/* The parent closed and unmapped: the mappings still work. */
		if (read(wfd[0], &b, 1) != 1)
			_exit(3);
		touch(m, len);
		__atomic_store_n(&cp->data_tail,
				 __atomic_load_n(&cp->data_head,
						 __ATOMIC_ACQUIRE),
				 __ATOMIC_RELEASE);
		usleep(100000);
		munmap(c, pg);
		touch(m, len);
		munmap(m, len);
		_exit(0);
	}
	ioctl(fd, PT_TRACE_IOC_STOP);
	close(fd);
	munmap(m, len);
	munmap(c, pg);
	/* The child's mappings hold the file: busy until it unmaps. */
	fd = dev_open(bts, 0);
	CHECK(fd < 0 && errno == EBUSY,
	      "opened while a child still maps the device: %d %s", fd,
	      strerror(errno));
	if (fd >= 0)
		close(fd);
	REQUIRE(write(wfd[1], "x", 1) == 1, "write");
	REQUIRE(waitpid(pid, &st, 0) == pid, "waitpid");
	CHECK(WIFEXITED(st) && !WEXITSTATUS(st), "child: %#x", st);
	close(wfd[0]);
	close(wfd[1]);
	reopens(bts, "after the forked child unmapped");
core:

	/* A core dump of a process holding the mappings, tracing. */
	if (ptt_read_str("/proc/sys/kernel/core_pattern", core_old,
			 sizeof(core_old)) < 0) {
		fprintf(stderr, "PTT-INFO no core dumps (COREDUMP)\n");
		return;
	}
	ptt_write_str("/proc/sys/kernel/core_pattern", "/tmp/abi_mm_core.%p");
	pid = fork();
	REQUIRE(pid >= 0, "fork");
	if (!pid) {
		setrlimit(RLIMIT_CORE, &rl);
		fd = dev_setup(bts, O_NONBLOCK);
		ioctl(fd, PT_TRACE_IOC_START);
		m = map_all(fd, &len, MAP_SHARED);
		c = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		madvise(m, len, MADV_DODUMP);
		madvise(c, pg, MADV_DODUMP);
		m = mmap(NULL, pg, PROT_READ, MAP_PRIVATE, fd, 0);
		touch(c, pg);
		abort();
	}
	REQUIRE(waitpid(pid, &st, 0) == pid, "waitpid");
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT,
	      "core child: %#x", st);
	if (!WCOREDUMP(st)) {
		char cp[256] = "";

		ptt_read_str("/proc/sys/kernel/core_pattern", cp, sizeof(cp));
		fprintf(stderr, "PTT-INFO no core dumped (%#x), pattern %s dumpable %d\n",
			st, cp, prctl(PR_GET_DUMPABLE));
	}
	{
		char path[64];

		snprintf(path, sizeof(path), "/tmp/abi_mm_core.%d", pid);
		unlink(path);
	}
	if (core_old[0]) {
		core_old[strcspn(core_old, "\n")] = 0;
		ptt_write_str("/proc/sys/kernel/core_pattern", core_old);
	}
	reopens(bts, "after the core dump");
}

/* ---- file games ---- */

static int nb_fd, nb_stop;

static void *nb_toggler(void *arg)
{
	int fl = fcntl(nb_fd, F_GETFL);

	(void)arg;
	while (!__atomic_load_n(&nb_stop, __ATOMIC_RELAXED)) {
		fcntl(nb_fd, F_SETFL, fl | O_NONBLOCK);
		usleep(300);
		fcntl(nb_fd, F_SETFL, fl & ~O_NONBLOCK);
		usleep(300);
	}
	fcntl(nb_fd, F_SETFL, fl | O_NONBLOCK);
	return NULL;
}

static void *nb_reader(void *arg)
{
	static __thread unsigned char buf[16384];
	ssize_t n;

	(void)arg;
	while (!__atomic_load_n(&nb_stop, __ATOMIC_RELAXED)) {
		n = read(nb_fd, buf, sizeof(buf));
		CHECK(n >= 0 || errno == EAGAIN || errno == EINVAL,
		      "read with O_NONBLOCK toggled: %s", strerror(errno));
	}
	return NULL;
}

static void send_fd(int sock, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iv = { "x", 1 };
	struct msghdr mh = { .msg_iov = &iv, .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	REQUIRE(sendmsg(sock, &mh, 0) == 1, "sendmsg: %s", strerror(errno));
}

static int recv_fd(int sock)
{
	char cbuf[CMSG_SPACE(sizeof(int))], b;
	struct iovec iv = { &b, 1 };
	struct msghdr mh = { .msg_iov = &iv, .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm;
	int fd = -1;

	if (recvmsg(sock, &mh, 0) != 1)
		return -1;
	cm = CMSG_FIRSTHDR(&mh);
	if (cm && cm->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

static void part_files(int bts)
{
	static unsigned char buf[SIZE];
	static struct iovec iov[1025];
	pthread_t rt[2], tt;
	int fd, fd2, sp[2], ep[3], fds[48], i, st;
	struct epoll_event ev, evs[16];
	unsigned long long fdset[4096 / 64];
	struct rlimit rl;
	double t0;
	pid_t pid;
	ssize_t n;

	/* O_NONBLOCK toggled under two readers, STOP/START beside. */
	fd = dev_setup(bts, 0);
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	nb_fd = fd;
	nb_stop = 0;
	REQUIRE(!pthread_create(&rt[0], NULL, nb_reader, NULL), "thread");
	REQUIRE(!pthread_create(&rt[1], NULL, nb_reader, NULL), "thread");
	REQUIRE(!pthread_create(&tt, NULL, nb_toggler, NULL), "thread");
	t0 = now();
	while (now() - t0 < 0.5) {
		ioctl(fd, PT_TRACE_IOC_STOP);
		usleep(2000);
		ioctl(fd, PT_TRACE_IOC_START);
		usleep(20000);
	}
	__atomic_store_n(&nb_stop, 1, __ATOMIC_RELAXED);
	/* A reader blocked in a running stream ends at STOP. */
	ioctl(fd, PT_TRACE_IOC_STOP);
	pthread_join(tt, NULL);
	pthread_join(rt[0], NULL);
	pthread_join(rt[1], NULL);

	/* dup3, close the original; the copy reads on. */
	fd2 = dup3(fd, 100, O_CLOEXEC);
	REQUIRE(fd2 == 100, "dup3: %s", strerror(errno));
	close(fd);
	REQUIRE(!ioctl(fd2, PT_TRACE_IOC_START), "START on the dup: %s",
		strerror(errno));
	fcntl(fd2, F_SETFL, O_NONBLOCK);
	usleep(20000);
	n = read(fd2, buf, sizeof(buf));
	CHECK(n >= 0 || errno == EAGAIN, "read on the dup: %s",
	      strerror(errno));
	/* lseek, pread, pwrite, write, readv with huge iovec counts. */
	errno = 0;
	CHECK(lseek(fd2, 0, SEEK_SET) < 0 && errno == ESPIPE, "lseek: %s",
	      strerror(errno));
	CHECK(pread(fd2, buf, 16, 0) < 0 && errno == ESPIPE, "pread: %s",
	      strerror(errno));
	CHECK(pwrite(fd2, buf, 16, 0) < 0 && errno == ESPIPE, "pwrite: %s",
	      strerror(errno));
	n = write(fd2, buf, 16);
	CHECK(n < 0 && errno_ok(errno), "write: %zd %s", n, strerror(errno));
	for (i = 0; i < 1025; i++) {
		iov[i].iov_base = buf + (i * 7) % (SIZE - 64);
		iov[i].iov_len = i % 3 ? 1 + i % 61 : 0;
	}
	iov[500].iov_base = NULL;	/* a fault in the middle */
	iov[500].iov_len = 8;
	n = readv(fd2, iov, 1024);
	CHECK(n >= 0 || errno == EAGAIN || errno == EFAULT, "readv 1024: %s",
	      strerror(errno));
	errno = 0;
	CHECK(readv(fd2, iov, 1025) < 0 && errno == EINVAL,
	      "readv 1025: %s", strerror(errno));
	CHECK(preadv(fd2, iov, 4, 0) < 0 && errno == ESPIPE, "preadv: %s",
	      strerror(errno));
	/* select and poll on an fd above 1024. */
	getrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_max < 4096)
		rl.rlim_max = 4096;
	rl.rlim_cur = rl.rlim_max;
	if (!setrlimit(RLIMIT_NOFILE, &rl) && dup2(fd2, 3000) == 3000) {
		struct timeval tv = { 0, 300000 };

		memset(fdset, 0, sizeof(fdset));
		fdset[3000 / 64] |= 1ULL << (3000 % 64);
		n = syscall(SYS_select, 3001, fdset, NULL, NULL, &tv);
		CHECK(n >= 0, "select on fd 3000: %s", strerror(errno));
		n = poll(&(struct pollfd){ .fd = 3000, .events = POLLIN }, 1,
			 100);
		CHECK(n >= 0, "poll on fd 3000: %s", strerror(errno));
		close(3000);
	}

	/* epoll: many fds of one device, edge, one-shot, exclusive. */
	for (i = 0; i < 3; i++)
		ep[i] = epoll_create1(0);
	for (i = 0; i < 48; i++) {
		fds[i] = dup(fd2);
		REQUIRE(fds[i] >= 0, "dup: %s", strerror(errno));
		ev.events = i % 3 == 0 ? EPOLLIN | EPOLLPRI | EPOLLET :
			    i % 3 == 1 ? EPOLLIN | EPOLLPRI | EPOLLONESHOT :
			    EPOLLIN | EPOLLEXCLUSIVE;
		ev.data.fd = fds[i];
		CHECK(!epoll_ctl(ep[i % 3], EPOLL_CTL_ADD, fds[i], &ev),
		      "epoll_ctl: %s", strerror(errno));
	}
	t0 = now();
	while (now() - t0 < 0.4) {
		for (i = 0; i < 3; i++) {
			int k, j = epoll_wait(ep[i], evs, 16, 10);

			for (k = 0; k < j; k++) {
				n = read(evs[k].data.fd, buf, 4096);
				/* EBADF: an fd closed while its file lives on */
				CHECK(n >= 0 || errno == EAGAIN ||
				      errno == EBADF,
				      "read after epoll: %s", strerror(errno));
				if (i == 1) {
					ev.events = EPOLLIN | EPOLLONESHOT;
					ev.data.fd = evs[k].data.fd;
					epoll_ctl(ep[1], EPOLL_CTL_MOD,
						  evs[k].data.fd, &ev);
				}
			}
		}
		if (now() - t0 > 0.2 && fds[0] >= 0) {
			/* Closed while in the interest lists. */
			for (i = 0; i < 48; i += 2) {
				close(fds[i]);
				fds[i] = -1;
			}
			ioctl(fd2, PT_TRACE_IOC_STOP);
		}
	}
	for (i = 0; i < 48; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	close(fd2);
	/* The epoll instances still watch the last fds' file. */
	for (i = 0; i < 3; i++)
		close(ep[i]);
	reopens(bts, "after epoll");

	/* Passed over a unix socket to a child that reads and exits. */
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp)) {
		fprintf(stderr, "PTT-INFO no AF_UNIX: %s\n", strerror(errno));
		return;
	}
	/* Configured, not started: the child's read(2) starts PT. */
	fd = dev_setup(bts, 0);
	pid = fork();
	REQUIRE(pid >= 0, "fork");
	if (!pid) {
		int cfd = recv_fd(sp[1]);

		if (cfd < 0)
			_exit(2);
		if (bts && ioctl(cfd, PT_TRACE_IOC_START))
			_exit(4);
		/* Blocks until data: the read charges this child. */
		if (read(cfd, buf, 4096) <= 0)
			_exit(3);
		_exit(0);
	}
	send_fd(sp[0], fd);
	/* User code on CPU 1 for its trace, at most 5 s. */
	ptt_pin_cpu(1);
	t0 = now();
	while (waitpid(pid, &st, WNOHANG) == 0) {
		if (now() - t0 > 5) {
			kill(pid, SIGKILL);
			CHECK(0, "the fd-passing child's read did not return");
		}
		ptt_busy(20000);
	}
	unpin();
	CHECK(WIFEXITED(st) && !WEXITSTATUS(st), "fd-passing child: %#x", st);
	/* Its buffer, charged to the child that is gone: resized, closed. */
	fcntl(fd, F_SETFL, O_NONBLOCK);
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	ioctl(fd, PT_TRACE_IOC_STOP);
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	{
		__u64 sz = 2 * SIZE;

		n = ioctl(fd, PT_TRACE_IOC_SET_BUFSIZE, &sz);
		CHECK(!n, "SET_BUFSIZE after the child's session: %s",
		      strerror(errno));
	}
	close(fd);
	reopens(bts, "after the fd-passing child");
	/* One left in flight in a socket nobody reads, then closed. */
	fd = dev_setup(bts, 0);
	ioctl(fd, PT_TRACE_IOC_START);
	send_fd(sp[0], fd);
	close(fd);
	close(sp[0]);
	close(sp[1]);
	reopens(bts, "after an fd in flight was dropped");
}

/* Without CAP_IPC_LOCK: buffers are charged to VmPin. */
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
	int bts;
	double t0;
	char b[32] = "";

	pg = sysconf(_SC_PAGESIZE);
	/* The mm paths do not depend on the hardware layout: icl only. */
	if (getenv("PTT_PROFILE") && strcmp(getenv("PTT_PROFILE"), "icl"))
		SKIP("the mappings' paths are the profiles' own: icl only");
	if (ptt_read_ll("/sys/devices/system/cpu/cpu1/online") != 1)
		SKIP("needs CPU 1");
	ptt_read_str("/sys/kernel/pt_trace/backend", b, sizeof(b));
	/* Under PTI the driver refuses BTS (bts_config checks it). */
	have_bts = ptt_read_ll("/sys/kernel/pt_trace/bts/present") == 1 &&
		   !strncmp(b, "model", 5) && !bts_pti();
	{
		void *a = mmap(NULL, pg, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		struct iovec l = { b, 4 }, r = { a, 4 };

		REQUIRE(a != MAP_FAILED, "mmap");
		have_madvise = !madvise(a, pg, MADV_NORMAL);
		have_pvm = process_vm_readv(getpid(), &l, 1, &r, 1, 0) == 4;
		munmap(a, pg);
		if (!have_madvise || !have_pvm)
			fprintf(stderr, "PTT-INFO madvise(2) %d, process_vm_readv(2) %d\n",
				have_madvise, have_pvm);
	}
	drop_ipc_lock();
	for (bts = 0; bts <= have_bts; bts++) {
		const char *k = bts ? "bts" : "pt";

		t0 = now();
		part_mapping(bts);
		fprintf(stderr, "PTT-INFO %s-mapping %.1f\n", k, now() - t0);
		t0 = now();
		part_foreign(bts);
		fprintf(stderr, "PTT-INFO %s-foreign %.1f\n", k, now() - t0);
		t0 = now();
		part_fork(bts);
		fprintf(stderr, "PTT-INFO %s-fork %.1f\n", k, now() - t0);
		t0 = now();
		part_files(bts);
		fprintf(stderr, "PTT-INFO %s-files %.1f\n", k, now() - t0);
		CHECK(ptt_vmpin_kb() == 0, "%s: VmPin %ld kB with the device closed",
		      k, ptt_vmpin_kb());
	}
	fprintf(stderr, "PTT-INFO racer %lu ops\n", race_ops);
	return ptt_done();
}
