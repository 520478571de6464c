/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For export-perf-kernel (tests/host/export_perf.sh): a "vmlinux" of the
 * code kernel_trace.py saves as kernel_text.bin (nop, nop, swapgs,
 * sysretq, int3 padding), linked at another address than the recording's
 * (as KASLR moves the kernel), so that perf must relocate it by the
 * kernel MMAP record's _stext.
 */
	.text
	.globl	_stext, entry_test
_stext:
entry_test:
	nop
	nop
entry_test_swapgs:
	swapgs
	sysretq
	.fill	56, 1, 0xcc
