# SPDX-License-Identifier: GPL-2.0
"""The host tests' builder of PT packets (Intel SDM vol. 3, 33.4.2), for
the scripts that write small traces by hand.  IP packets always carry
the full 64-bit IP (IPBytes 110), so no packet depends on the last IP.
"""

PSB = bytes([2, 0x82] * 8)
PSBEND = bytes([2, 0x23])
MODE64 = bytes([0x99, 0x01])    # MODE.Exec: 64-bit code
TNT1 = bytes([0x06])            # short TNT: one taken branch
PGD0 = bytes([0x01])            # TIP.PGD with the IP suppressed

TIP_PGD, TIP, TIP_PGE, FUP = 0x01, 0x0d, 0x11, 0x1d


def ip(kind, v):
    """an IP packet of kind (TIP, TIP_PGE, TIP_PGD, FUP) with IPBytes 110:
    the full 64-bit IP"""
    return bytes([6 << 5 | kind]) + v.to_bytes(8, 'little')


def pge(v):
    return ip(TIP_PGE, v)


def pgd(v):
    return ip(TIP_PGD, v)


def fup(v):
    return ip(FUP, v)


def tip(v):
    return ip(TIP, v)


def tsc(v):
    return bytes([0x19]) + v.to_bytes(7, 'little')


def pip(cr3, nr=0):
    """PIP: CR3[51:5] in bits 63:1 of the 6-byte payload, NR in bit 0"""
    return bytes([2, 0x43]) + ((cr3 >> 5) << 1 | nr).to_bytes(6, 'little')


def vmcs(base):
    """VMCS: the VMCS pointer's bits 51:12"""
    return bytes([2, 0xc8]) + (base >> 12).to_bytes(5, 'little')
