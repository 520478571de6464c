// SPDX-License-Identifier: GPL-2.0
/*
 * A read(2) copying from a streaming ring while the owner STOPs and
 * STARTs again (a new session on the same buffer): the read's release of
 * data_tail must not land in the new session.  The copy is held in the
 * middle by a userfaultfd page of the reader's buffer (the debug kernel
 * has no userfaultfd: skipped there), STOP and START run meanwhile, and
 * then the fault is resolved.  Afterwards the new session's control page
 * must have data_tail <= data_head, and after STOP read(2) must return
 * every byte of the new session (data_head of them) before end of file.
 * Before the fix START reset the ring under the copy and the reader's
 * stale tail hid the new session's first bytes: read(2) said end of file
 * with data unread, and no loss record told.  About 2 s.
 * ptt-timeout: 60
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <linux/userfaultfd.h>

#include "stream_common.h"

#define SIZE		(64u << 10)

static int fd;
static long pg;
static unsigned char *dst;
static ssize_t reader_ret;
static int reader_errno, start_ret, start_errno;
static const struct pt_trace_mmap_page *ctrl;

static void *reader(void *arg)
{
	(void)arg;
	/* The first page copies, the second faults into the userfaultfd. */
	reader_ret = read(fd, dst, 2 * pg);
	reader_errno = errno;
	return NULL;
}

static void *starter(void *arg)
{
	(void)arg;
	start_ret = ioctl(fd, PT_TRACE_IOC_START);
	start_errno = errno;
	return NULL;
}

static unsigned long long head_now(void)
{
	return __atomic_load_n(&ctrl->data_head, __ATOMIC_ACQUIRE);
}

int main(void)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;
	struct uffdio_zeropage zp;
	struct pt_trace_caps caps;
	struct uffd_msg msg;
	struct pollfd pfd;
	pthread_t rt, stt;
	unsigned long long head, tail, got = 0;
	static unsigned char out[SIZE];
	double t0;
	ssize_t n;
	int uffd;

	pg = sysconf(_SC_PAGESIZE);
	uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0)
		SKIP("no userfaultfd: %s", strerror(errno));
	REQUIRE(!ioctl(uffd, UFFDIO_API, &api), "UFFDIO_API: %s",
		strerror(errno));
	dst = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	REQUIRE(dst != MAP_FAILED, "mmap");
	dst[0] = 1;	/* present: the copy stops at the second page */
	memset(&reg, 0, sizeof(reg));
	reg.range.start = (uintptr_t)dst + pg;
	reg.range.len = pg;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	REQUIRE(!ioctl(uffd, UFFDIO_REGISTER, &reg), "UFFDIO_REGISTER: %s",
		strerror(errno));

	fd = st_setup(0, SIZE, 4 << 10, 0, &caps);
	st_model_fast(&caps);
	ctrl = mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, 0);
	REQUIRE(ctrl != MAP_FAILED, "mmap control page: %s", strerror(errno));
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	/* Two pages unread, so that the copy crosses into the second. */
	t0 = st_now();
	while (head_now() < 2ull * pg && st_now() - t0 < 20)
		usleep(1000);
	REQUIRE(head_now() >= 2ull * pg, "no data: head %llu", head_now());
	/* The next session produces little: 64 bytes every 250 ms. */
	st_model_slow();

	REQUIRE(!pthread_create(&rt, NULL, reader, NULL), "thread");
	pfd.fd = uffd;
	pfd.events = POLLIN;
	REQUIRE(poll(&pfd, 1, 10000) == 1, "the read did not fault");
	REQUIRE(read(uffd, &msg, sizeof(msg)) == sizeof(msg) &&
		msg.event == UFFD_EVENT_PAGEFAULT, "uffd event");

	/* The reader is inside its copy: a new session on the same buffer. */
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	REQUIRE(!pthread_create(&stt, NULL, starter, NULL), "thread");
	usleep(200 * 1000);
	memset(&zp, 0, sizeof(zp));
	zp.range.start = (uintptr_t)dst + pg;
	zp.range.len = pg;
	REQUIRE(!ioctl(uffd, UFFDIO_ZEROPAGE, &zp), "UFFDIO_ZEROPAGE: %s",
		strerror(errno));
	pthread_join(rt, NULL);
	pthread_join(stt, NULL);
	CHECK(reader_ret == 2 * pg, "the held read returned %zd (%s)",
	      reader_ret, strerror(reader_errno));
	REQUIRE(!start_ret, "START beside the read: %s",
		strerror(start_errno));

	/* The new session: some bytes, then STOP and drain. */
	usleep(600 * 1000);
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	head = head_now();
	CHECK(head > 0, "the new session wrote nothing in 600 ms");
	tail = __atomic_load_n(&ctrl->data_tail, __ATOMIC_ACQUIRE);
	CHECK(tail <= head, "new session: data_tail %llu beyond data_head %llu",
	      tail, head);
	while ((n = read(fd, out, sizeof(out))) > 0)
		got += n;
	CHECK(n == 0, "drain: %s", strerror(errno));
	CHECK(got == head, "new session: read %llu bytes of %llu before end of file",
	      got, head);
	printf("held read %zd, new session %llu bytes, read %llu\n",
	       reader_ret, head, got);
	st_restore_model();
	return ptt_done();
}
