// SPDX-License-Identifier: GPL-2.0
/*
 * ptt-timeout: 60
 * What decoding the kernel needs, saved by the recorder when OS tracing
 * is on (issue 13, "Kernel tracing"): 'record -d 1 -- PROG spin 0.3' as
 * root.  sideband.txt names kernel.kallsyms and kernel.modules, whose
 * files hold /proc/kallsyms' _stext line and /proc/modules' modules;
 * kernel.build_id is the GNU build-id in /sys/kernel/notes; kernel.text
 * is "START LENGTH FILE" with START = _stext and LENGTH = _etext -
 * _stext, and FILE holds exactly those bytes as /proc/kcore has them
 * (read here through kcore's own program headers, at the start, the
 * middle and the end).  Each kernel.module=NAME START LENGTH FILE names
 * a loaded module and FILE holds LENGTH bytes, the first of them as
 * /proc/kcore has them at START (at least one module, pt_trace, is
 * loaded); each kernel.module.build_id=NAME HEX is in that module's
 * notes in sysfs, and pt_trace has one.  Without /proc/kcore (the debug
 * kernel) kernel.text must say it is unavailable and why.  With -u (user space only) none of it is
 * saved.
 * The summary on stderr names the traced task ("tasks: PID (COMM)").
 */
#define _GNU_SOURCE
#include <linux/elf.h>
#include <stdio.h>
#include <stdlib.h>

#include "follow_record.h"

#define OUT	"/tmp/follow_kernel"

/* The address of @sym in a kallsyms file, or 0. */
static unsigned long long ksym(const char *path, const char *sym)
{
	char line[512], name[256], type;
	unsigned long long a, found = 0;
	FILE *f = fopen(path, "r");

	while (f && !found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &a, &type, name) == 3 &&
		    !strcmp(name, sym))
			found = a;
	if (f)
		fclose(f);
	return found;
}

/* The value of "@key=" in sideband.txt into @val, 1 when found. */
static int sb_key(const char *key, char *val, size_t len)
{
	char line[1024];
	size_t kl = strlen(key);
	FILE *f = fopen(OUT "/sideband.txt", "r");
	int found = 0;

	while (f && !found && fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, kl) || line[kl] != '=')
			continue;
		line[strcspn(line, "\n")] = 0;
		snprintf(val, len, "%s", line + kl + 1);
		found = 1;
	}
	if (f)
		fclose(f);
	return found;
}

/* @len bytes at kernel address @addr from /proc/kcore; 0 or -1. */
static int kcore_read(unsigned long long addr, void *buf, size_t len)
{
	int fd = open("/proc/kcore", O_RDONLY), i, ret = -1;
	struct elf64_hdr eh;
	struct elf64_phdr ph;

	if (fd < 0 || pread(fd, &eh, sizeof(eh), 0) != sizeof(eh))
		goto out;
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + i * eh.e_phentsize) !=
		    sizeof(ph))
			break;
		if (ph.p_type != PT_LOAD || addr < ph.p_vaddr ||
		    addr + len > ph.p_vaddr + ph.p_memsz)
			continue;
		if (pread(fd, buf, len, ph.p_offset + (addr - ph.p_vaddr)) ==
		    (ssize_t)len)
			ret = 0;
		break;
	}
out:
	if (fd >= 0)
		close(fd);
	return ret;
}

/* Is the GNU build-id @hex (40 hex digits or so) in the notes @path? */
static int in_notes(const char *path, const char *hex)
{
	unsigned char notes[4096], id[64];
	size_t n = strlen(hex) / 2, i;
	int fd = open(path, O_RDONLY);
	ssize_t got;

	if (fd < 0 || n < 8 || n > sizeof(id))
		return 0;
	got = read(fd, notes, sizeof(notes));
	close(fd);
	for (i = 0; i < n; i++)
		if (sscanf(hex + 2 * i, "%2hhx", &id[i]) != 1)
			return 0;
	return got > 0 && memmem(notes, (size_t)got, id, n);
}

