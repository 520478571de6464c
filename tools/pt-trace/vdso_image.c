// SPDX-License-Identifier: GPL-2.0
/*
 * Saving the vdso for decode (see vdso_image.h).  Its extent is the
 * [vdso] line of /proc/self/maps that starts at AT_SYSINFO_EHDR.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>

#include "sideband.h"
#include "vdso_image.h"

static int vdso_extent(unsigned long long base, unsigned long long *len)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "re");
	int err = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, b;

		if (sscanf(line, "%llx-%llx", &a, &b) == 2 && a == base &&
		    strstr(line, "[vdso]")) {
			*len = b - a;
			err = 0;
			break;
		}
	}
	fclose(f);
	return err;
}

int ptt_vdso_save(const char *dir)
{
	unsigned long long base = getauxval(AT_SYSINFO_EHDR), len = 0;
	const char *p = (const char *)(unsigned long)base;
	char path[4096];
	int fd, err;

	if (!base)
		return -ENOENT;
	err = vdso_extent(base, &len);
	if (err)
		return err;
	snprintf(path, sizeof(path), "%s/%s", dir, PTT_VDSO_FILE);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			break;
		}
		p += n;
		len -= (unsigned long long)n;
	}
	if (close(fd) && !err)
		err = -errno;
	return err;
}

void ptt_vdso_record(FILE *sb, const char *dir)
{
	int err = ptt_vdso_save(dir);

	if (err)
		ptsb_put(sb, "vdso", "unavailable: %s", strerror(-err));
	else
		ptsb_put(sb, "vdso", "%s", PTT_VDSO_FILE);
}
