#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""For the decode-jobs-switch test: a recording (DIR/cpu0.pt,
DIR/sideband.perf, DIR/sideband.txt) of three tasks taking turns on CPU 0
in decode_loop.S's loop (LOOP, the ELF file, mapped at 0x401000 in each
process): 'loopa' 100/100 and its thread 100/101, and 'loopb' 200/200,
as a followed program's trace with kernel PIPs is: at each switch the
driver's enable (TSC, CBR, PIP of the process's CR3, TIP.PGE at the loop)
10 TSC ticks before perf's switch-in record, the run, its TIP.PGD.  Runs
are 3 to 70 KB of long TNTs with a PSB+ every 4 KiB (TSC, PIP, MODE.Exec,
FUP at the loop's second instruction), so that decode --jobs's 16 KiB
segments start inside runs, near switches, and (a PSB+ right after an
enable, whose TSC is before the switch-in record) where the time alone
does not say whose code it is.

With MB (the decode benchmark, tests/bench/host/decode_bench.sh) the
runs go on, in the same pattern, until the trace has MB megabytes.
Without it (the test) each TNT is followed by 248 PADs: the same bytes,
PSBs and segments, but a 32nd of the instructions (the dense trace's
listings were 820 MB each, written and compared a dozen times).

Usage: jobs_trace.py DIR LOOP LOOP_ADDR [MB]
"""
import struct
import sys

from perf_sideband import COMM, COMM_EXEC, MMAP2, NONE, SWITCH, header, rec, s8
from pt_packets import MODE64, PGD0, PSB, PSBEND, fup, pge, pip, tsc

d, elf, loop = sys.argv[1], sys.argv[2], int(sys.argv[3], 16)
mb = float(sys.argv[4]) if len(sys.argv) > 4 else 0
tasks = ((100, 100, 'loopa', 0x1000), (200, 200, 'loopb', 0x2000),
         (100, 101, 'loopa', 0x1000))
sb = header()
for pid, name in ((100, 'loopa'), (200, 'loopb')):
    sb += rec(COMM, COMM_EXEC, struct.pack('<II', pid, pid) + s8(name), 10,
              NONE, (pid, pid))
    sb += rec(MMAP2, 2, struct.pack('<IIQQQIIQQII', pid, pid, 0x401000,
                                    0x1000, 0x1000, 0, 0, 0, 0, 5, 2) +
              s8(elf), 20, NONE, (pid, pid))
sb += rec(COMM, 0, struct.pack('<II', 100, 101) + s8('loopa'), 30, NONE,
          (100, 101))

cbr = bytes([2, 0x03, 24, 0])
pad = bytes(0 if mb else 248)
tnt = bytes([2, 0xa3]) + (1 << 48 | (1 << 47) - 1).to_bytes(7, 'little')[:6]
out = bytearray(PSB + PSBEND + MODE64)
t = 1000
since_psb = 0
sizes = (3000, 70000, 20000, 9000, 41000, 16500, 5000, 33000, 60000, 12000,
         25000, 4000, 50000, 18000, 7000, 66000)
switches = []
r = 0
while r < len(sizes) or len(out) < mb * 1e6:
    size = sizes[r % len(sizes)]
    pid, tid, name, cr3 = tasks[r % 3]
    t += 1000
    out += tsc(t) + cbr + pip(cr3) + pge(loop)
    switches.append((t + 10, pid, tid))
    end = len(out) + size
    # every fourth run: a PSB+ right after the enable, before the record
    early = r % 4 == 1
    while len(out) < end:
        if early or since_psb >= 4096:
            t += 2 if early else 7
            early = False
            out += PSB + tsc(t) + pip(cr3) + MODE64 + fup(loop + 3) + PSBEND
            since_psb = 0
        out += tnt + pad
        since_psb += len(tnt) + len(pad)
    out += fup(loop + 3) + PGD0
    t += 13
    r += 1
for when, pid, tid in switches:
    sb += rec(SWITCH, 0, b'', when, 0, (pid, tid))
open(d + '/sideband.perf', 'wb').write(sb)
open(d + '/sideband.txt', 'w').write('pt-trace-sideband=1\ncpu=6/85/4\n')
open(d + '/cpu0.pt', 'wb').write(out)
