#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""For tests/host/run's vmx-tsc-infer check: vmx_decode.py's host and two
guests, each guest with its own KVM TSC offset and ratio (two VMs), and
a host TSC packet after each visit (vmx_trace_gen.py's trace with those
put in), so that each guest's timestamps lie between host ones: decode
infers which recorded vCPU (sideband kvm.vcpu) each VMCS is.  Writes DIR/cpu0.pt (guest-a.bin and guest-b.bin are
vmx_decode.py's).

  host TSC 1000; guest A (offset 2^40, ratio 1): TSC 2^40 + 2000,
  2^40 + 2600; host TSC 3000; guest B (offset 2^41, ratio 1.5): TSC
  2^41 + 3500 * 1.5; host TSC 4000.

Usage: vmx_tsc_trace.py DIR
"""
import sys

from pt_packets import tsc
from vmx_trace_gen import two_guests

d = sys.argv[1]
open(d + '/cpu0.pt', 'wb').write(two_guests(
    after_a=tsc(3000), in_b=tsc((1 << 41) + 3500 * 3 // 2), after_b=tsc(4000)))
