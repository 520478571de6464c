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
#include <unistd.h>

#include "compiler.h"
#include "elf_image.h"
#include "kernel_debug.h"

/*
 * Whether @path is an ELF file with the build-id @hex: 1, 0, or -ENOEXEC
 * when it is no ELF file elfutils can read (compressed in a format it
 * cannot unpack).
 */
static int kdbg_matches(const char *path, const char *hex)
{
	uint8_t id[64];
	char got[2 * sizeof(id) + 1];
	int n = elf_image_build_id(path, id, sizeof(id)), i;

	if (n == -ENOEXEC)
		return n;
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
		if (kdbg_matches(out, build_id) == 1)
			return 0;
		if (at < where_len) {
			int n = snprintf(where + at, where_len - at, "%s%s",
					 at ? ", " : "", out);

			at += n > 0 ? (size_t)n : 0;
		}
	}
	return -ENOENT;
}

/* Module names: /proc/modules has '_' where the file may have '-'. */
static int kdbg_same_module(const char *file, const char *name)
{
	const char *base = strrchr(file, '/');
	size_t i;

	base = base ? base + 1 : file;
	for (i = 0; name[i]; i++)
		if (base[i] != name[i] &&
		    !((base[i] == '-' || base[i] == '_') &&
		      (name[i] == '-' || name[i] == '_')))
			return 0;
	return !strncmp(base + i, ".ko", 3) &&
	       (!base[i + 3] || base[i + 3] == '.');
}

/* @name's path relative to /lib/modules/RELEASE from its modules.dep. */
static int kdbg_modules_dep(const char *symfs, const char *release,
			    const char *name, char *rel, size_t len)
{
	char path[4096], line[1024];
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/lib/modules/%s/modules.dep", symfs,
		 release);
	f = fopen(path, "re");
	while (f && !found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, ":\n")] = 0;
		if (kdbg_same_module(line, name)) {
			snprintf(rel, len, "%s", line);
			found = 1;
		}
	}
	if (f)
		fclose(f);
	return found;
}

/*
 * A NAME.ko that is not there may be there compressed, as distributions
 * install modules (DKMS too, when the kernel's own modules are): @path
 * becomes the first of NAME.ko.xz, .zst and .gz that is readable.
 */
static void kdbg_compressed(char *path, size_t size)
{
	static const char *const ext[] = { ".xz", ".zst", ".gz" };
	size_t n = strlen(path), i;

	if (n < 3 || strcmp(path + n - 3, ".ko") || n + 5 > size)
		return;
	for (i = 0; i < ARRAY_SIZE(ext); i++) {
		memcpy(path + n, ext[i], strlen(ext[i]) + 1);
		if (!access(path, R_OK))
			return;
	}
	path[n] = 0;
}

int kdbg_find_module(const char *symfs, const char *name, const char *build_id,
		     const char *release, char *out, size_t len,
		     char *where, size_t where_len)
{
	char cand[8][4096], rel[2048] = "";
	size_t i, n = 0, at = 0;
	int stale = 0, unreadable = 0;

	if (!symfs)
		symfs = "";
	if (where_len)
		where[0] = 0;
	if (build_id && strlen(build_id) >= 3)
		snprintf(cand[n++], sizeof(cand[0]),
			 "%s/usr/lib/debug/.build-id/%.2s/%s.debug", symfs,
			 build_id, build_id + 2);
	if (release && kdbg_modules_dep(symfs, release, name, rel, sizeof(rel))) {
		char *dot = strstr(rel, ".ko");

		snprintf(cand[n++], sizeof(cand[0]),
			 "%s/usr/lib/debug/lib/modules/%s/%.*s.ko", symfs,
			 release, dot ? (int)(dot - rel) : 0, rel);
		snprintf(cand[n++], sizeof(cand[0]), "%s/lib/modules/%s/%s",
			 symfs, release, rel);
	}
	if (release) {
		/* DKMS (this project's dkms.conf) and make install's places */
		snprintf(cand[n++], sizeof(cand[0]),
			 "%s/lib/modules/%s/updates/dkms/%s.ko", symfs, release,
			 name);
		snprintf(cand[n++], sizeof(cand[0]),
			 "%s/lib/modules/%s/extra/%s.ko", symfs, release, name);
		snprintf(cand[n++], sizeof(cand[0]),
			 "%s/lib/modules/%s/updates/%s.ko", symfs, release,
			 name);
	}
	if (*symfs)	/* a directory of .ko files (a build tree's output) */
		snprintf(cand[n++], sizeof(cand[0]), "%s/%s.ko", symfs, name);
	for (i = 0; i < n; i++) {
		int ok;

		if (access(cand[i], R_OK))
			kdbg_compressed(cand[i], sizeof(cand[i]));
		if (access(cand[i], R_OK))
			ok = -1;
		else
			ok = build_id ? kdbg_matches(cand[i], build_id) : 1;
		if (ok == 1) {
			snprintf(out, len, "%s", cand[i]);
			return 0;
		}
		if (!ok && !stale) {
			stale = 1;
			snprintf(out, len, "%s", cand[i]);
		}
		if (ok == -ENOEXEC && !stale && !unreadable) {
			unreadable = 1;
			snprintf(out, len, "%s", cand[i]);
		}
		if (at < where_len) {
			int k = snprintf(where + at, where_len - at, "%s%s",
					 at ? ", " : "", cand[i]);

			at += k > 0 ? (size_t)k : 0;
		}
	}
	return stale ? -ESTALE : unreadable ? -ENOEXEC : -ENOENT;
}
