#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What a hung guest was doing: called by vm-run.sh when the console of
a check run has been silent for longer than any test may be (every test
has a time limit of its own, ptt-run prints when it kills one, so a silent
console means the whole guest stopped: both vCPUs spinning with
interrupts off, a lost timer interrupt, the emulator itself).

Through QEMU's monitor socket: each vCPU's registers (info registers -a),
the top of each vCPU's stack, then an NMI to every vCPU (a CPU spinning
with interrupts off still takes it; Linux says "NMI received for unknown
reason" or the model's handler runs).  RIP and every stack word that
points into kernel or module text is named afterwards: the kernel's from
the /proc/kallsyms of a second boot of the same kernel (Debian ships no
System.map, and the hung guest cannot be asked), the modules' from their
symbol tables, each shifted by the addresses the hung guest printed at
boot (PTT-KSYM, PTT-MODTEXT lines on its console: KASLR).

Usage: vm-stall.py capture MONITOR_SOCKET RAW
       vm-stall.py report RAW CONSOLE_LOG KALLSYMS MODULE_DIR
capture writes the monitor's answers to RAW; report prints the named
summary and the raw registers on stdout.
"""
import bisect
import os
import re
import socket
import subprocess
import sys


def monitor(path, cmds):
    """Run monitor commands; return {command: output}."""
    out = {}
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect(path)

    def read_prompt():
        buf = b""
        while not buf.endswith(b"(qemu) "):
            try:
                chunk = s.recv(65536)
            except socket.timeout:
                break
            if not chunk:
                break
            buf += chunk
        return buf.decode(errors="replace")

    read_prompt()
    for c in cmds:
        s.sendall(c.encode() + b"\n")
        text = read_prompt()
        # The monitor echoes the command (with terminal escapes) first.
        text = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", text)
        lines = text.replace("\r", "").split("\n")
        out[c] = "\n".join(l for l in lines[1:] if l != "(qemu) ")
    s.close()
    return out


class Symbols:
    def __init__(self):
        self.addrs = []
        self.names = []

    def add(self, addr, name):
        self.addrs.append(addr)
        self.names.append(name)

    def done(self):
        pairs = sorted(zip(self.addrs, self.names))
        self.addrs = [a for a, _ in pairs]
        self.names = [n for _, n in pairs]

    def name(self, addr, limit):
        i = bisect.bisect_right(self.addrs, addr) - 1
        if i < 0 or addr - self.addrs[i] > limit:
            return None
        return "%s+0x%x" % (self.names[i], addr - self.addrs[i])


def load_symbols(console, kallsyms, moddir):
    syms = Symbols()
    text = open(console, errors="replace").read()
    notes = []
    m = re.findall(r"^PTT-KSYM _stext ([0-9a-f]+)", text, re.M)
    if os.path.isfile(kallsyms) and m:
        rows = []
        stext = None
        for line in open(kallsyms):
            f = line.split()
            if len(f) == 3 and f[1] in "tTwW":
                rows.append((int(f[0], 16), f[2]))
                if f[2] == "_stext":
                    stext = int(f[0], 16)
        if stext is not None:
            off = int(m[-1], 16) - stext
            for a, n in rows:
                syms.add(a + off, n)
    else:
        notes.append("kernel text not named (kallsyms %s, PTT-KSYM %s)"
                     % ("read" if os.path.isfile(kallsyms) else "missing",
                        "seen" if m else "missing"))
    mods = re.findall(r"^PTT-MODTEXT (.*)$", text, re.M)
    if mods:
        for kv in mods[-1].split():
            name, _, addr = kv.partition("=")
            ko = os.path.join(moddir, name + ".ko")
            if not os.path.isfile(ko) or not addr:
                continue
            # Symbol values of a .ko are offsets in their section; only
            # .text is placed at the address the guest printed.
            sect = subprocess.run(["objdump", "-t", ko],
                                  capture_output=True, text=True).stdout
            for line in sect.splitlines():
                f = line.split()
                if len(f) >= 6 and f[-3] == ".text" and "F" in f[1:-3]:
                    syms.add(int(addr, 16) + int(f[0], 16),
                             "%s [%s]" % (f[-1], name))
    syms.done()
    return syms, notes


def capture(sock, raw):
    regs = monitor(sock, ["info registers -a"])["info registers -a"]
    parts = [regs]
    for block in re.split(r"(?=^CPU#)", regs, flags=re.M):
        c = re.match(r"CPU#(\d+)", block)
        rsp = re.search(r"RSP=([0-9a-f]+)", block)
        if not c or not rsp:
            continue
        x = "x/64gx 0x" + rsp.group(1)
        got = monitor(sock, ["cpu " + c.group(1), x])[x]
        parts.append("STACK CPU#%s\n%s" % (c.group(1), got))
    monitor(sock, ["nmi"])
    with open(raw, "w") as f:
        f.write("\n==PTT==\n".join(parts))


def report(raw, console, kallsyms, moddir):
    parts = open(raw).read().split("\n==PTT==\n")
    regs = parts[0]
    syms, notes = load_symbols(console, kallsyms, moddir)
    print("vCPU registers (QEMU monitor, info registers -a):")
    for block in re.split(r"(?=^CPU#)", regs, flags=re.M):
        if not block.startswith("CPU#"):
            continue
        rip = re.search(r"RIP=([0-9a-f]+)", block)
        flags = re.search(r"RFL=([0-9a-f]+)", block)
        hlt = re.search(r"HLT=(\d)", block)
        cpl = re.search(r"CPL=(\d)", block)
        ripv = int(rip.group(1), 16) if rip else 0
        ifl = (int(flags.group(1), 16) >> 9) & 1 if flags else -1
        print("  %s RIP %016x %s  CPL %s IF %d HLT %s" % (
            block.split()[0], ripv, syms.name(ripv, 1 << 16) or "?",
            cpl.group(1) if cpl else "?", ifl, hlt.group(1) if hlt else "?"))
    for p in parts[1:]:
        head, _, got = p.partition("\n")
        words = [int(w, 16) for w in re.findall(r"\b0x([0-9a-f]{16})\b", got)]
        named = [syms.name(w, 1 << 14) for w in words]
        named = [n for n in named if n]
        print("  %s, text addresses in its top 64 words: %s" % (
            head.replace("STACK ", "") + " stack",
            ", ".join(named) if named else "none"))
    print("an NMI was sent to every vCPU (what it did, if anything, is on the console)")
    for n in notes:
        print("  note: " + n)
    print("raw registers:")
    print(regs)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "capture":
        capture(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 6 and sys.argv[1] == "report":
        report(*sys.argv[2:6])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
