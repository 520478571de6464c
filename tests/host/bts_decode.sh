#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pt-trace decode of a Branch Trace Store recording (issue 15), on a
# fabricated one: DIR/cpu0.bts, the sideband.txt record writes (map= the
# program built here, kernel.kallsyms=kallsyms), and a stream-mode
# DIR/cpu0.bts.loss with one gap.  Requires the exact perf-script-like
# lines: user branches named from the program through the sideband's
# map (libdwfl), kernel ones from the kallsyms copy, an unknown address
# as [unknown], the gap where it lies; -q's counts; and the refusals
# (PT-only options, .bts mixed with .pt); --calls: the call tree.  Prints PTT-RESULT lines.
#
# usage: bts_decode.sh PT-TRACE TMPDIR

PT=$1
T=$2/bts_decode
mkdir -p "$T/rec"
pass() { echo "PTT-RESULT PASS $1"; }
fail() { echo "PTT-RESULT FAIL $1 $2"; }
skip() { echo "PTT-RESULT SKIP $1 $2"; }

cat >"$T/prog.c" <<'C'
int bts_callee(int x) { return x * 3; }
int main(void) { return bts_callee(2); }
C
if ! cc -O0 -g -no-pie -o "$T/rec/prog" "$T/prog.c" 2>"$T/cc.err"; then
	skip bts-decode "no C compiler for the ELF image: $(head -c 100 "$T/cc.err")"
	exit 0
fi
callee=$(nm "$T/rec/prog" | awk '$3 == "bts_callee" { print $1 }')
main=$(nm "$T/rec/prog" | awk '$3 == "main" { print $1 }')
# The program's executable PT_LOAD, as a map= line (record writes them).
read -r off va fsz < <(readelf -lW "$T/rec/prog" |
	awk '$1 == "LOAD" && / R?W?E / { print $2, $3, $5; exit }')
printf 'ffffffff81000000 T entry_SYSCALL_64\nffffffff81000100 t do_syscall_64\n' >"$T/rec/kallsyms"
{
	echo "pt-trace-sideband=1"
	printf 'map=0x%x 0x%x 0x%x %s\n' $((va)) $((va + fsz)) $((off)) "$T/rec/prog"
	echo "kernel.kallsyms=kallsyms"
} >"$T/rec/sideband.txt"
# main+4 -> bts_callee, bts_callee+1 -> main+9, a syscall into the kernel,
# then (after 2 lost branches) a kernel branch and one to nowhere known.
python3 - "$T/rec/cpu0.bts" "$callee" "$main" <<'PY'
import struct, sys
callee, main = int(sys.argv[2], 16), int(sys.argv[3], 16)
recs = [(main + 4, callee, 0), (callee + 1, main + 9, 0),
        (main + 12, 0xffffffff81000000, 0),
        (0xffffffff81000010, 0xffffffff81000104, 0), (main + 13, 0x10, 0)]
with open(sys.argv[1], "wb") as f:
    for r in recs:
        f.write(struct.pack("<QQQ", *r))
PY
printf 'pt-trace-loss 1\ncpu 0\nloss 0 120 72 48 100 200 1000 2000 no_space,bytes_known\nend 1 0\n' \
	>"$T/rec/cpu0.bts.loss"
u() { printf '%16x %s (prog)' $(($1)) "$2"; }
k() { printf '%16x %s ([kernel.kallsyms])' $(($1)) "$2"; }
{
	echo "[000]  $(u 0x$main+4 main+0x4) => $(u 0x$callee bts_callee)"
	echo "[000]  $(u 0x$callee+1 bts_callee+0x1) => $(u 0x$main+9 main+0x9)"
	echo "[000]  $(u 0x$main+12 main+0xc) => $(k 0xffffffff81000000 entry_SYSCALL_64)"
	echo "[000]  [lost 2 branches: the stream's ring was full]"
	echo "[000]  $(k 0xffffffff81000010 entry_SYSCALL_64+0x10) => $(k 0xffffffff81000104 do_syscall_64+0x4)"
	echo "[000]  $(u 0x$main+13 main+0xd) =>               10 [unknown] ([unknown])"
} >"$T/exp"
"$PT" decode "$T/rec/cpu0.bts" >"$T/out" 2>"$T/err"; rc=$?
if [ $rc = 0 ] && cmp -s "$T/out" "$T/exp"; then pass bts-decode
else fail bts-decode "rc $rc: $(diff "$T/exp" "$T/out" | head -6 | tr '\n' '|') $(head -c 300 "$T/err")"; fi

"$PT" decode -q "$T/rec/cpu0.bts" >"$T/out" 2>"$T/err"; rc=$?
if [ $rc = 0 ] && [ "$(cat "$T/out")" = "5 branches, 1 gaps: 2 branches lost" ]; then
	pass bts-decode-quiet
else fail bts-decode-quiet "rc $rc: $(head -c 200 "$T/out") $(head -c 200 "$T/err")"; fi

