// SPDX-License-Identifier: GPL-2.0
/*
 * Permissions: /dev/ptN is root-only (0600); an unprivileged user cannot
 * open it, and even with the node widened it cannot trace the kernel or
 * another process's address space.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/pt_trace.h>

#include "ptt_test.h"

/* In a child as uid/gid 65534: the checks; exit code = failures. */
static int as_nobody(int widened)
{
	struct pt_trace_config c = { .size = sizeof(c) };
	struct pt_trace_cr3 cr3 = { .size = sizeof(cr3) };
	struct pt_trace_caps caps = { .size = sizeof(caps) };
	pid_t pid = fork();
	int fd, status;

	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(100);
		fd = ptt_open_cpu(0, O_RDONLY);
		if (!widened) {
			CHECK(fd < 0 && (errno == EACCES || errno == EPERM),
			      "nobody opened a 0600 node: %d %s", fd,
			      strerror(errno));
			_exit(ptt_failures);
		}
		REQUIRE(fd >= 0, "open widened node: %s", strerror(errno));
		CHECK(ioctl(fd, PT_TRACE_IOC_GET_CAPS, &caps) == 0, "caps");
		c.ctl = PT_CTL_BRANCHEN | PT_CTL_USER | PT_CTL_OS;
		CHECK(ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &c) == -1 &&
		      errno == EPERM, "kernel tracing as nobody: %s",
		      strerror(errno));
		c.ctl = PT_CTL_BRANCHEN | PT_CTL_USER;
		CHECK(ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &c) == 0,
		      "user tracing as nobody: %s", strerror(errno));
		if (caps.flags & PT_CAP_CR3_FILTER) {
			cr3.how = PT_CR3_BY_PID;
			cr3.pid = 1;
			CHECK(ioctl(fd, PT_TRACE_IOC_SET_CR3, &cr3) == -1 &&
			      errno == EPERM, "CR3 of pid 1 as nobody: %s",
			      strerror(errno));
			cr3.pid = 0;
			CHECK(ioctl(fd, PT_TRACE_IOC_SET_CR3, &cr3) == 0,
			      "own CR3: %s", strerror(errno));
		}
		close(fd);
		_exit(ptt_failures);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(void)
{
	struct stat sb;

	REQUIRE(getuid() == 0, "must start as root");
	REQUIRE(stat("/dev/pt0", &sb) == 0, "stat: %s", strerror(errno));
	CHECK((sb.st_mode & 0777) == 0600, "mode %o", sb.st_mode & 0777);
	CHECK(sb.st_uid == 0, "owner %u", sb.st_uid);
	CHECK(as_nobody(0) == 0, "closed node");
	REQUIRE(chmod("/dev/pt0", 0666) == 0, "chmod: %s", strerror(errno));
	CHECK(as_nobody(1) == 0, "widened node");
	chmod("/dev/pt0", 0600);
	return ptt_done();
}
