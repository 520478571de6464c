#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""For the decode-jobs-cyc test: a cycle-accurate recording (DIR/cpu0.pt,
DIR/sideband.txt with CYCEn, MTCEn and TSCEn in ctl) of decode_loop.S's
loop (LOOP, its address), laid out as decode-jobs's trace: long TNTs, a
PSB+ every 4 KiB (TSC, TMA, CBR, MODE.Exec, FUP at the loop's second
instruction), so that decode --jobs's 16 KiB segments start at PSBs.

Each TNT has a CYC before it, and every fourth an MTC after it (MTC
period 8 CTC ticks, mtc_freq 3; TSC = 100 x CTC: cpuid15 1/100).  The
cycles per MTC period change from period to period, so libipt's
calibration (its FCR, replaced at each MTC that had cycles since the one
before) differs from period to period: a decoder that synchronises at a
PSB has no calibration until its second MTC, one reading on through that
PSB keeps the one from before it.  Their times (--tsc) differ in the
first MTC periods after the PSB.  A TSC outside PSB+ is never sent.

With BYTES the trace has that size (default 160000); with PAD, that
many PADs after each TNT (default 100: fewer instructions for the same
bytes; 0 for a dense trace to time).  VARIANTS, comma-separated, change
how libipt calibrates:
  nocbr  no CBR in the PSB+s: the ratio comes from MTCs only (with a
         CBR and nom_freq each PSB+ sets it)
  gaps   every fifth MTC period has no CYC: the next MTC's calibration
         spans two periods
  nomtc  no MTC (nor TMA; MTCEn off): the ratio comes from two PSB+
         TSCs and the cycles between (or each PSB+'s CBR)
  bad    twice a TIP where the loop's branch wants a TNT bit, amid a
         PSB period: an error, and libipt searches for the next PSB
  badtail  the same right before each PSB in the trace's middle fifth:
         a segment may end in the error (the next one's decoder does
         not read on into it, libipt's calibration starts again)
  ovf    an OVF and its FUP right before each PSB in the trace's middle
         fifth: libipt's calibration starts again there (2.0's query
         decoder resets all but the time), the loop goes on
  skl    a Skylake (6/78) in the sideband: libipt checks the first MTC
         after each PSB for erratum SKL168 (a CYC lost before the PSB),
         and every tenth PSB comes an MTC period late (an MTC lost)

Usage: jobs_cyc_trace.py DIR LOOP [BYTES [PAD [VARIANTS]]]
"""
import sys

from pt_packets import MODE64, PSB, PSBEND, fup, pge, tip, tsc

d, loop = sys.argv[1], int(sys.argv[2], 16)
size = int(sys.argv[3]) if len(sys.argv) > 3 else 160000
npad = int(sys.argv[4]) if len(sys.argv) > 4 else 100
var = sys.argv[5].split(',') if len(sys.argv) > 5 and sys.argv[5] else []
for v in var:
    if v not in ('nocbr', 'gaps', 'nomtc', 'bad', 'badtail', 'ovf', 'skl'):
        sys.exit('jobs_cyc_trace.py: unknown variant ' + v)


def cyc(v):
    """CYC: 5 bits in the header byte, then 7 a byte"""
    b = bytearray([(v & 0x1f) << 3 | 3 | (4 if v >> 5 else 0)])
    v >>= 5
    while v:
        b.append((v & 0x7f) << 1 | (1 if v >> 7 else 0))
        v >>= 7
    return bytes(b)


def mtc(ctc):
    return bytes([0x59, (ctc >> 3) & 0xff])


def tma(ctc, fc):
    return bytes([2, 0x73, ctc & 0xff, (ctc >> 8) & 0xff, 0, fc & 0xff,
                  fc >> 8 & 1])


cbr = b'' if 'nocbr' in var else bytes([2, 0x03, 24, 0])
tnt = bytes([2, 0xa3]) + (1 << 48 | (1 << 47) - 1).to_bytes(7, 'little')[:6]
pad = bytes(npad)
base = 1000000
ctc = 8 * 40            # at an MTC's boundary


def head():
    # the PSB right after an MTC: 10 TSC ticks into the period
    return (PSB + tsc(base + 100 * ctc + 10) + tmap() + cbr + MODE64 +
            fup(loop + 3) + PSBEND)


def tmap():
    return b'' if 'nomtc' in var else tma(ctc, 10)


out = bytearray(PSB + tsc(base + 100 * ctc + 10) + tmap() + cbr +
                PSBEND + MODE64 + pge(loop))
since_psb = 0
p = 0
bad = [size * 2 // 5, size * 7 // 10] if 'bad' in var else []
npsb = 0
lose = False
while len(out) < size:
    cycles = 1500 + 137 * (p * 7 % 13)  # this MTC period's
    if 'gaps' in var and p % 5 == 4:
        cycles = 0
    for k in range(4):
        n = cycles // 4 + (cycles % 4 if k == 3 else 0)
        out += (cyc(n) if n else b'') + tnt + pad
    ctc += 16 if lose else 8   # skl: an MTC lost after every tenth PSB
    lose = False
    if 'nomtc' not in var:
        out += mtc(ctc)
    p += 1
    since_psb += 4 * (len(tnt) + len(pad) + 3) + 2
    if bad and len(out) >= bad[0] and 1000 < since_psb < 3000:
        out += tip(loop)
        bad.pop(0)
    if since_psb >= 4096:
        if 'badtail' in var and size * 2 // 5 < len(out) < size * 3 // 5:
            out += tip(loop)
        if 'ovf' in var and size * 2 // 5 < len(out) < size * 3 // 5:
            out += bytes([2, 0xf3]) + fup(loop + 3)
        out += head()
        since_psb = 0
        npsb += 1
        lose = 'skl' in var and npsb % 10 == 0
open(d + '/cpu0.pt', 'wb').write(out)
# ctl: TraceEn, CYCEn, User, MTCEn, TSCEn, BranchEn
open(d + '/sideband.txt', 'w').write(
    'pt-trace-sideband=1\nctl=0x%x\nmtc_freq=3\ncpuid15.eax=1\n'
    'cpuid15.ebx=100\nnom_freq=24\n%s' %
    (0x240b if 'nomtc' in var else 0x260b,
     'cpu=6/78/3\n' if 'skl' in var else ''))
