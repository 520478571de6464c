# SPDX-License-Identifier: GPL-2.0
"""The trace of vmx_decode.S's host code (at 0x401000) running two guests
once each, shared by vmx_decode.py and vmx_tsc_trace.py: the two differ
only in the TSC packets put in at three moments, so each passes those.
Host and guests lie at the same addresses with one CR3 0x12345000: only
the VMCS and PIP.NR tell them apart.

  PSB+ with VMCS(all ones: none loaded) and PIP(CR3, NR=0), TSC 1000
  host:    vmptrld (VMCS A), vmresume: PIP(CR3, NR=1), TIP(0x401000)
  guest A: TSC (guest: 2^40 + 2000), jz (TNT), TSC (2^40 + 2600), jz
           (TNT), VM exit: FUP(0x401004), PIP(CR3, NR=0), TIP(0x401006)
  [after_a]
  host:    nop, jmp, vmptrld (VMCS B), vmresume: PIP(NR=1), TIP
  guest B: [in_b] two 2-byte nops, VM exit: FUP(0x401004), PIP(NR=0), TIP
  [after_b]
  host:    nop, jmp, vmptrld, vmresume: TIP.PGD() (tracing off)
"""
from pt_packets import (MODE64, PGD0, PSB, PSBEND, TNT1, fup, pge, pip, tip,
                        tsc, vmcs)

CR3 = 0x12345000
VMCS_A = 0x0abcd000
VMCS_B = 0x0dcba000
VMCS_NONE = 0x000ffffffffff000


def two_guests(after_a=b'', in_b=b'', after_b=b''):
    """The trace, with the packets after_a (in the host after guest A's
    VM exit), in_b (in guest B before its exit) and after_b (in the host
    after guest B's exit) put in."""
    return (PSB + vmcs(VMCS_NONE) + pip(CR3, 0) + tsc(1000) + PSBEND +
            MODE64 + pge(0x401000) +
            vmcs(VMCS_A) + pip(CR3, 1) + tip(0x401000) +
            tsc((1 << 40) + 2000) + TNT1 + tsc((1 << 40) + 2600) + TNT1 +
            fup(0x401004) + pip(CR3, 0) + tip(0x401006) + after_a +
            vmcs(VMCS_B) + pip(CR3, 1) + tip(0x401000) + in_b +
            fup(0x401004) + pip(CR3, 0) + tip(0x401006) + after_b +
            PGD0)


def write_guest_images(d):
    """The guests' code as raw files at 0x401000: guest A two jz with
    4 nops after, guest B four 2-byte nops."""
    open(d + '/guest-a.bin', 'wb').write(bytes([0x74, 0x00] * 2 + [0x90] * 4))
    open(d + '/guest-b.bin', 'wb').write(bytes([0x66, 0x90] * 4))
