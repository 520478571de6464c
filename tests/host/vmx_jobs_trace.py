#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""For the decode-jobs-vmx test: a trace (DIR/vmx.pt) of vmx_decode.S's
host code running two guests in turn, each a loop at the host's address
0x401000 (DIR/guest-a.bin: dec, jnz; DIR/guest-b.bin: add, jnz), 300 KB:
runs of 2 to 40 KB of long TNTs in a guest, with a PSB+ every 4 KiB that
gives the context as a CPU in VMX non-root operation does (VMCS, PIP with
NR set, TSC, MODE.Exec, FUP at the loop's branch), so that decode
--jobs's 16 KiB segments start in guests and between them.

  PSB+ with VMCS(all ones: none loaded) and PIP(CR3, NR=0), TSC
  per run: host vmptrld, vmresume: VMCS, PIP(CR3, NR=1), TIP(0x401000);
           guest loop; VM exit at its branch: FUP, PIP(CR3, NR=0),
           TIP(0x401006); host nop, jmp
  host:    vmptrld, vmresume: TIP.PGD() (tracing off)

With 'novmcs' the PSB+ in guests has no VMCS packet (not what a CPU
writes): the guest is not known from the PSB+ alone, and decode --jobs
decodes the trace in one thread.  With 'nopip' two VM entries of three
have no PIP: decode warns for each of the first 10.  With 'tailexit'
the guest's loop ends (its branch not taken) right before every fourth
PSB+ in a guest: its code runs out of the guest's image there, where the
host's code is (a VM exit without PIP, decode infers, with a warning).

Usage: vmx_jobs_trace.py DIR [novmcs|nopip|tailexit]
"""
import sys

from pt_packets import (MODE64, PGD0, PSB, PSBEND, fup, pge, pip, tip, tsc,
                        vmcs)

d = sys.argv[1]
novmcs = sys.argv[2:] == ['novmcs']
nopip = sys.argv[2:] == ['nopip']
tailexit = sys.argv[2:] == ['tailexit']
CR3 = 0x12345000
GUESTS = ((0x0abcd000, 0x401002), (0x0dcba000, 0x401003))
VMCS_NONE = 0x000ffffffffff000
tnt = bytes([2, 0xa3]) + (1 << 48 | (1 << 47) - 1).to_bytes(7, 'little')[:6]
tnt0 = bytes([2, 0xa3]) + ((1 << 47) - 2).to_bytes(6, 'little')  # last: not taken
t = 1000
out = bytearray(PSB + vmcs(VMCS_NONE) + pip(CR3, 0) + tsc(t) + PSBEND +
                MODE64 + pge(0x401000))
since_psb = 0
npsb = 0
sizes = (2000, 40000, 9000, 23000, 3000, 31000, 17000, 5000, 12000)
r = 0
while len(out) < 300000:
    base, branch = GUESTS[r % 2]
    out += vmcs(base) + (b'' if nopip and r % 3 else pip(CR3, 1)) + tip(0x401000)
    end = len(out) + sizes[r % len(sizes)]
    while len(out) < end:
        if since_psb >= 4096:
            t += 7
            out += (PSB + (b'' if novmcs else vmcs(base)) + pip(CR3, 1) +
                    tsc(t) + MODE64 + fup(branch) + PSBEND)
            since_psb = 0
        last = since_psb + len(tnt) >= 4096
        out += tnt0 if tailexit and last and npsb % 4 == 3 else tnt
        npsb += last
        since_psb += len(tnt)
    out += fup(branch) + pip(CR3, 0) + tip(0x401006)
    r += 1
out += PGD0
open(d + '/vmx.pt', 'wb').write(out)
open(d + '/guest-a.bin', 'wb').write(bytes([0xff, 0xc9, 0x75, 0xfc]))
open(d + '/guest-b.bin', 'wb').write(bytes([0x83, 0xc0, 0x01, 0x75, 0xfb]))
