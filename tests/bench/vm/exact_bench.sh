#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The exact model's stepping rate (model_exact=1): /ptt/work/exact_pie, a
# dynamically linked hello world, recorded with 'pt-trace record -u' on
# cpu0 and decoded with 'decode --format=ip'.  Prints the instructions
# stepped per second of the recording, the time per step (all of it: the
# #DB, the model, the recorder) and the notifier's share; the times of
# record and decode.  One run, nothing asserted.
PT=/ptt/bin/pt-trace
PARAM=/sys/module/pt_trace_model/parameters/model_exact
EX=/sys/kernel/debug/pt_trace/model/exact
OUT=/tmp/exact_bench.$$
up() { cut -d' ' -f1 /proc/uptime; }
xstat() { awk -v n="$1" '$1 == n { print $2 }' "$EX/stats"; }

[ -w "$PARAM" ] || { echo "exact model: no model_exact parameter"; exit 0; }
old=$(cat "$PARAM")
echo 1 >"$PARAM" || exit 1
for f in "$EX"/truth_cpu*; do cat "$f" >/dev/null; done
s0=$(xstat steps) n0=$(xstat insns) ns0=$(xstat step_ns) t0=$(up)
taskset -c 0 "$PT" record -C 0 -u -o "$OUT" -- /ptt/work/exact_pie >/dev/null 2>&1
t1=$(up) s1=$(xstat steps) n1=$(xstat insns) ns1=$(xstat step_ns)
"$PT" decode --format=ip "$OUT/cpu0.pt" >/dev/null 2>&1
t2=$(up)
for f in "$EX"/truth_cpu*; do cat "$f" >/dev/null; done
echo "$old" >"$PARAM"
rm -rf "$OUT"
awk -v s="$((s1 - s0))" -v n="$((n1 - n0))" -v ns="$((ns1 - ns0))" \
	-v t0="$t0" -v t1="$t1" -v t2="$t2" 'BEGIN {
	w = t1 - t0
	if (s <= 0 || w <= 0) { print "exact model: nothing stepped"; exit }
	printf "exact model: %.0f instructions/s stepped, %.1f us per step (%.1f us in the #DB notifier)\n",
		n / w, w * 1e6 / s, ns / s / 1e3
	printf "exact model: dynamic hello world (%d instructions) recorded in %.1f s, decoded in %.1f s, %.1f s in all\n",
		n, w, t2 - t1, t2 - t0
}'
