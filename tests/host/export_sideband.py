#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""For export_perf.sh: DIR/sideband.perf as the recorder writes it (see
Documentation/tools.rst, sideband.perf), for decode-maps' trace: the
process 4321 (its comm and the maps of DIR/sideband.txt), its thread 4322
(fork) and that thread switched in on CPU 0, whose trace it is then.

Usage: export_sideband.py DIR
"""
import struct, sys
d = sys.argv[1]
pid, tid = 4321, 4322
maps = [l.split('=', 1)[1].split(None, 3) for l in open(d + '/sideband.txt') if l.startswith('map=')]
def rec(typ, misc, body, t, cpu, who=(pid, pid)):
    body += struct.pack('<IIQII', who[0], who[1], t, cpu, 0)
    return struct.pack('<IHH', typ, misc, 8 + len(body)) + body
def s8(x):
    b = x.encode() + b'\0'
    return b + b'\0' * (-len(b) % 8)
NONE = 0xffffffff
out = b'PTTPERF\n' + struct.pack('<IIQIIQIHHQQ', 1, 64, 0x86, 0, 1, 0, 0, 0, 0, 0, 0)
out += rec(3, 0x2000, struct.pack('<II', pid, pid) + s8('map_probe'), 0, NONE)
for start, end, pgoff, path in maps:
    start, end, pgoff = int(start, 16), int(end, 16), int(pgoff, 16)
    body = struct.pack('<IIQQQIIQQII', pid, pid, start, end - start, pgoff,
                       0, 0, 0, 0, 5, 2) + s8(path.strip())
    out += rec(10, 2, body, 0, NONE)
out += rec(7, 0, struct.pack('<IIIIQ', pid, pid, tid, pid, 500), 500, 1, (pid, tid))
out += rec(14, 0, b'', 1000, 0, (pid, tid))         # 4322 in on CPU 0
open(d + '/sideband.perf', 'wb').write(out)
