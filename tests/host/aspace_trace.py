#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""For the decode-aspaces test: a recording (DIR/cpu0.pt, DIR/sideband.perf,
DIR/sideband.txt) of two processes whose code lies at the same address,
0x401000: 'proga' (pid 100, threads 100 and 101) and 'progb' (pid 200).
Each is exec'ed (COMM with the exec flag) and maps its program (MMAP2 at
the text's file offset); on CPU 0 the switch-in records say 100/100 runs
from TSC 1000, 200/200 from 2000, 100/101 from 3000, and 300/300 (a
child of 200, forked: progb's mappings without a record of its own) from
4000; the trace has one user stretch (TIP.PGE ... syscall, TIP.PGD) after
each, at TSC 1100, 2100, 3100 and 4100.  Writes DIR/want: the
instructions' addresses, from objdump of each program (not from the
records under test).  With 'buildid', progb's record carries a build-id
that is not the file's (the binary changed since the recording).

With 'pip' the trace has PIPs as a kernel trace would: CR3 0x1000 before
proga's first stretch, 0x2000 before progb's, and then 0x1000 again
before a third stretch at TSC 2200, which no switch record announces
(the records of 100/101 and 300 are left out): only the CR3 says it is
proga's.

With 'early' each run also has its switch-out record (at 1900, 2900,
3900) and each stretch's TSC is 50 before its switch-in record, as a
followed task's trace is: the driver enables tracing in the scheduler's
hook, before perf writes the switch-in record.

With 'exec' one process (pid 100) runs proga and execs progb in one run
(switch-in at 1000, exec record at 1500): the trace has proga's stretch
(a followed task's enable: TSC 950 and CBR, then TIP.PGE at 0x401000,
proga's start, which is progb's entry too) and then progb's, a TIP.PGE
at 0x401000 with no timing packet before it, as user-mode tracing gives
an exec.

With 'forkexec' pid 100 is a child that pid 50 (running proga) forked,
proga's copy with no exec of its own, and it execs progb (exec record at
1500) in its run from 1000: the trace has only progb's stretch, a
followed task's enable (TSC 950, CBR) and TIP.PGE at 0x401000, progb's
entry and proga's too.  proga cannot start there: a forked child goes
on after the fork, not at an entry point (it was decoded as proga).

With 'psb' each run also has its switch-out record, and each stretch
is a followed task's enable 50 before its switch-in record (TSC, CBR)
followed by a PSB+ whose TSC is 100 past that record, then the TIP.PGE:
the task waited in the kernel past a PSB period.  The stretch is the
run whose switch-in comes after the enable, not the one after the
PSB's time (the next run, another process's).

With 'bdw' the CPU has no configurable PSB (sideband caps.psb_periods
0x0) and sends PSB+ at every enable, stamped in the scheduler's hook
before perf writes the switch-out record of the task before: each run
but the first starts with PSB+ (TSC 20 before the previous run's
switch-out at 1900, 2900, 3900: 1880, 2880, 3880) and TIP.PGE.  Besides,
a periodic PSB+ at 1500 while proga (100/100) is in the kernel, then its
TIP.PGE: proga goes on.  record read the TSC 5000 after the CPU stopped
(tsc.end), after the last run's switch-in.

With 'bdwstop' the same, but the last PSB+ is a periodic one at 3500,
inside 100/101's run (3000 to 3900), and the trace stopped before 300's
switch-in at 4000 (the CPU went offline and record could not start it
again): DIR/cpu0.loss has a record at the end of the file from 3600
(when record last saw the trace running) to 5000, and tsc.end is still
5000.  The last stretch is 100/101's.

