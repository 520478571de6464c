#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Decode throughput: 'pt-trace decode' (the default listing, every
# instruction symbolized, to /dev/null) against libipt's bare instruction
# decoder (bare_insn.c, no output) on the same synthetic trace, in the
# same run: decode_loop.S's loop, its branch taken 47 times per long TNT
# packet, a PSB+ every 4 KiB (PTT_BENCH_MB, default 2 MB of trace).
# Last line:
#   decode: X.X M insn/s, R.RR of libipt's bare instruction decoder, S.SS x with N threads
# Best of 3 runs each.  S: decode --jobs 1's wall time over --jobs N's
# (N = PTT_BENCH_JOBS, default 2), both pinned to the same two CPUs with
# taskset, on a recording as users make them (tests/host/jobs_trace.py at
# PTT_BENCH_MB: three tasks of two processes taking turns in the same
# loop, switch records and PIPs, a TSC in each PSB+), in its default
# listing (perf script's columns: the task of each instruction).  On a loaded machine the wall times measure the scheduler as
# much as the decoder (with autogroup scheduling, a session's threads
# share one session's part of the CPUs, however many there are): a line
# before the last one gives each run's CPU time and the load average, so
# S can be read against them.  Before them, a line for perf script's
# columns (the default listing of a recording) against --format=ip on a
# recording of the same loop, and one for -q's wall time with --jobs 1
# over --jobs N on S's recording (printed, not asserted).

set -e
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

make -s -C "$ROOT/tools"
gcc -O2 -Wall -Wextra -Werror -o "$TMP/bare" "$ROOT/tests/bench/host/bare_insn.c" -lipt
gcc -c -o "$TMP/loop.o" "$ROOT/tests/bench/host/decode_loop.S"
ld -static -nostdlib -Ttext=0x401000 -e f -z noexecstack -o "$TMP/loop" "$TMP/loop.o"
loop=$(nm "$TMP/loop" | awk '$3 == "loop" { print $1 }')
read -r off size < <(readelf -lW "$TMP/loop" | awk '$1 == "LOAD" && / R E / { print $2, $5 }')