static void check_text(void)
{
	unsigned long long start, len, stext, etext, off[3];
	char val[256], file[256], path[512];
	unsigned char a[256], b[256];
	FILE *f;
	int i;

	stext = ksym("/proc/kallsyms", "_stext");
	etext = ksym("/proc/kallsyms", "_etext");
	REQUIRE(stext && etext > stext, "no _stext/_etext in /proc/kallsyms");
	CHECK(sb_key("kernel.text", val, sizeof(val)), "no kernel.text");
	printf("PTT-INFO kernel.text=%s\n", val);
	if (access("/proc/kcore", R_OK)) {
		/* No CONFIG_PROC_KCORE (the debug kernel): said, not faked. */
		CHECK(strstr(val, "unavailable") && strstr(val, "kcore"),
		      "no /proc/kcore, yet kernel.text=%s", val);
		return;
	}
	if (sscanf(val, "%llx %llx %255s", &start, &len, file) != 3) {
		CHECK(0, "kernel.text is not START LENGTH FILE: %s", val);
		return;
	}
	CHECK(start == stext, "kernel.text starts at %#llx, _stext %#llx",
	      start, stext);
	CHECK(len == etext - stext, "kernel.text length %#llx, _etext - _stext %#llx",
	      len, etext - stext);
	snprintf(path, sizeof(path), OUT "/%s", file);
	CHECK(fw_size(path) == (long long)len, "%s: %lld bytes, want %llu",
	      path, fw_size(path), len);
	f = fopen(path, "r");
	REQUIRE(f, "%s: %s", path, strerror(errno));
	off[0] = 0;
	off[1] = (len / 2) & ~0xfffULL;
	off[2] = len - sizeof(a);
	for (i = 0; i < 3; i++) {
		CHECK(!fseek(f, (long)off[i], SEEK_SET) &&
		      fread(a, 1, sizeof(a), f) == sizeof(a),
		      "%s: short at %#llx", path, off[i]);
		CHECK(!kcore_read(stext + off[i], b, sizeof(b)),
		      "/proc/kcore has no %#llx", stext + off[i]);
		CHECK(!memcmp(a, b, sizeof(a)),
		      "%s at %#llx differs from /proc/kcore", path, off[i]);
	}
	fclose(f);
}

/*
 * Every kernel.module.build_id=NAME HEX line: the module's own notes
 * hold HEX; and pt_trace's is there (its notes are in sysfs).
 */
static void check_module_ids(void)
{
	char line[1024], name[64], hex[160], path[512];
	FILE *sb = fopen(OUT "/sideband.txt", "r");
	int n = 0, pt = 0;

	REQUIRE(sb, "sideband.txt: %s", strerror(errno));
	while (fgets(line, sizeof(line), sb)) {
		if (strncmp(line, "kernel.module.build_id=", 23))
			continue;
		CHECK(sscanf(line + 23, "%63s %159s", name, hex) == 2,
		      "not NAME HEX: %s", line);
		snprintf(path, sizeof(path),
			 "/sys/module/%s/notes/.note.gnu.build-id", name);
		CHECK(in_notes(path, hex),
		      "kernel.module.build_id %s %s is not in %s", name, hex,
		      path);
		pt += !strcmp(name, "pt_trace");
		n++;
	}
	fclose(sb);
	printf("PTT-INFO %d modules' build-ids checked against their notes\n", n);
	CHECK(pt || access("/sys/module/pt_trace/notes/.note.gnu.build-id", R_OK),
	      "no kernel.module.build_id for pt_trace, whose notes are in sysfs");
}

