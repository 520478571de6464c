// SPDX-License-Identifier: GPL-2.0
/*
 * Start/stop storm in streaming mode with a second thread reading and
 * polling, rmmod refused while the device is open, and `cat`-style use:
 * read(2) on a fresh open starts streaming by itself.
 */
#include <pthread.h>
#include <sys/syscall.h>

#include "stream_common.h"
#include "stream_wd.h"

static int done;
static int fd;

static void *reader(void *arg)
{
	static unsigned char buf[65536];
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	(void)arg;
	while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
		poll(&pfd, 1, 20);
		while (read(fd, buf, sizeof(buf)) > 0)
			;
	}
	return NULL;
}

int main(void)
{
	struct pt_trace_status st;
	struct pt_trace_caps caps;
	pthread_t th;
	unsigned char buf[4096];
	ssize_t n;
	int i, fd2;

	fd = st_setup(0, 16 << 10, 0, O_NONBLOCK, &caps);
	for (i = 0; i < 60; i++) {
		if (i == 1)	/* after the first START: no autostart */
			REQUIRE(!pthread_create(&th, NULL, reader, NULL),
				"thread");
		REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START %d: %s", i,
			strerror(errno));
		usleep(i % 7 * 1000);
		REQUIRE(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP %d: %s", i,
			strerror(errno));
	}
	__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	CHECK(syscall(SYS_delete_module, "pt_trace", O_NONBLOCK) != 0,
	      "rmmod while open must fail");
	st_status(fd, &st);
	CHECK(st.starts >= 60, "starts %llu", (unsigned long long)st.starts);
	CHECK(!(st.flags & PT_STATUS_HW_ERROR), "no STATUS.Error");
	/* The last session's (each START resets the counters). */
	ST_CHECK_NO_WATCHDOG(0);
	close(fd);

	/*
	 * cat /dev/pt0: the first read starts streaming (the default
	 * configuration traces user space only, so data may take long on
	 * an idle CPU: non-blocking here).
	 */
	fd2 = ptt_open_cpu(0, O_RDONLY | O_NONBLOCK);
	REQUIRE(fd2 >= 0, "reopen: %s", strerror(errno));
	n = read(fd2, buf, sizeof(buf));
	CHECK(n > 0 || errno == EAGAIN, "read on a fresh open: %zd (%s)", n,
	      strerror(errno));
	st_status(fd2, &st);
	CHECK(st.mode == PT_MODE_STREAM && (st.flags & PT_STATUS_RUNNING),
	      "streaming: mode %u flags %#x", st.mode, st.flags);
	close(fd2);
	st_restore_model();
	return ptt_done();
}
