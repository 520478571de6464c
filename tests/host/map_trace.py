#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""For tests/host/run's decode-maps check: from map_probe's output (DIR/addrs,
DIR/sideband.txt, DIR/vdso.so) write DIR/cpu0.pt, a PT trace of three user
stretches at their run-time addresses, and DIR/want, the instructions it
holds (from objdump and nm, by symbol: not from the map= lines under test):

  map_probe in the PIE: call, ret (compressed, TNT 1), xor, jz (TNT 1),
    mov, syscall (TIP.PGE ... TIP.PGD, as a user-only trace of a syscall);
  libc's getppid: mov, syscall;
  the vdso's first ret, leaving with TIP.PGD to an IP.

Usage: map_trace.py DIR PROBE_ELF
"""
import re
import subprocess
import sys

from pt_packets import MODE64, PGD0, PSB, PSBEND, pgd, pge

d, probe_elf = sys.argv[1], sys.argv[2]
addr = dict(line.split() for line in open(d + '/addrs'))
probe, getppid, vdso = (int(addr[k], 16) for k in ('probe', 'getppid', 'vdso'))
libc = next(line.split()[3] for line in open(d + '/sideband.txt')
            if line.startswith('map=') and '/libc.so' in line)


def insns(f, start, n, adjust, span=64):
    """(run-time address, mnemonic) of n instructions from start in f"""
    out = subprocess.run(['objdump', '-d', '--insn-width=16',
                          '--start-address=%#x' % start,
                          '--stop-address=%#x' % (start + span), f],
                         capture_output=True, text=True, check=True).stdout
    r = []
    for line in out.splitlines():
        m = re.match(r'\s*([0-9a-f]+):\t[0-9a-f ]+\t(\S+)', line)
        if m:
            r.append((int(m.group(1), 16) + adjust, m.group(2)))
    return r[:n]


def sym(f, name, dyn):
    out = subprocess.run(['nm'] + (['-D'] if dyn else []) + [f],
                         capture_output=True, text=True, check=True).stdout
    return next(int(line.split()[0], 16) for line in out.splitlines()
                if line.split()[-1].split('@')[0] == name)


# the probe, listed: call xor jz ud2 ret mov syscall; run in another order
p_va = sym(probe_elf, 'map_probe', False)
pl = insns(probe_elf, p_va, 7, probe - p_va)
assert [m for _, m in pl] == ['call', 'xor', pl[2][1], 'ud2', 'ret', 'mov',
                              'syscall'] and pl[2][1] in ('je', 'jz'), pl
want = [pl[i][0] for i in (0, 4, 1, 2, 5, 6)]
# libc's getppid: straight to its syscall
g_va = sym(libc, 'getppid', True)
gl = insns(libc, g_va, 8, getppid - g_va)
k = next(i for i, (_, m) in enumerate(gl) if m == 'syscall')
assert not any(m[0] == 'j' or m in ('call', 'ret') for _, m in gl[:k]), gl
want += [a for a, _ in gl[:k + 1]]
# the vdso (linked at 0): its first ret
vl = insns(d + '/vdso.so', 0, 1 << 16, vdso, 1 << 16)
vret = next(a for a, m in vl if m == 'ret')
want.append(vret)

pt = PSB + PSBEND + MODE64
pt += pge(probe) + bytes([0x0e])                # TNT 1 1
pt += PGD0                                      # syscall: IP suppressed
pt += pge(getppid) + PGD0
pt += pge(vret) + pgd(probe)                    # ret out of the vdso
open(d + '/cpu0.pt', 'wb').write(pt)
open(d + '/want', 'w').write(''.join('%016x\n' % a for a in want))
