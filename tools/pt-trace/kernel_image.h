/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What decoding a kernel trace needs, saved by the recorder when OS
 * tracing is on (as perf record --kcore does): kallsyms, the module
 * list, the kernel text's and each module's bytes from /proc/kcore
 * (module.NAME.bin), and the kernel's
 * build-id, with sideband.txt keys naming them (Documentation/tools.rst).
 */
#ifndef PT_TRACE_KERNEL_IMAGE_H
#define PT_TRACE_KERNEL_IMAGE_H

#include <stdio.h>

#define PTT_KALLSYMS_FILE	"kallsyms"
#define PTT_MODULES_FILE	"modules"
#define PTT_KTEXT_FILE		"kernel_text.bin"

/* Save them into @dir, and a kernel.* line for each (or why not). */
void ptt_kernel_record(FILE *sb, const char *dir);

#endif /* PT_TRACE_KERNEL_IMAGE_H */
