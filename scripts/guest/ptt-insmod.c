// SPDX-License-Identifier: GPL-2.0
/*
 * insmod for the test VM: one finit_module() call, nothing else.
 * busybox insmod retries a failed finit_module() with init_module(), so a
 * refused load would run the module's init twice (and log twice).
 * Usage: ptt-insmod FILE.ko [PARAM=VALUE...]; exits 0 on success, else 1
 * with the error (strerror) on stderr.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char params[4096] = "";
	size_t len = 0;
	int fd, i;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE.ko [PARAM=VALUE...]\n", argv[0]);
		return 1;
	}
	for (i = 2; i < argc; i++) {
		int n = snprintf(params + len, sizeof(params) - len, "%s%s",
				 len ? " " : "", argv[i]);

		if (n < 0 || (size_t)n >= sizeof(params) - len) {
			fprintf(stderr, "%s: parameters too long\n", argv[0]);
			return 1;
		}
		len += n;
	}
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "%s: %s: %s\n", argv[0], argv[1], strerror(errno));
		return 1;
	}
	if (syscall(SYS_finit_module, fd, params, 0)) {
		fprintf(stderr, "%s: can't insert '%s': %s\n", argv[0], argv[1],
			strerror(errno));
		return 1;
	}
	return 0;
}
