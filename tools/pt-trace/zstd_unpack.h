/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PTT_ZSTD_UNPACK_H
#define PTT_ZSTD_UNPACK_H

#include <stddef.h>

/*
 * The file open on @fd unpacked into memory when it is zstd-compressed
 * (a kernel's NAME.ko.zst): 0 with *buf (malloc'd, the caller frees it)
 * and *len, -ENOEXEC when the file is not zstd (or not whole), -ENOMEM,
 * -EFBIG beyond 1 GiB, -ELIBACC without libzstd.so.1, or another
 * -errno.  Reads from offset 0 with pread(), so @fd's position is left
 * alone.
 */
int zstd_unpack(int fd, void **buf, size_t *len);

#endif
