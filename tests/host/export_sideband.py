#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""For export_perf.sh: DIR/sideband.perf as the recorder writes it (see
Documentation/tools.rst, sideband.perf), for decode-maps' trace: the
process 4321 (its comm and the maps of DIR/sideband.txt), its thread 4322
(fork) and that thread switched in on CPU 0, whose trace it is then.
A mapping of a PATH given as PATH=HEX carries that build-id
(PERF_RECORD_MISC_MMAP_BUILD_ID, as Linux 5.12 and later write it).

Usage: export_sideband.py DIR [PATH=HEX]...
"""
import struct
import sys

from perf_sideband import (COMM, COMM_EXEC, FORK, MMAP2, MMAP_BUILD_ID, NONE,
                           SWITCH, header, rec, s8)

d = sys.argv[1]
ids = dict(a.split('=', 1) for a in sys.argv[2:])
pid, tid = 4321, 4322
maps = [ln.split('=', 1)[1].split(None, 3) for ln in open(d + '/sideband.txt')
        if ln.startswith('map=')]
# times on CLOCK_MONOTONIC, no time_zero: not TSC
out = header(flags=0, clock=1, time_mult=0)
out += rec(COMM, COMM_EXEC, struct.pack('<II', pid, pid) + s8('map_probe'), 0,
           NONE, (pid, pid))
for start, end, pgoff, path in maps:
    start, end, pgoff = int(start, 16), int(end, 16), int(pgoff, 16)
    path = path.strip()
    body = struct.pack('<IIQQQ', pid, pid, start, end - start, pgoff)
    misc = 2
    if path in ids:
        bid = bytes.fromhex(ids[path])
        body += struct.pack('<BBH', len(bid), 0, 0) + bid.ljust(20, b'\0')
        misc |= MMAP_BUILD_ID
    else:
        body += struct.pack('<IIQQ', 0, 0, 0, 0)
    body += struct.pack('<II', 5, 2) + s8(path)
    out += rec(MMAP2, misc, body, 0, NONE, (pid, pid))
out += rec(FORK, 0, struct.pack('<IIIIQ', pid, pid, tid, pid, 500), 500, 1,
           (pid, tid))
out += rec(SWITCH, 0, b'', 1000, 0, (pid, tid))     # 4322 in on CPU 0
open(d + '/sideband.perf', 'wb').write(out)
