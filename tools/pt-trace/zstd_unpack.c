// SPDX-License-Identifier: GPL-2.0
/*
 * zstd-compressed files, unpacked with libzstd.  elfutils unpacks gzip,
 * bzip2 and xz itself, but zstd only from 0.189 when built with it, and
 * Debian bookworm ships 0.188: kernels whose modules are NAME.ko.zst
 * (Ubuntu's, Fedora's, Arch's; CONFIG_MODULE_COMPRESS_ZSTD) would give
 * no source lines for module code.  The caller hands the bytes to libelf
 * (elf_memory()).
 *
 * libzstd.so.1 is opened when the first .ko.zst is met, not linked: only
 * those machines need it, and they have it (their kmod reads the same
 * files with it).  Its streaming API below is zstd's stable one (zstd.h,
 * "Streaming decompression"), named here in this tree's style.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "zstd_unpack.h"

#define ZU_MAX		(1024ULL * 1024 * 1024)	/* no module is this big */
#define ZU_CHUNK	(64u << 10)

/* ZSTD_inBuffer and ZSTD_outBuffer, member for member */
struct zu_in {
	const void *src;
	size_t size, pos;
};

struct zu_out {
	void *dst;
	size_t size, pos;
};

static struct {
	void *(*create)(void);
	size_t (*init)(void *ds);
	size_t (*stream)(void *ds, struct zu_out *out, struct zu_in *in);
	unsigned int (*is_error)(size_t ret);
	size_t (*free)(void *ds);
} zu;

/* libzstd's functions, once: 0 or -ELIBACC (the library is not there) */
static int zu_load(void)
{
	static int loaded;	/* 1: yes, -1: no */
	void *h;

	if (loaded)
		return loaded > 0 ? 0 : -ELIBACC;
	loaded = -1;
	h = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return -ELIBACC;
	*(void **)&zu.create = dlsym(h, "ZSTD_createDStream");
	*(void **)&zu.init = dlsym(h, "ZSTD_initDStream");
	*(void **)&zu.stream = dlsym(h, "ZSTD_decompressStream");
	*(void **)&zu.is_error = dlsym(h, "ZSTD_isError");
	*(void **)&zu.free = dlsym(h, "ZSTD_freeDStream");
	if (!zu.create || !zu.init || !zu.stream || !zu.is_error || !zu.free)
		return -ELIBACC;	/* the handle stays: harmless */
	loaded = 1;
	return 0;
}

/* Room for ZU_CHUNK more bytes at *out beyond @got: 0 or -errno. */
static int zu_grow(unsigned char **out, size_t *cap, size_t got)
{
	size_t want = *cap ? *cap * 2 : 4 * (size_t)ZU_CHUNK;
	unsigned char *p;

	if (*cap - got >= ZU_CHUNK)
		return 0;
	if (want > ZU_MAX)
		return -EFBIG;
	p = realloc(*out, want);
	if (!p)
		return -ENOMEM;
	*out = p;
	*cap = want;
	return 0;
}

int zstd_unpack(int fd, void **buf, size_t *len)
{
	static const unsigned char magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };
	unsigned char in[ZU_CHUNK], head[4];
	struct zu_in ib = { in, 0, 0 };
	size_t cap = 0, got = 0, ret = 1;
	unsigned char *out = NULL;
	bool full = false;	/* the last call filled its output */
	void *ds;
	off_t at = 0;
	int err;

	if (pread(fd, head, sizeof(head), 0) != (ssize_t)sizeof(head) ||
	    memcmp(head, magic, sizeof(magic)))
		return -ENOEXEC;
	err = zu_load();
	if (err)
		return err;
	ds = zu.create();
	if (!ds || zu.is_error(zu.init(ds))) {
		if (ds)
			zu.free(ds);
		return -ENOMEM;
	}
	/* to the end of the file, where the last frame must have ended */
	for (;;) {
		struct zu_out ob;

		/* input is read once libzstd holds no unflushed output */
		if (ib.pos == ib.size && !full) {
			ssize_t n = pread(fd, in, sizeof(in), at);

			if (n <= 0) {
				err = n < 0 ? -errno : ret ? -ENOEXEC : 0;
				break;
			}
			at += n;
			ib.size = (size_t)n;
			ib.pos = 0;
		}
		err = zu_grow(&out, &cap, got);
		if (err)
			break;
		ob.dst = out + got;
		ob.size = cap - got;
		ob.pos = 0;
		ret = zu.stream(ds, &ob, &ib);
		if (zu.is_error(ret)) {
			err = -ENOEXEC;
			break;
		}
		got += ob.pos;
		full = ob.pos == ob.size;
	}
	zu.free(ds);
	if (err) {
		free(out);
		return err;
	}
	*buf = out;
	*len = got;
	return 0;
}
