// SPDX-License-Identifier: GPL-2.0
/*
 * A second, independent reader for tests/host/exact_enc_check.c's traces:
 * libipt's instruction decoder driven directly, as ptxed drives it, with
 * none of pt-trace decode's own logic (sideband, address spaces, output
 * formats) in the way.  Prints each instruction's address, one a line
 * (%016llx), like `pt-trace decode --format=ip`; exit 1 on any decode
 * error, 2 on bad input.
 *
 * usage: exact_ipt TRACE.pt ELFLIST
 *   ELFLIST: one FILE or FILE:BASE a line (exact_enc_check's OUT.elf);
 *   every PT_LOAD segment of FILE is mapped at its p_vaddr + BASE.
 */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <intel-pt.h>

/* Little-endian fields of an ELF64 header or program header. */
static unsigned long long le(const unsigned char *p, unsigned int n)
{
	unsigned long long v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* Map every executable PT_LOAD segment of file at its p_vaddr + base. */
static int add_elf(struct pt_image *image, const char *file,
		   unsigned long long base)
{
	unsigned char h[64], ph[56];
	unsigned long long phoff;
	unsigned int i, phnum, phentsize;
	int fd = open(file, O_RDONLY), n = 0;

	if (fd < 0 || pread(fd, h, sizeof(h), 0) != sizeof(h) ||
	    memcmp(h, ELFMAG, SELFMAG) || h[EI_CLASS] != ELFCLASS64) {
		fprintf(stderr, "%s: not an ELF64 file\n", file);
		return -1;
	}
	phoff = le(h + 32, 8);
	phentsize = le(h + 54, 2);
	phnum = le(h + 56, 2);
	for (i = 0; i < phnum; i++) {
		unsigned long long off, vaddr, filesz;

		if (pread(fd, ph, sizeof(ph), phoff + i * phentsize) !=
		    sizeof(ph))
			break;
		/* p_type, p_flags, p_offset, p_vaddr, p_filesz */
		if (le(ph, 4) != PT_LOAD || !(le(ph + 4, 4) & PF_X))
			continue;
		off = le(ph + 8, 8);
		vaddr = le(ph + 16, 8);
		filesz = le(ph + 32, 8);
		if (!filesz)
			continue;
		if (pt_image_add_file(image, file, off, filesz, NULL,
				      vaddr + base) < 0) {
			fprintf(stderr, "%s: cannot map a segment\n", file);
			close(fd);
			return -1;
		}
		n++;
	}
	close(fd);
	return n ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct pt_insn_decoder *dec;
	struct pt_config config;
	char line[4096];
	unsigned long errors = 0;
	struct stat st;
	unsigned char *buf;
	FILE *f;
	int status;

	if (argc != 3) {
		fprintf(stderr, "usage: exact_ipt TRACE.pt ELFLIST\n");
		return 2;
	}
	f = fopen(argv[1], "r");
	if (!f || fstat(fileno(f), &st) || !st.st_size)
		return 2;
	buf = malloc(st.st_size);
	if (!buf || fread(buf, 1, st.st_size, f) != (size_t)st.st_size)
		return 2;
	fclose(f);

	pt_config_init(&config);
	config.begin = buf;
	config.end = buf + st.st_size;
	dec = pt_insn_alloc_decoder(&config);
	if (!dec)
		return 2;

	f = fopen(argv[2], "r");
	if (!f)
		return 2;
	while (fgets(line, sizeof(line), f)) {
		char *colon;
		unsigned long long base = 0;

		line[strcspn(line, "\n")] = 0;
		colon = strrchr(line, ':');
		if (colon) {
			*colon = 0;
			base = strtoull(colon + 1, NULL, 0);
		}
		if (add_elf(pt_insn_get_image(dec), line, base))
			return 2;
	}
	fclose(f);

	for (;;) {
		status = pt_insn_sync_forward(dec);
		if (status == -pte_eos)
			break;
		if (status < 0) {
			fprintf(stderr, "sync: %s\n", pt_errstr(pt_errcode(status)));
			errors++;
			break;
		}
		for (;;) {
			struct pt_insn insn;

			while (status & pts_event_pending) {
				struct pt_event ev;

				status = pt_insn_event(dec, &ev, sizeof(ev));
				if (status < 0)
					break;
			}
			if (status < 0)
				break;
			status = pt_insn_next(dec, &insn, sizeof(insn));
			if (insn.iclass != ptic_error)
				printf("%016llx\n",
				       (unsigned long long)insn.ip);
			if (status < 0)
				break;
		}
		if (status == -pte_eos)
			break;
		fprintf(stderr, "%s\n", pt_errstr(pt_errcode(status)));
		errors++;
	}
	pt_insn_free_decoder(dec);
	return errors ? 1 : 0;
}
