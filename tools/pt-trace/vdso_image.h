/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The vdso, the kernel's shared object mapped into every process at
 * [vdso]: no file on disk holds it, so record saves its own copy (the
 * same image for every 64-bit process of one kernel) beside the trace,
 * and decode places that copy at the traced process's [vdso] address.
 */
#ifndef PT_TRACE_VDSO_IMAGE_H
#define PT_TRACE_VDSO_IMAGE_H

/* The file in the recording's directory; the sideband's vdso= names it. */
#define PTT_VDSO_FILE		"vdso.so"

#include <stdio.h>

/* Write this process's vdso to DIR/vdso.so: 0 or -errno. */
int ptt_vdso_save(const char *dir);

/* Save it and say so in the sideband: vdso=vdso.so, or why not. */
void ptt_vdso_record(FILE *sb, const char *dir);

#endif /* PT_TRACE_VDSO_IMAGE_H */
