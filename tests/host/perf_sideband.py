# SPDX-License-Identifier: GPL-2.0
"""The host tests' writer of sideband.perf, in the format pt-trace record
saves (Documentation/tools.rst, sideband.perf): the file header, then
perf records with the sample_id trailer (pid, tid; time; cpu, reserved).
One writer, so that a change of the format is made in one place.
"""
import struct

# record types and misc bits (include/uapi/linux/perf_event.h)
COMM, EXIT, FORK, MMAP2, SWITCH = 3, 4, 7, 10, 14
COMM_EXEC, SWITCH_OUT, MMAP_BUILD_ID = 0x2000, 0x2000, 0x4000
NONE = 0xffffffff               # cpu of a record written with no CPU


def header(flags=1, clock=0, time_zero=0, time_mult=1, time_shift=0):
    """the file header: by default record times are TSC (time_zero valid,
    mult 1, shift 0) on perf's clock"""
    return b'PTTPERF\n' + struct.pack('<IIQIIQIHHQQ', 1, 64, 0x86, flags,
                                      clock, time_zero, time_mult,
                                      time_shift, 0, 0, 0)


def rec(typ, misc, body, t, cpu, who):
    """a record of type typ: body, then the trailer of task who (pid, tid)
    at time t on cpu"""
    body += struct.pack('<IIQII', who[0], who[1], t, cpu, 0)
    return struct.pack('<IHH', typ, misc, 8 + len(body)) + body


def s8(x):
    """a string as perf writes it: NUL-terminated, padded to 8 bytes"""
    b = x.encode() + b'\0'
    return b + b'\0' * (-len(b) % 8)