bad=""
"$PT" decode --events "$T/rec/cpu0.bts" >/dev/null 2>"$T/err"
[ $? = 1 ] && grep -q "no events: BTS stores no time" "$T/err" &&
	grep -q "decode --events the recording.s cpuN.pt" "$T/err" || bad+=" events"
"$PT" decode --time 0,1 "$T/rec/cpu0.bts" >/dev/null 2>"$T/err"
[ $? = 1 ] && grep -q "list of branches" "$T/err" || bad+=" time"
: >"$T/rec/cpu0.pt"
"$PT" decode "$T/rec/cpu0.bts" "$T/rec/cpu0.pt" >/dev/null 2>"$T/err"
[ $? = 1 ] && grep -q "not both" "$T/err" || bad+=" mixed"
: >"$T/rec/cpu1.bts"
"$PT" decode "$T/rec/cpu1.bts" >/dev/null 2>"$T/err"
[ $? = 2 ] || bad+=" empty"
if [ -z "$bad" ]; then pass bts-decode-errors; else fail bts-decode-errors "$bad"; fi

# --- --calls: the call tree of a fabricated recording whose tree is known.
# The program's calls nest main > f1 > f2, main > f3; an interrupt at f3's
# nop goes into a traced kernel handler (kernel.text holds its bytes: a
# jmp, then iretq back to the nop); main's syscall is an untraced kernel
# visit (the next record is user code again); after a gap the tree
# restarts at main's last call; one branch from an address no file holds.
C=$T/calls
mkdir -p "$C"
cat >"$C/prog.S" <<'S'
	.text
	.globl main, f1, f2, f3
main:	call f1
	call f3
	syscall
	call f2
	hlt
f1:	call f2
	jmp .Lj
	nop
.Lj:	ret
f2:	ret
f3:	nop
	ret
S
if ! cc -nostdlib -no-pie -static -Wl,-emain -o "$C/prog" "$C/prog.S" 2>"$T/cc.err"; then
	skip bts-decode-calls "cannot build the program: $(head -c 100 "$T/cc.err")"
	exit 0
fi
sym() { nm "$C/prog" | awk -v s="$1" '$3 == s { print "0x" $1 }'; }
main=$(sym main) f1=$(sym f1) f2=$(sym f2) f3=$(sym f3)
read -r off va fsz < <(readelf -lW "$C/prog" |
	awk '$1 == "LOAD" && / R?W?E / { print $2, $3, $5; exit }')
printf 'ffffffff81000000 T asm_irq\nffffffff81000100 t do_irq\n' >"$C/kallsyms"
# nop at the entry, jmp entry+0x10 -> do_irq+4, iretq at do_irq+4
python3 - "$C/ktext" <<'PY'
import sys
b = bytearray(b"\x90" * 0x200)
b[0x10:0x15] = b"\xe9\xef\x00\x00\x00"
b[0x104:0x106] = b"\x48\xcf"
open(sys.argv[1], "wb").write(b)
PY
{
	echo "pt-trace-sideband=1"
	printf 'map=0x%x 0x%x 0x%x %s\n' $((va)) $((va + fsz)) $((off)) "$C/prog"
	echo "kernel.kallsyms=kallsyms"
	echo "kernel.text=ffffffff81000000 200 ktext"
} >"$C/sideband.txt"
python3 - "$C/cpu0.bts" $((main)) $((f1)) $((f2)) $((f3)) <<'PY'
import struct, sys
m, f1, f2, f3 = (int(a) for a in sys.argv[2:6])
k = 0xffffffff81000000
recs = [(m, f1), (f1, f2), (f2, f1 + 5),
        (f1 + 5, f1 + 8), (f1 + 8, m + 5), (m + 5, f3),
        (f3, k), (k + 0x10, k + 0x104), (k + 0x104, f3),
        (f3 + 1, m + 10), (m + 10, k),
        (m + 12, f2), (0x10, 0x20)]
with open(sys.argv[1], "wb") as f:
    for r in recs:
        f.write(struct.pack("<QQQ", r[0], r[1], 0))
PY
# the gap: before the 12th record (offset 11 * 24)
printf 'pt-trace-loss 1\ncpu 0\nloss 0 312 264 48 100 200 1000 2000 no_space,bytes_known\nend 1 0\n' \
	>"$C/cpu0.bts.loss"
{
	printf '%016x main\n' $((main))
	printf '  %016x f1\n' $((f1))
	printf '    %016x f2\n' $((f2))
	printf '  %016x f3\n' $((f3))
	printf '    %016x asm_irq\n' 0xffffffff81000000
	echo "[000]  [lost 2 branches: the stream's ring was full]"
	printf '%016x main+0xc\n' $((main + 12))
	printf '  %016x f2\n' $((f2))
} >"$C/exp"
"$PT" decode --calls "$C/cpu0.bts" >"$C/out" 2>"$C/err"; rc=$?
if [ $rc = 0 ] && cmp -s "$C/out" "$C/exp" &&
   grep -q "1 of 13 branches are in no file given" "$C/err"; then
	pass bts-decode-calls
else fail bts-decode-calls "rc $rc: $(diff "$C/exp" "$C/out" | head -8 | tr '\n' '|') $(head -c 300 "$C/err")"; fi

