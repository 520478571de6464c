#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""For tests/host/run's decode-ptxed-* checks: writes PT traces of the
code of decode_cases.S (linked at 0x401000: xor; jz +0; nop; nop; jmp .
at 0x401006; call 0x401000 at 0x401008; at 0x40100d a loop nop; call +0;
nop; jmp 0x40100d; at 0x401016 lea 0x401016, %rax; jmp *%rax; nothing
mapped after it) into
DIR, each for one rule of ptxed's decode
loop that decode must follow:

  eos.pt     the trace ends after the jz's TNT: two instructions, then
             "[end of trace]" (libipt could walk on through the nops into
             unmapped memory: a false "no memory mapped");
  nomap.pt   tracing enabled at 0x500000, where nothing is mapped: the
             error names 0x500000, no instruction is printed;
  resync.pt  a PSB+ with a TNT inside (a sync error), then a good PSB+:
             the decode goes on there;
  spin.pt    tracing enabled at the jmp to itself, then a PSB+ whose FUP
             is elsewhere (as when the image holds the wrong code):
             libipt would walk the loop for ever, waiting to reach that
             IP; decode reports it within 256 Ki instructions;
  spincall.pt as spin.pt, its loop four instructions with a direct call
             (0x40100d): found on the loop's second pass;
  ind.pt     tracing enabled at 0x401016, eight TIPs to it, then disabled
             at the jmp (FUP+TIP.PGD): a loop that reads trace, nine
             passes listed, no error;
  spinsw/    spin.pt's loop in a recording (cpu0.pt, sideband.perf) of
             task 100 whose next switch-in record is still to come at
             the loop: decode reports it as soon as an IP comes again,
             as without the records;
  tsx.pt     a PSB+ in a transaction (MODE.TSX InTX), the commit at
             0x401004 (MODE.TSX+FUP): the two instructions before it
             are speculative, "? " before the address as ptxed marks
             them, then "[committed]" and the nop unmarked;
  skl014.pt  tracing enabled at the call at 0x401008, then a TIP.PGD
             without IP: on a CPU with erratum SKL014 and a filter range
             that ends before the call's target, the disable is at the
             call (libipt needs the range to know it);
  events.pt  cbr, mnt, an interrupt (FUP+TIP) with a paging event bound
             to it (FUP+PIP+TIP), an async disable (FUP+TIP.PGD): each
             event by its name.

  tick.pt    a TSC between the jz and its TNT: with --event:tick libipt
             reports a tick at the next instruction, with --event:time
             each event carries its TSC, as ptxed prints them; --stat
             ends with ptxed's "insn: 3.".

and for decode-errata and dump-errata (the workarounds of CPUs libipt
2.0.5 does not know, from tools/pt-trace/cpu_errata.c):

  apl11.pt   an OVF followed by a TIP.PGD (erratum APL11): with the
             workaround the decode goes on at the next TIP.PGE, without
             it the TIP.PGD is an error;
  skd007.pt  an OVF that starts with 0xf7 (erratum SKD007): two CYCs
             without the workaround, one OVF with it;
  ovftime.pt timing packets (TSC, TMA, MTC with CYCs) around an OVF:
             dump --time starts calibrating again after it (CYC adds no
             time until two MTCs), --keep-tcal-on-ovf keeps the ratio.

Usage: decode_cases.py DIR
"""
import os
import struct
import sys

from perf_sideband import COMM, COMM_EXEC, MMAP2, NONE, SWITCH, header, rec, s8
from pt_packets import MODE64, PGD0, PSB, PSBEND, TNT1, fup, pge, pip, tip, tsc

d = sys.argv[1]
CBR = bytes([2, 0x03, 0x21, 0])
TSX_IN, TSX_COMMIT = bytes([0x99, 0x21]), bytes([0x99, 0x20])
MNT = bytes([2, 0xc3, 0x88]) + (0x1122334455667788).to_bytes(8, 'little')
PIP = pip(0x12345000)
OVF = bytes([2, 0xf3])
TMA = bytes([2, 0x73, 0x10, 0, 0, 0x40, 0])     # CTC 0x10, FC 0x40
CYC80 = bytes([0x07, 0x08])                     # CYC of 0x80 cycles


def MTC(ctc):
    return bytes([0x59, ctc])



start = PSB + PSBEND + MODE64
cases = {
    'eos': start + pge(0x401000) + TNT1,
    'nomap': start + pge(0x500000) + TNT1,
    'resync': PSB + TNT1 + PSBEND + start + pge(0x401000) + TNT1 +
    fup(0x401005) + PGD0,
    'spin': start + pge(0x401006) + bytes(64) + PSB + MODE64 +
    fup(0x401000) + PSBEND + TNT1 + fup(0x401005) + PGD0,
    'spincall': start + pge(0x40100d) + bytes(64) + PSB + MODE64 +
    fup(0x401000) + PSBEND + TNT1 + fup(0x401005) + PGD0,
    'ind': start + pge(0x401016) + tip(0x401016) * 8 + fup(0x40101d) +
    PGD0,
    'tsx': PSB + MODE64 + TSX_IN + fup(0x401000) + PSBEND + TNT1 +
    TSX_COMMIT + fup(0x401004) + fup(0x401005) + PGD0,
    'skl014': start + pge(0x401008) + PGD0,
    'tick': PSB + tsc(0x1000) + PSBEND + MODE64 + pge(0x401000) +
    tsc(0x2000) + TNT1 + fup(0x401005) + PGD0,
    'events': start + pge(0x401000) + CBR + MNT + TNT1 + fup(0x401004) +
    PIP + tip(0x401000) + TNT1 + fup(0x401005) + PGD0,
    'apl11': start + pge(0x401000) + TNT1 + OVF + PGD0 + pge(0x401004) +
    fup(0x401005) + PGD0,
    'skd007': start + fup(0x401000) + bytes([0xf7]) + OVF + bytes(1) +
    fup(0x401004) + PGD0,
    'ovftime': PSB + tsc(0x1000) + TMA + PSBEND + MTC(2) + CYC80 + MTC(3) +
    CYC80 + MTC(4) + CYC80 + OVF + CYC80 + MTC(5) + CYC80 + MTC(6) + CYC80,
}
for name, data in cases.items():
    open('%s/%s.pt' % (d, name), 'wb').write(data)

# spinsw/: task 100 runs from TSC 900, the loop's enable at 1000, the
# next switch-in (thread 101) at 9000: after the loop's time.
os.makedirs(d + '/spinsw', exist_ok=True)
sb = header()
sb += rec(COMM, COMM_EXEC, struct.pack('<II', 100, 100) + s8('spin'), 10,
          NONE, (100, 100))
sb += rec(MMAP2, 2, struct.pack('<IIQQQIIQQII', 100, 100, 0x401000, 0x1000,
                                0x1000, 0, 0, 0, 0, 5, 2) +
          s8(os.path.abspath(d + '/code')), 20, NONE, (100, 100))
for when, tid in ((900, 100), (9000, 101)):
    sb += rec(SWITCH, 0, b'', when, 0, (100, tid))
open(d + '/spinsw/sideband.perf', 'wb').write(sb)
open(d + '/spinsw/sideband.txt', 'w').write('pt-trace-sideband=1\ncpu=6/85/4\n')
open(d + '/spinsw/cpu0.pt', 'wb').write(
    start + tsc(1000) + pge(0x401006) + bytes(64) + PSB + MODE64 +
    tsc(2000) + fup(0x401000) + PSBEND + TNT1 + fup(0x401005) + PGD0)