/* Every kernel.module line: a loaded module, its code as kcore has it. */
static void check_modules(void)
{
	char line[1024], name[64], file[256], path[512];
	unsigned long long start, len;
	unsigned char a[256], b[256];
	FILE *sb = fopen(OUT "/sideband.txt", "r"), *f;
	int n = 0;

	REQUIRE(sb, "sideband.txt: %s", strerror(errno));
	while (fgets(line, sizeof(line), sb)) {
		if (strncmp(line, "kernel.module=", 14))
			continue;
		if (sscanf(line + 14, "%63s 0x%llx 0x%llx %255s", name, &start,
			   &len, file) != 4)
			continue;	/* NAME unavailable: REASON */
		snprintf(path, sizeof(path), "/sys/module/%s", name);
		CHECK(!access(path, F_OK), "kernel.module %s is not loaded",
		      name);
		snprintf(path, sizeof(path), OUT "/%s", file);
		CHECK(fw_size(path) == (long long)len,
		      "%s: %lld bytes, kernel.module says %llu", path,
		      fw_size(path), len);
		f = fopen(path, "r");
		if (len >= sizeof(a) && f &&
		    fread(a, 1, sizeof(a), f) == sizeof(a)) {
			CHECK(!kcore_read(start, b, sizeof(b)) &&
			      !memcmp(a, b, sizeof(a)),
			      "%s differs from /proc/kcore at %#llx", path,
			      start);
			n++;
		}
		if (f)
			fclose(f);
	}
	fclose(sb);
	printf("PTT-INFO %d modules' code checked against /proc/kcore\n", n);
	check_module_ids();
	CHECK(n > 0 || access("/proc/kcore", R_OK),
	      "no module's code saved (pt_trace is loaded)");
}

int main(int argc, char **argv)
{
	char val[256], path[512], *av[16], modname[64], line[256];
	FILE *f;
	int rc;

	fw_child_modes(argc, argv);
	if (system("rm -rf " OUT " " OUT "-u"))
		fprintf(stderr, "cleanup failed\n");
	fw_args(av, (int)ARRAY_SIZE(av), "record", "-d", "1", "-o", OUT,
		"--", fw_self, "spin", "0.3", NULL);
	rc = fw_run(av, OUT ".err");
	fw_show(OUT ".err", "record: ");
	REQUIRE(rc == 0, "record exited %d", rc);
	CHECK(fw_grep(OUT ".err", "tasks:") &&
	      fw_grep(OUT ".err", "(follow_kernel)"),
	      "the summary names no task follow_kernel");

	CHECK(sb_key("kernel.kallsyms", val, sizeof(val)),
	      "no kernel.kallsyms in sideband.txt");
	snprintf(path, sizeof(path), OUT "/%s", val);
	CHECK(ksym(path, "_stext") && ksym(path, "_stext") ==
	      ksym("/proc/kallsyms", "_stext"),
	      "%s: _stext missing or not the kernel's", path);
	CHECK(sb_key("kernel.modules", val, sizeof(val)),
	      "no kernel.modules in sideband.txt");
	snprintf(path, sizeof(path), OUT "/%s", val);
	f = fopen("/proc/modules", "r");
	REQUIRE(f, "/proc/modules: %s", strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s", modname) == 1)
			CHECK(fw_grep(path, modname), "%s lacks module %s",
			      path, modname);
	fclose(f);
	if (sb_key("kernel.build_id", val, sizeof(val)))
		CHECK(in_notes("/sys/kernel/notes", val),
		      "kernel.build_id %s is not in /sys/kernel/notes", val);
	else
		CHECK(access("/sys/kernel/notes", R_OK),
		      "no kernel.build_id though /sys/kernel/notes is there");
	check_text();
	check_modules();

	/* User space only: nothing of the kernel. */
	fw_args(av, (int)ARRAY_SIZE(av), "record", "-u", "-d", "1", "-o",
		OUT "-u", "--", fw_self, "spin", "0.3", NULL);
	rc = fw_run(av, OUT ".err");
	REQUIRE(rc == 0, "record -u exited %d", rc);
	CHECK(!fw_grep(OUT "-u/sideband.txt", "kernel.text") &&
	      !fw_grep(OUT "-u/sideband.txt", "kernel.kallsyms"),
	      "record -u saved kernel data");
	if (!ptt_failures && system("rm -rf " OUT " " OUT "-u " OUT ".err"))
		fprintf(stderr, "cleanup failed\n");
	return ptt_done();
}
