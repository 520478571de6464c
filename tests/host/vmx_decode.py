#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""For tests/host/run's decode-vmx check: writes into DIR a trace of the
host code of vmx_decode.S (at 0x401000) running two guests, and the two
guests' code as raw files (guest-a.bin, guest-b.bin), which lie at the
host's addresses, 0x401000, as does everything with the same CR3
0x12345000: only the VMCS and PIP.NR tell host and guests apart.

  PSB+ with VMCS(all ones: none loaded) and PIP(CR3, NR=0), TSC 1000
  host:    vmptrld (VMCS A), vmresume: PIP(CR3, NR=1), TIP(0x401000)
  guest A: TSC (guest: 2^40 + 2000), jz (TNT), TSC (2^40 + 2600), jz
           (TNT), VM exit: FUP(0x401004), PIP(CR3, NR=0), TIP(0x401006)
  host:    nop, jmp, vmptrld (VMCS B), vmresume: PIP(NR=1), TIP
  guest B: two 2-byte nops, VM exit: FUP(0x401004), PIP(NR=0), TIP
  host:    nop, jmp, vmptrld, vmresume: TIP.PGD() (tracing off)

Usage: vmx_decode.py DIR
"""
import sys

from pt_packets import (MODE64, PGD0, PSB, PSBEND, TNT1, fup, pge, pip, tip,
                        tsc, vmcs)

d = sys.argv[1]
CR3 = 0x12345000
VMCS_A = 0x0abcd000
VMCS_B = 0x0dcba000
VMCS_NONE = 0x000ffffffffff000

trace = (PSB + vmcs(VMCS_NONE) + pip(CR3, 0) + tsc(1000) + PSBEND + MODE64 +
         pge(0x401000) +
         vmcs(VMCS_A) + pip(CR3, 1) + tip(0x401000) +
         tsc((1 << 40) + 2000) + TNT1 + tsc((1 << 40) + 2600) + TNT1 +
         fup(0x401004) + pip(CR3, 0) + tip(0x401006) +
         vmcs(VMCS_B) + pip(CR3, 1) + tip(0x401000) +
         fup(0x401004) + pip(CR3, 0) + tip(0x401006) +
         PGD0)
open(d + '/vmx.pt', 'wb').write(trace)
open(d + '/guest-a.bin', 'wb').write(bytes([0x74, 0x00] * 2 + [0x90] * 4))
open(d + '/guest-b.bin', 'wb').write(bytes([0x66, 0x90] * 4))
