/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For decode-kmod-lines (tests/host/run): the .ko of kernel_trace.py's
 * module ptmod (nop, nop, sysretq at mod_fn), built with -g and linked
 * with ld -r as a module is.  Its .text comes after another executable
 * section, which the recording places elsewhere: decode must lay the
 * file out by the recorded section addresses, not one after another.
 */
	.section .text.unlikely, "ax"
cold_fn:
	.fill	16, 1, 0xcc

	.text
	.globl	mod_fn
mod_fn:
	nop
	nop
	sysretq
	.fill	27, 1, 0xcc
