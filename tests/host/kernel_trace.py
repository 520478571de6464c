#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""For the decode-kernel test: a recording of kernel code as pt-trace
record saves it with OS tracing on (Documentation/tools.rst, kernel.*):
DIR/kernel_text.bin (the text's bytes, loaded at 0xffffffff81000000),
DIR/module.ptmod.bin (module ptmod's, at 0xffffffffc0000000),
DIR/kallsyms (kernel and module symbols), the sideband.txt keys that
name them (and a module 'other' whose code was not saved), a
sideband.perf where task 500 'sys' is switched in on CPU 0, and
DIR/cpu0.pt: two kernel stretches, TIP.PGE at _stext, then nop, nop,
swapgs, sysretq and TIP.PGD (an OS-only trace leaving the kernel), and
the same at mod_fn: nop, nop, sysretq.

Usage: kernel_trace.py DIR
"""
import struct
import sys

from perf_sideband import COMM, COMM_EXEC, NONE, SWITCH, header, rec, s8
from pt_packets import MODE64, PGD0, PSB, PSBEND, pge, tsc

d = sys.argv[1]
BASE = 0xffffffff81000000
text = bytes([0x90, 0x90, 0x0f, 0x01, 0xf8, 0x48, 0x0f, 0x07]) + b'\xcc' * 56
open(d + '/kernel_text.bin', 'wb').write(text)
MOD = 0xffffffffc0000000
mod = bytes([0x90, 0x90, 0x48, 0x0f, 0x07]) + b'\xcc' * 27
open(d + '/module.ptmod.bin', 'wb').write(mod)
open(d + '/kallsyms', 'w').write(
    '%x T _stext\n%x T entry_test\n%x t entry_test_swapgs\n'
    '%x D some_data\nffffffffc0000000 t mod_fn\t[ptmod]\n'
    % (BASE, BASE, BASE + 2, BASE + 0x100))
open(d + '/sideband.txt', 'w').write(
    'pt-trace-sideband=1\ncpu=6/85/4\nkernel.kallsyms=kallsyms\n'
    'kernel.text=0x%x 0x%x kernel_text.bin\n'
    'kernel.module=ptmod 0x%x 0x%x module.ptmod.bin\n'
    'kernel.module=other unavailable: test\n'
    'kernel.module.build_id=ptmod 0123456789abcdef0123456789abcdef01234567\n'
    % (BASE, len(text), MOD, len(mod)))


out = header()
out += rec(COMM, COMM_EXEC, struct.pack('<II', 500, 500) + s8('sys'), 10,
           NONE, (500, 500))
out += rec(SWITCH, 0, b'', 1000, 0, (500, 500))
open(d + '/sideband.perf', 'wb').write(out)
pt = PSB + PSBEND + MODE64 + tsc(1100)
pt += pge(BASE) + PGD0
pt += pge(MOD) + PGD0
open(d + '/cpu0.pt', 'wb').write(pt)
