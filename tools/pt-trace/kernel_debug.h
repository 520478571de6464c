/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recorded kernel's debug info (kernel_debug.c): a vmlinux whose
 * build-id is the recording's kernel.build_id, from the places Debian's
 * and elfutils' kernel search look (the -dbg packages' build-id tree and
 * /usr/lib/debug/boot, a kernel build tree, /boot), so that kernel code
 * gets source lines.  The code's bytes stay the recording's (the running
 * kernel patched its alternatives): the vmlinux gives lines only.
 */
#ifndef PT_TRACE_KERNEL_DEBUG_H
#define PT_TRACE_KERNEL_DEBUG_H

#include <stddef.h>

/*
 * Find it: @build_id in hex, @release the kernel's (uname -r; may be
 * NULL), every path under @symfs ("" or NULL: /).  0 and its path in
 * @out, or -ENOENT; @where gets the places looked in (for a warning).
 */
int kdbg_find_vmlinux(const char *symfs, const char *build_id,
		      const char *release, char *out, size_t len,
		      char *where, size_t where_len);

/*
 * The .ko of module @name (as /proc/modules names it) whose build-id is
 * @build_id (hex; NULL: not recorded, any file of that name is taken),
 * under @symfs: the build-id tree, the -dbg packages' copy and the
 * installed file of the path modules.dep gives (module names match '-'
 * and '_' alike), DKMS's and make install's places, and with --symfs
 * @symfs/@name.ko.  0 and its path in @out; -ESTALE when only a file of
 * another build-id was found (its path in @out, for a warning); -ENOEXEC
 * when only a file elfutils cannot read was (a .ko.zst elfutils cannot
 * unpack: its path in @out); else -ENOENT.  Compressed files (.ko.xz)
 * are read as elfutils unpacks them, and where a place gives NAME.ko,
 * NAME.ko.xz, .zst and .gz are tried too.  @where gets the places looked
 * in.
 */
int kdbg_find_module(const char *symfs, const char *name, const char *build_id,
		     const char *release, char *out, size_t len,
		     char *where, size_t where_len);

#endif /* PT_TRACE_KERNEL_DEBUG_H */
