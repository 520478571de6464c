// SPDX-License-Identifier: GPL-2.0
/*
 * Saving the kernel for decode (see kernel_image.h).  The text's bytes
 * come from /proc/kcore, an ELF core file whose PT_LOAD segments map the
 * kernel's virtual addresses: the one holding [_stext, _etext) is copied
 * to a flat file, which a decoder loads at _stext; each module's the
 * same way from the module area.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/elf.h>

#include "kernel_image.h"
#include "sideband.h"

#define KIMG_NT_GNU_BUILD_ID	3	/* <elf.h>'s NT_GNU_BUILD_ID */

/* Copy @len bytes of @in from @off to @out (a new file); 0 or -errno. */
static int kimg_copy(int in, off_t off, uint64_t len, const char *out)
{
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	char buf[65536];
	int err = 0;

	if (fd < 0)
		return -errno;
	while (len) {
		size_t want = len < sizeof(buf) ? (size_t)len : sizeof(buf);
		ssize_t n = off >= 0 ? pread(in, buf, want, off) :
				       read(in, buf, want);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : (off >= 0 ? -EIO : 0);
			break;
		}
		if (write(fd, buf, (size_t)n) != n) {
			err = -EIO;
			break;
		}
		len -= (uint64_t)n;
		if (off >= 0)
			off += n;
	}
	if (close(fd) && !err)
		err = -errno;
	return err;
}

/* A /proc file (size 0 in stat) into @dir/@name. */
static void kimg_save_proc(FILE *sb, const char *key, const char *src,
			   const char *dir, const char *name)
{
	char path[4096];
	int in = open(src, O_RDONLY | O_CLOEXEC), err;

	if (in < 0) {
		ptsb_put(sb, key, "unavailable: %s: %s", src, strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	err = kimg_copy(in, -1, UINT64_MAX, path);
	close(in);
	if (err)
		ptsb_put(sb, key, "unavailable: copying %s: %s", src,
			 strerror(-err));
	else
		ptsb_put(sb, key, "%s", name);
}

/* _stext and _etext from kallsyms (0 when hidden by kptr_restrict). */
static int kimg_text_range(uint64_t *start, uint64_t *end)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], name[256], type;
	unsigned long long a;

	*start = *end = 0;
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f) && !(*start && *end)) {
		if (sscanf(line, "%llx %c %255s", &a, &type, name) != 3)
			continue;
		if (!strcmp(name, "_stext"))
			*start = a;
		else if (!strcmp(name, "_etext"))
			*end = a;
	}
	fclose(f);
	return *start && *end > *start ? 0 : -EPERM;
}

/*
 * Bytes [@start, @end) of kernel memory from /proc/kcore into @dir/@name:
 * 0 or -errno and @why.
 */
static int kimg_save_range(const char *dir, const char *name, uint64_t start,
			   uint64_t end, const char **why)
{
	int fd = open("/proc/kcore", O_RDONLY | O_CLOEXEC), err = -ENOENT;
	char path[4096];
	struct elf64_hdr eh;
	int i;

	*why = "/proc/kcore";
	if (fd < 0)
		return -errno;
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(struct elf64_phdr)) {
		close(fd);
		*why = "/proc/kcore is not a 64-bit ELF file";
		return -EINVAL;
	}
	*why = "no PT_LOAD segment of /proc/kcore holds the range";
	for (i = 0; i < eh.e_phnum; i++) {
		struct elf64_phdr ph;

		if (pread(fd, &ph, sizeof(ph),
			  (off_t)(eh.e_phoff + (uint64_t)i * sizeof(ph))) !=
		    sizeof(ph))
			break;
		if (ph.p_type != PT_LOAD || start < ph.p_vaddr ||
		    end > ph.p_vaddr + ph.p_filesz)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		*why = "copying from /proc/kcore";
		err = kimg_copy(fd, (off_t)(ph.p_offset + (start - ph.p_vaddr)),
				end - start, path);
		break;
	}
	close(fd);
	return err;
}

/*
 * The GNU build-id note in the notes file @path (/sys/kernel/notes for
 * the running kernel, /sys/module/NAME/notes/.note.gnu.build-id for a
 * module: the raw ELF notes), as hex into @hex.
 */
static int kimg_build_id(const char *path, char *hex, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint8_t buf[4096];
	ssize_t n;
	size_t at = 0;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	while (n > 0 && at + 12 <= (size_t)n) {
		uint32_t nsz, dsz, type;
		size_t name_at = at + 12, desc_at;

		memcpy(&nsz, buf + at, 4);
		memcpy(&dsz, buf + at + 4, 4);
		memcpy(&type, buf + at + 8, 4);
		desc_at = name_at + ((nsz + 3) & ~3U);
		if (desc_at + dsz > (size_t)n)
			break;
		if (type == KIMG_NT_GNU_BUILD_ID && nsz == 4 &&
		    !memcmp(buf + name_at, "GNU", 4) && 2 * dsz < len) {
			uint32_t i;

			for (i = 0; i < dsz; i++)
				snprintf(hex + 2 * i, 3, "%02x",
					 buf[desc_at + i]);
			return 0;
		}
		at = desc_at + ((dsz + 3) & ~3U);
	}
	return -ENOENT;
}

