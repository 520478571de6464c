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

d = sys.argv[1]
PSB = bytes([2, 0x82] * 8)
PSBEND = bytes([2, 0x23])
MODE64 = bytes([0x99, 0x01])
PGD0 = bytes([0x01])
TNT1 = bytes([0x06])
CR3 = 0x12345000
VMCS_A = 0x0abcd000
VMCS_B = 0x0dcba000
VMCS_NONE = 0x000ffffffffff000


def ip(kind, v):
    """an IP packet with IPBytes 110: the full 64-bit IP"""
    return bytes([6 << 5 | kind]) + v.to_bytes(8, 'little')


def pge(v):
    return ip(0x11, v)


def fup(v):
    return ip(0x1d, v)


def tip(v):
    return ip(0x0d, v)


def vmcs(base):
    return bytes([2, 0xc8]) + (base >> 12).to_bytes(5, 'little')


def pip(cr3, nr):
    return bytes([2, 0x43]) + ((cr3 >> 5) << 1 | nr).to_bytes(6, 'little')


def tsc(v):
    return bytes([0x19]) + v.to_bytes(7, 'little')


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
