/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel types the model's pure files use, for compiling them on the
 * host (tests/host/insn_objdump.c).  x86-64 sizes.
 */
#ifndef _PTT_HOST_SHIM_LINUX_TYPES_H
#define _PTT_HOST_SHIM_LINUX_TYPES_H

#include <stdbool.h>

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef signed char s8;
typedef short s16;
typedef int s32;
typedef long long s64;

#endif