/*
 * Where each section of module @name was placed (its sysfs sections
 * directory, readable by root): kernel.module.sections=NAME SECTION ADDR
 * ..., so that a decoder can lay the module's .ko out as it was loaded
 * (an ET_REL file's sections are placed one by one) for source lines.
 */
static void kimg_save_sections(FILE *sb, const char *name)
{
	char dir[256], path[512], val[64];
	size_t len = 0, cap = 0;
	char *out = NULL;
	struct dirent *e;
	DIR *d;

	snprintf(dir, sizeof(dir), "/sys/module/%s/sections", name);
	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		unsigned long long a;
		FILE *f;
		char *p;
		int n;

		if (e->d_name[0] != '.' || !strcmp(e->d_name, ".") ||
		    !strcmp(e->d_name, "..") || strchr(e->d_name, ' '))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		n = !!fgets(val, sizeof(val), f);
		fclose(f);
		a = n ? strtoull(val, &p, 16) : 0;
		if (!a || p == val)	/* 0: hidden (kptr_restrict) */
			continue;
		if (len + strlen(e->d_name) + 24 > cap) {
			cap = cap * 2 + strlen(e->d_name) + 256;
			p = realloc(out, cap);
			if (!p)
				break;
			out = p;
		}
		len += (size_t)snprintf(out + len, cap - len, " %s 0x%llx",
					e->d_name, a);
	}
	closedir(d);
	if (len)
		ptsb_put(sb, "kernel.module.sections", "%s%s", name, out);
	free(out);
}

/*
 * Each module's code, as the text of the kernel: /proc/modules gives
 * its name, size and (visible to root) the address of its text; the
 * bytes from there for its size (which counts its data too: harmless)
 * go to module.NAME.bin, and kernel.module=NAME START LENGTH FILE says
 * where to load them; kernel.module.build_id=NAME HEX its GNU build-id
 * (from its notes in sysfs), which tells its .ko from another build's.
 */
static void kimg_save_modules(FILE *sb, const char *dir)
{
	FILE *f = fopen("/proc/modules", "re");
	char line[1024], name[64], file[128], hex[128];
	unsigned long long size, addr;
	const char *why;
	int err;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %llu %*s %*s %*s %llx", name, &size,
			   &addr) != 3 || strchr(name, '/'))
			continue;
		/* as perf record takes it, to find the module's .ko */
		snprintf(file, sizeof(file),
			 "/sys/module/%s/notes/.note.gnu.build-id", name);
		if (!kimg_build_id(file, hex, sizeof(hex)))
			ptsb_put(sb, "kernel.module.build_id", "%s %s", name,
				 hex);
		kimg_save_sections(sb, name);
		if (!addr) {
			ptsb_put(sb, "kernel.module",
				 "%s unavailable: no address in /proc/modules (kptr_restrict: record as root)",
				 name);
			continue;
		}
		if (!size || size > (64u << 20))
			continue;
		snprintf(file, sizeof(file), "module.%s.bin", name);
		err = kimg_save_range(dir, file, addr, addr + size, &why);
		if (err)
			ptsb_put(sb, "kernel.module", "%s unavailable: %s: %s",
				 name, why, strerror(-err));
		else
			ptsb_put(sb, "kernel.module", "%s 0x%llx 0x%llx %s",
				 name, addr, size, file);
	}
	fclose(f);
}

void ptt_kernel_record(FILE *sb, const char *dir)
{
	uint64_t start, end;
	const char *why;
	char hex[128];
	int err;

	kimg_save_proc(sb, "kernel.kallsyms", "/proc/kallsyms", dir,
		       PTT_KALLSYMS_FILE);
	kimg_save_proc(sb, "kernel.modules", "/proc/modules", dir,
		       PTT_MODULES_FILE);
	if (!kimg_build_id("/sys/kernel/notes", hex, sizeof(hex)))
		ptsb_put(sb, "kernel.build_id", "%s", hex);
	kimg_save_modules(sb, dir);
	err = kimg_text_range(&start, &end);
	if (err) {
		ptsb_put(sb, "kernel.text",
			 "unavailable: _stext/_etext not in /proc/kallsyms (kptr_restrict: record as root)");
		return;
	}
	err = kimg_save_range(dir, PTT_KTEXT_FILE, start, end, &why);
	if (err)
		ptsb_put(sb, "kernel.text", "unavailable: %s: %s", why,
			 strerror(-err));
	else
		ptsb_put(sb, "kernel.text", "0x%llx 0x%llx %s",
			 (unsigned long long)start,
			 (unsigned long long)(end - start), PTT_KTEXT_FILE);
}
