#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""For the timeline tests: DIR/sideband.perf as the recorder writes it
(Documentation/tools.rst, sideband.perf) for a two-CPU recording of
skl-hello: process 4242 'hello', its thread 4243 'worker', 4242 switched
in on CPU 0 and 4243 on CPU 1 just before the trace's first TSC (record
times are TSC: perf clock, time_zero 0, mult 1, shift 0).

Usage: timeline_sideband.py DIR
"""
import struct
import sys

from perf_sideband import COMM, COMM_EXEC, NONE, SWITCH, header, rec, s8

PID = 4242
T = 0x2fa1088fac05e2            # skl-hello's first TSC packet

out = header()
out += rec(COMM, COMM_EXEC, struct.pack('<II', PID, PID) + s8('hello'), 0,
           NONE, (PID, PID))
out += rec(COMM, 0, struct.pack('<II', PID, PID + 1) + s8('worker'), 0, NONE,
           (PID, PID + 1))
out += rec(SWITCH, 0, b'', T - 1000, 0, (PID, PID))
out += rec(SWITCH, 0, b'', T - 1000, 1, (PID, PID + 1))
open(sys.argv[1] + '/sideband.perf', 'wb').write(out)