With 'bts' the recording is a Branch Trace Store one (DIR/cpu0.bts with
the driver's switch records, no cpu0.pt): pid 100 runs proga from its
switch-in at 1000, the idle task at 1200, 100 again at 1300, when it
execs progb (exec record at 1500: the data has a kernel branch, the
return to user mode at progb's entry 0x401000, then progb's branch),
the idle task at 1700 and 100, progb now, at 2000.  One branch each in
proga and progb (their last instruction back to their second).

With 'btsirq' the same, and proga's first run begins with a return to
user mode at 0x401000 (an interrupt taken at proga's first instruction,
which is progb's entry too): no exec, since the sideband's exec record
(1500) is not within that run (1000 to 1200).

With 'remap' one process (pid 100) runs proga, then maps progb's code
over it without an exec (MMAP2 at 1500, as ld.so maps a library that
dlopen() loads where a dlclose()d one was): its stretch at TSC 1100 is
proga's, the one at 1600 progb's.

Usage: aspace_trace.py DIR PROGA PROGB [buildid|pip|early|psb|bdw|bdwstop|exec|forkexec|bts|btsirq|remap]
"""
import re
import struct
import subprocess
import sys

from perf_sideband import (COMM, COMM_EXEC, FORK, MMAP2, MMAP_BUILD_ID, NONE,
                           SWITCH, SWITCH_OUT, header, rec, s8)
from pt_packets import MODE64, PGD0, PSB, PSBEND, pge, pip, tsc

d, proga, progb = sys.argv[1:4]
CBR = bytes([0x02, 0x03, 0x0d, 0x00])   # core:bus ratio 13, outside PSB+


def text_map(f):
    """(start, end, pgoff) of the executable PT_LOAD, page-aligned"""
    b = open(f, 'rb').read()
    phoff, = struct.unpack_from('<Q', b, 32)
    phentsize, phnum = struct.unpack_from('<HH', b, 54)
    for i in range(phnum):
        typ, flags, off, va, _, filesz = struct.unpack_from(
            '<IIQQQQ', b, phoff + i * phentsize)
        if typ == 1 and flags & 1:
            return (va & ~0xfff, va + filesz, off & ~0xfff)
    raise SystemExit('%s: no executable segment' % f)


def insns(f):
    out = subprocess.run(['objdump', '-d', f], capture_output=True,
                         text=True, check=True).stdout
    return [int(m.group(1), 16) for m in
            re.finditer(r'^\s*([0-9a-f]+):\t', out, re.M)]


def mmap2(pid, f, time):
    start, end, pgoff = text_map(f)
    body = struct.pack('<IIQQQIIQQII', pid, pid, start, end - start,
                       pgoff, 0, 0, 0, 0, 5, 2)
    return rec(MMAP2, 2, body + s8(f), time, NONE, (pid, pid))


def write_pt(out, pt, want, more=''):
    """the recording (sideband records out, cpu0's trace pt) and DIR/want,
    the addresses of the instructions want"""
    open(d + '/sideband.perf', 'wb').write(out)
    open(d + '/sideband.txt', 'w').write('pt-trace-sideband=1\ncpu=6/85/4\n' +
                                         more)
    open(d + '/cpu0.pt', 'wb').write(pt)
    open(d + '/want', 'w').write(''.join('%016x\n' % x for x in want))


if sys.argv[4:] == ['exec']:
    out = header()
    out += rec(COMM, COMM_EXEC, struct.pack('<II', 100, 100) + s8('proga'),
               10, NONE, (100, 100))
    out += mmap2(100, proga, 20)
    out += rec(SWITCH, 0, b'', 1000, 0, (100, 100))
    out += rec(COMM, COMM_EXEC, struct.pack('<II', 100, 100) + s8('progb'),
               1500, 0, (100, 100))
    out += mmap2(100, progb, 1510)
    pt = (PSB + PSBEND + MODE64 + tsc(950) + CBR + pge(0x401000) + PGD0 +
          pge(0x401000) + PGD0)
    write_pt(out, pt, insns(proga) + insns(progb))
    sys.exit(0)

if sys.argv[4:] == ['forkexec']:
    out = header()
    out += rec(COMM, COMM_EXEC, struct.pack('<II', 50, 50) + s8('proga'),
               10, NONE, (50, 50))
    out += mmap2(50, proga, 20)
    out += rec(FORK, 0, struct.pack('<IIIIQ', 100, 50, 100, 50, 30), 30,
               NONE, (100, 100))
    out += rec(SWITCH, 0, b'', 1000, 0, (100, 100))
    out += rec(COMM, COMM_EXEC, struct.pack('<II', 100, 100) + s8('progb'),
               1500, 0, (100, 100))
    out += mmap2(100, progb, 1510)
    pt = PSB + PSBEND + MODE64 + tsc(950) + CBR + pge(0x401000) + PGD0
    write_pt(out, pt, insns(progb))
    sys.exit(0)

if sys.argv[4:] == ['remap']:
    out = header()
    out += rec(COMM, COMM_EXEC, struct.pack('<II', 100, 100) + s8('proga'),
               10, NONE, (100, 100))
    out += mmap2(100, proga, 20)
    out += rec(SWITCH, 0, b'', 1000, 0, (100, 100))
    out += mmap2(100, progb, 1500)
    pt = (PSB + PSBEND + MODE64 + tsc(1100) + pge(0x401000) + PGD0 +
          tsc(1600) + pge(0x401000) + PGD0)
    write_pt(out, pt, insns(proga) + insns(progb))
    sys.exit(0)

if sys.argv[4:] in (['bts'], ['btsirq']):
    out = header()
    out += rec(COMM, COMM_EXEC, struct.pack('<II', 100, 100) + s8('proga'),
               10, NONE, (100, 100))
    out += mmap2(100, proga, 20)
    for t, who in ((1000, 100), (1200, 0), (1300, 100)):
        out += rec(SWITCH, 0, b'', t, 0, (who, who))
    out += rec(COMM, COMM_EXEC, struct.pack('<II', 100, 100) + s8('progb'),
               1500, 0, (100, 100))
    out += mmap2(100, progb, 1510)
    for t, who in ((1700, 0), (2000, 100)):
        out += rec(SWITCH, 0, b'', t, 0, (who, who))
    open(d + '/sideband.perf', 'wb').write(out)
    open(d + '/sideband.txt', 'w').write('pt-trace-sideband=1\npid=100\n')
    SW, FROM, K = 1 << 63, (1 << 64) - 1, 0xffffffff81000000
    a, b = insns(proga), insns(progb)
    irq = [(K + 0x80, 0x401000, 0)] if sys.argv[4] == 'btsirq' else []
    recs = [(FROM, 100 << 32 | 100, SW)] + irq + [(a[-1], a[1], 0),
            (FROM, 0, SW),
            (FROM, 100 << 32 | 100, SW), (a[-1], a[1], 0),
            (K, K + 0x40, 0), (K + 0x80, 0x401000, 0), (b[-1], b[1], 0),
            (FROM, 0, SW),
            (FROM, 100 << 32 | 100, SW), (b[-1], b[1], 0)]
    with open(d + '/cpu0.bts', 'wb') as f:
        for r in recs:
            f.write(struct.pack('<QQQ', *r))
    sys.exit(0)

bad_id = sys.argv[4:] == ['buildid']
with_pip = sys.argv[4:] == ['pip']
with_psb = sys.argv[4:] == ['psb']
bdw = sys.argv[4:] in (['bdw'], ['bdwstop'])
bdwstop = sys.argv[4:] == ['bdwstop']
early = sys.argv[4:] == ['early'] or with_psb or bdw
out = header()
for pid, name, f in ((100, 'proga', proga), (200, 'progb', progb)):
    start, end, pgoff = text_map(f)
    out += rec(COMM, COMM_EXEC, struct.pack('<II', pid, pid) + s8(name), 10,
               NONE, (pid, pid))
    if bad_id and pid == 200:
        body = struct.pack('<IIQQQB3x20sII', pid, pid, start, end - start,
                           pgoff, 20, b'\x5a' * 20, 5, 2)
        out += rec(MMAP2, 2 | MMAP_BUILD_ID, body + s8(f), 20, NONE,
                   (pid, pid))
    else:
        body = struct.pack('<IIQQQIIQQII', pid, pid, start, end - start,
                           pgoff, 0, 0, 0, 0, 5, 2)
        out += rec(MMAP2, 2, body + s8(f), 20, NONE, (pid, pid))
out += rec(COMM, 0, struct.pack('<II', 100, 101) + s8('proga-t'), 30, NONE,
           (100, 101))
out += rec(FORK, 0, struct.pack('<IIIIQ', 300, 200, 300, 200, 40), 40, NONE,
           (300, 300))
# the switch-ins, written out of order as two rings would give them
out += rec(SWITCH, 0, b'', 2000, 0, (200, 200))
out += rec(SWITCH, 0, b'', 1000, 0, (100, 100))
if not with_pip:
    out += rec(SWITCH, 0, b'', 3000, 0, (100, 101))
    out += rec(SWITCH, 0, b'', 4000, 0, (300, 300))
if early:
    for t, who in ((1900, (100, 100)), (2900, (200, 200)),
                   (3900, (100, 101))):
        out += rec(SWITCH, SWITCH_OUT, b'', t, 0, who)
pt = PSB + PSBEND + MODE64
a, b = insns(proga), insns(progb)
if with_pip:
    for t, cr3 in ((1100, 0x1000), (2100, 0x2000), (2200, 0x1000)):
        pt += tsc(t) + pip(cr3) + pge(0x401000) + PGD0
    want = a + b + a
elif bdw:
    for t in (950, 1500, 1880, 2880, 3500 if bdwstop else 3880):
        pt += PSB + tsc(t) + CBR + PSBEND + MODE64 + pge(0x401000) + PGD0
    want = a + a + b + a + (a if bdwstop else b)
    write_pt(out, pt, want, 'caps.psb_periods=0x0\ntsc.end=0 1 5000 1\n')
    if bdwstop:
        # as record writes it for a CPU still offline at the end
        open(d + '/cpu0.loss', 'w').write(
            'pt-trace-loss 1\ncpu 0\nloss 0 0 %d - 1 2 3600 5000 '
            'cpu_offline\nend 1 0\n' % len(pt))
    sys.exit(0)
elif with_psb:
    for t in (1000, 2000, 3000, 4000):
        pt += (tsc(t - 50) + CBR + PSB + tsc(t + 100) + CBR + PSBEND +
               MODE64 + pge(0x401000) + PGD0)
    want = a + b + a + b
else:
    for t in ((950, 1950, 2950, 3950) if early else (1100, 2100, 3100, 4100)):
        pt += tsc(t) + pge(0x401000) + PGD0
    want = a + b + a + b
write_pt(out, pt, want)
