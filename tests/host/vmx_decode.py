#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""For tests/host/run's decode-vmx check: writes into DIR vmx_trace_gen.py's
trace of vmx_decode.S's host code (at 0x401000) running two guests, with
nothing put in (DIR/vmx.pt), and the two guests' code as raw files
(guest-a.bin, guest-b.bin), which lie at the host's addresses, 0x401000,
as does everything with the same CR3: only the VMCS and PIP.NR tell host
and guests apart.

Usage: vmx_decode.py DIR
"""
import sys

from vmx_trace_gen import two_guests, write_guest_images

d = sys.argv[1]
open(d + '/vmx.pt', 'wb').write(two_guests())
write_guest_images(d)
