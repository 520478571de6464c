#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""For tests/host/run's vmx-tsc-infer check: vmx_decode.py's host and two
guests, each guest with its own KVM TSC offset and ratio (two VMs), and
a host TSC packet after each visit, so that each guest's timestamps lie
between host ones: decode infers which recorded vCPU (sideband kvm.vcpu)
each VMCS is.  Writes DIR/cpu0.pt (guest-a.bin and guest-b.bin are
vmx_decode.py's).

  host TSC 1000; guest A (offset 2^40, ratio 1): TSC 2^40 + 2000,
  2^40 + 2600; host TSC 3000; guest B (offset 2^41, ratio 1.5): TSC
  2^41 + 3500 * 1.5; host TSC 4000.

Usage: vmx_tsc_trace.py DIR
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
         fup(0x401004) + pip(CR3, 0) + tip(0x401006) + tsc(3000) +
         vmcs(VMCS_B) + pip(CR3, 1) + tip(0x401000) +
         tsc((1 << 41) + 3500 * 3 // 2) +
         fup(0x401004) + pip(CR3, 0) + tip(0x401006) + tsc(4000) +
         PGD0)
open(d + '/cpu0.pt', 'wb').write(trace)