# --- --timeline of the same recording: the clock counts branch ends (no
# time in BTS); the spans nest as the calls do: f2 in f1 in main, the
# handler in a kernel span in f3, the untraced syscall a syscall span in
# main, the gap a "trace lost" span, then f2 again.
"$PT" decode -q --timeline "$C/tl.json" "$C/cpu0.bts" >"$C/out" 2>"$C/err"; rc=$?
if [ $rc = 0 ] && python3 - "$C/tl.json" <<'PY' 2>"$C/py.err"
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e["ph"] == "X"]
def span(name, i=0):
    s = [e for e in ev if e["name"] == name][i]
    return s["ts"], s["ts"] + s["dur"]
def inside(a, b):
    assert b[0] <= a[0] and a[1] <= b[1], (a, b)
names = [e["name"] for e in ev]
for n in ("main", "f1", "f2", "f3", "kernel", "syscall", "trace lost"):
    assert n in names, (n, names)
inside(span("f2"), span("f1")); inside(span("f1"), span("main"))
inside(span("asm_irq"), span("kernel")); inside(span("kernel"), span("f3"))
inside(span("f3"), span("main")); inside(span("syscall"), span("main"))
assert span("f1")[1] <= span("f3")[0]
assert span("trace lost")[0] >= span("main")[1] and span("f2", 1)[0] >= span("trace lost")[0]
PY
then pass bts-decode-timeline
else fail bts-decode-timeline "rc $rc: $(head -c 300 "$C/py.err") $(head -c 200 "$C/err")"; fi

# --- Threads: the driver's switch records (PT_BTS_SWITCH) in the data.
# Thread 100/100 calls main > f1 > f2 and is switched out in f2; 100/101
# runs main's call of f3 and its return; 100/100 comes back, returns
# from f2 and f1; then the idle task.  --calls prints one tree per
# thread, each under a line naming it, the first thread's going on at
# its depth; --tid keeps one thread's; the timeline puts each thread's
# spans on its own track.
python3 - "$C/threads.bts" $((main)) $((f1)) $((f2)) $((f3)) <<'PY'
import struct, sys
m, f1, f2, f3 = (int(a) for a in sys.argv[2:6])
SW, FROM = 1 << 63, (1 << 64) - 1
def sw(pid, tid):
    return (FROM, pid << 32 | tid, SW)
recs = [sw(100, 100), (m, f1, 0), (f1, f2, 0),
        sw(100, 101), (m + 5, f3, 0), (f3 + 1, m + 10, 0),
        sw(100, 100), (f2, f1 + 5, 0), (f1 + 5, f1 + 8, 0),
        (f1 + 8, m + 5, 0), sw(0, 0)]
with open(sys.argv[1], "wb") as f:
    for r in recs:
        f.write(struct.pack("<QQQ", *r))
PY
{
	echo "[thread [unknown] 100/100, cpu -1]"
	printf '%016x main\n' $((main))
	printf '  %016x f1\n' $((f1))
	printf '    %016x f2\n' $((f2))
	echo "[thread [unknown] 100/101, cpu -1]"
	printf '%016x main+0x5\n' $((main + 5))
	printf '  %016x f3\n' $((f3))
	echo "[thread [unknown] 100/100, cpu -1]"
	printf '    %016x f2\n' $((f2))
	echo "[thread swapper 0/0, cpu -1]"
} >"$C/exp.threads"
"$PT" decode --calls "$C/threads.bts" >"$C/out" 2>"$C/err"; rc=$?
"$PT" decode --calls --tid 101 "$C/threads.bts" >"$C/out101" 2>>"$C/err"; rc101=$?
"$PT" decode -q "$C/threads.bts" >"$C/outq" 2>>"$C/err"
if [ $rc = 0 ] && cmp -s "$C/out" "$C/exp.threads" && [ $rc101 = 0 ] &&
   [ "$(grep -c thread "$C/out101")" = 1 ] && grep -q "f3" "$C/out101" &&
   ! grep -q "f1" "$C/out101" &&
   [ "$(cat "$C/outq")" = "7 branches" ]; then
	pass bts-decode-threads
else fail bts-decode-threads "rc $rc/$rc101: $(diff "$C/exp.threads" "$C/out" | head -8 | tr '\n' '|') 101: $(tr '\n' '|' <"$C/out101") q: $(cat "$C/outq") $(head -c 300 "$C/err")"; fi

"$PT" decode -q --timeline "$C/tlt.json" "$C/threads.bts" >/dev/null 2>"$C/err"; rc=$?
if [ $rc = 0 ] && python3 - "$C/tlt.json" <<'PY' 2>"$C/py.err"
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e["ph"] == "X"]
tid = {}
for e in ev:
    tid.setdefault(e["name"], set()).add(e["tid"])
assert tid["f1"] == {100} and tid["f2"] == {100}, tid
assert tid["f3"] == {101}, tid
PY
then pass bts-decode-threads-timeline
else fail bts-decode-threads-timeline "rc $rc: $(head -c 300 "$C/py.err") $(head -c 200 "$C/err")"; fi