python3 - "$TMP/bench.pt" "$loop" "${PTT_BENCH_MB:-2}" <<'PY'
import sys
path, loop, mb = sys.argv[1], int(sys.argv[2], 16), float(sys.argv[3])
psb = bytes([2, 0x82] * 8)
fup = bytes([6 << 5 | 0x1d]) + loop.to_bytes(8, 'little')
head = psb + bytes([0x99, 0x01]) + fup + bytes([2, 0x23])
tnt = bytes([2, 0xa3]) + (1 << 48 | (1 << 47) - 1).to_bytes(7, 'little')[:6]
pge = bytes([6 << 5 | 0x11]) + loop.to_bytes(8, 'little')
out = bytearray(psb + bytes([2, 0x23, 0x99, 0x01]) + pge)
while len(out) < mb * 1e6:
    out += tnt * ((4096 - len(head)) // len(tnt)) + head
open(path, 'wb').write(out)
PY

. "$ROOT/tests/bench/host/bench_common.bash"

n=$("$TMP/bare" "$TMP/bench.pt" "$TMP/loop" "$off" "$size" 0x401000 | awk '{ print $1 }')
got=$("$ROOT/tools/build/pt-trace" decode --format=ip --elf "$TMP/loop" "$TMP/bench.pt" 2>/dev/null | wc -l)
[ "$got" = "$n" ] || echo "decode listed $got instructions, the bare decoder $n"
t_bare=$(best "$TMP/bare" "$TMP/bench.pt" "$TMP/loop" "$off" "$size" 0x401000)
jobs=${PTT_BENCH_JOBS:-2}
pin=()
[ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null && pin=(taskset -c 0,1)
# best_cpu CMD...: "WALL CPU" of the run with the best wall time of 3
best_cpu() {
	local b="" c="" t
	for _ in 1 2 3; do
		t=$( { /usr/bin/time -f '%e %U %S' "$@" >/dev/null; } 2>&1 | tail -n 1)
		if [ -z "$b" ] || awk -v t="${t%% *}" -v b="$b" 'BEGIN { exit !(t < b) }'; then
			b=${t%% *}
			c=$(awk -v t="$t" 'BEGIN { split(t, f, " "); print f[2] + f[3] }')
		fi
	done
	echo "$b $c"
}
t_dec=$(best "${pin[@]}" "$ROOT/tools/build/pt-trace" decode -j 1 --elf "$TMP/loop" "$TMP/bench.pt")
mkdir -p "$TMP/sw"
PYTHONPATH="$ROOT/tests/host" python3 "$ROOT/tests/host/jobs_trace.py" "$TMP/sw" "$TMP/loop" "$loop" "${PTT_BENCH_MB:-2}"
ns=$("$ROOT/tools/build/pt-trace" decode --format=ip "$TMP/sw/cpu0.pt" 2>/dev/null | wc -l)
"$ROOT/tools/build/pt-trace" decode -j 1 "$TMP/sw/cpu0.pt" 2>/dev/null | cksum >"$TMP/sum1"
PT_TRACE_DEBUG_JOBS=1 "$ROOT/tools/build/pt-trace" decode -j "$jobs" "$TMP/sw/cpu0.pt" 2>"$TMP/err" | cksum >"$TMP/sum2"
cmp -s "$TMP/sum1" "$TMP/sum2" || echo "decode -j $jobs listed otherwise than -j 1 on the recording"
read -r t_sw c_sw < <(best_cpu "${pin[@]}" "$ROOT/tools/build/pt-trace" decode -j 1 "$TMP/sw/cpu0.pt")
read -r t_par c_par < <(best_cpu "${pin[@]}" "$ROOT/tools/build/pt-trace" decode -j "$jobs" "$TMP/sw/cpu0.pt")
echo "S's recording: $(stat -c %s "$TMP/sw/cpu0.pt") bytes, $ns instructions, $(sed -n 's/^decode --jobs: //p' "$TMP/err" | head -n 1) (-j $jobs)"
# -q on the same recording (its statistics only, the segments' added up
# in order): printed, not asserted
"$ROOT/tools/build/pt-trace" decode -q -j 1 "$TMP/sw/cpu0.pt" >"$TMP/q1" 2>&1 || true
PT_TRACE_DEBUG_JOBS=1 "$ROOT/tools/build/pt-trace" decode -q -j "$jobs" "$TMP/sw/cpu0.pt" >"$TMP/q2" 2>&1 || true
grep -v '^decode --jobs: ' "$TMP/q2" | cmp -s "$TMP/q1" - || echo "decode -q -j $jobs printed otherwise than -j 1 on the recording"
read -r t_q1 c_q1 < <(best_cpu "${pin[@]}" "$ROOT/tools/build/pt-trace" decode -q -j 1 "$TMP/sw/cpu0.pt")
read -r t_qn c_qn < <(best_cpu "${pin[@]}" "$ROOT/tools/build/pt-trace" decode -q -j "$jobs" "$TMP/sw/cpu0.pt")
awk -v a="$t_q1" -v b="$t_qn" -v ca="$c_q1" -v cb="$c_qn" -v j="$jobs" 'BEGIN {
	printf "decode -q on the recording: %.2f s with 1 thread (cpu %.2f s), %.2f s with %d (cpu %.2f s): %.2f x\n",
		a, ca, b, j, cb, a / (b > 0 ? b : 0.01)
}'
# perf script's columns (the default listing of a recording): the same
# loop as a recording of task 100/100 'loop' (sideband.perf: COMM, MMAP2,
# a switch-in; a TSC in each PSB+), against --format=ip on it.
mkdir -p "$TMP/rec"
PYTHONPATH="$ROOT/tests/host" python3 - "$TMP/rec" "$TMP/loop" "$loop" "${PTT_BENCH_MB:-2}" <<'PY'
import struct, sys
from perf_sideband import COMM, COMM_EXEC, MMAP2, NONE, SWITCH, header, rec, s8
from pt_packets import MODE64, PSB, PSBEND, tsc
d, elf, loop, mb = sys.argv[1], sys.argv[2], int(sys.argv[3], 16), float(sys.argv[4])
who = (100, 100)
sb = header() + rec(COMM, COMM_EXEC, struct.pack('<II', *who) + s8('loop'), 10, NONE, who)
sb += rec(MMAP2, 2, struct.pack('<IIQQQIIQQII', *who, 0x401000, 0x1000, 0x1000,
                                0, 0, 0, 0, 5, 2) + s8(elf), 20, NONE, who)
sb += rec(SWITCH, 0, b'', 1000, 0, who)
open(d + '/sideband.perf', 'wb').write(sb)
open(d + '/sideband.txt', 'w').write('pt-trace-sideband=1\ncpu=6/85/4\n')
fup = bytes([6 << 5 | 0x1d]) + loop.to_bytes(8, 'little')
pge = bytes([6 << 5 | 0x11]) + loop.to_bytes(8, 'little')
tnt = bytes([2, 0xa3]) + (1 << 48 | (1 << 47) - 1).to_bytes(7, 'little')[:6]
t = 2000
out = bytearray(PSB + tsc(t) + PSBEND + MODE64 + pge)
while len(out) < mb * 1e6:
    t += 1000
    head = PSB + tsc(t) + MODE64 + fup + PSBEND
    out += tnt * ((4096 - len(head)) // len(tnt)) + head
open(d + '/cpu0.pt', 'wb').write(out)
PY
np=$("$ROOT/tools/build/pt-trace" decode --format=ip "$TMP/rec/cpu0.pt" 2>/dev/null | wc -l)
t_perf=$(best "${pin[@]}" "$ROOT/tools/build/pt-trace" decode -j 1 "$TMP/rec/cpu0.pt")
t_ip=$(best "${pin[@]}" "$ROOT/tools/build/pt-trace" decode -j 1 --format=ip "$TMP/rec/cpu0.pt")
awk -v n="$np" -v tp="$t_perf" -v ti="$t_ip" 'BEGIN {
	if (tp <= 0) tp = 0.01; if (ti <= 0) ti = 0.01;
	printf "decode --format=perf (a recording: task and time columns): %.1f M insn/s, %.2f of --format=ip (%.1f M insn/s)\n",
		n / tp / 1e6, ti / tp, n / ti / 1e6
}'
load=$(cut -d' ' -f1 /proc/loadavg)
awk -v n="$n" -v td="$t_dec" -v tb="$t_bare" -v ts="$t_sw" -v tp="$t_par" -v cd="$c_sw" -v cp="$c_par" \
    -v j="$jobs" -v load="$load" -v cpus="$(nproc)" 'BEGIN {
	if (td <= 0) td = 0.01; if (tb <= 0) tb = 0.01; if (tp <= 0) tp = 0.01;
	if (ts <= 0) ts = 0.01
	printf "trace: %d instructions\n", n
	printf "decode cpu time on the recording: %.2f s with 1 thread (wall %.2f s), %.2f s with %d (wall %.2f s); load average %s on %d CPUs: wall/cpu %.1f and %.1f\n",
		cd, ts, cp, j, tp, load, cpus, ts / (cd > 0 ? cd : 0.01), tp / (cp > 0 ? cp : 0.01)
	printf "decode: %.1f M insn/s, %.2f of libipt'"'"'s bare instruction decoder, %.2f x with %d threads\n",
		n / td / 1e6, tb / td, ts / tp, j
}'
