// SPDX-License-Identifier: GPL-2.0
/*
 * Looking up the recorded kernel's vmlinux by build-id (kernel_debug.h).
 * A candidate counts only when its own build-id is the recording's: a
 * vmlinux of another build would give wrong lines, silently.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "compiler.h"
#include "elf_image.h"
#include "kernel_debug.h"

/* Whether @path is an ELF file with the build-id @hex. */
static int kdbg_matches(const char *path, const char *hex)
{
	uint8_t id[64];
	char got[2 * sizeof(id) + 1];
	int n = elf_image_build_id(path, id, sizeof(id)), i;

	if (n <= 0)
		return 0;
	for (i = 0; i < n; i++)
		snprintf(got + 2 * i, 3, "%02x", id[i]);
	return !strcmp(got, hex);
}

int kdbg_find_vmlinux(const char *symfs, const char *build_id,
		      const char *release, char *out, size_t len,
		      char *where, size_t where_len)
{
	/*
	 * In the order elfutils' kernel search (dwfl_linux_kernel_find_elf)
	 * and perf take them; the build-id path first, which needs no
	 * release.
	 */
	static const char *const fmt[] = {
		"%s/usr/lib/debug/.build-id/%.2s/%s.debug",
		"%s/usr/lib/debug/boot/vmlinux-%s",
		"%s/usr/lib/debug/lib/modules/%s/vmlinux",
		"%s/lib/modules/%s/build/vmlinux",
		"%s/boot/vmlinux-%s",
	};
	size_t i, at = 0;

	if (!symfs)
		symfs = "";
	if (where_len)
		where[0] = 0;
	if (!build_id || strlen(build_id) < 3)
		return -ENOENT;
	for (i = 0; i < ARRAY_SIZE(fmt); i++) {
		if (i == 0)
			snprintf(out, len, fmt[0], symfs, build_id, build_id + 2);
		else if (release)
			snprintf(out, len, fmt[i], symfs, release);
		else
			continue;
		if (kdbg_matches(out, build_id))
			return 0;
		if (at < where_len) {
			int n = snprintf(where + at, where_len - at, "%s%s",
					 at ? ", " : "", out);

			at += n > 0 ? (size_t)n : 0;
		}
	}
	return -ENOENT;
}
