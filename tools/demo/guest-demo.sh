#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The 'make demo' guest script: runs as root inside the VM with
# pt_trace.ko loaded (backend=model).  Shows the capabilities, records a
# busy loop on every CPU for two seconds in stream mode (a reader that
# keeps up: no loss expected), prints the dump summary and the loss
# figures of each CPU, then records one second with a deliberately slow
# reader to show how every gap is accounted for; on the model with its
# exact mode, traces a program and decodes it.  Takes about a minute.

PT=$(command -v pt-trace)
for p in "$PT_TRACE" /ptt/bin/pt-trace ./tools/build/pt-trace; do
	[ -z "$PT" ] && [ -n "$p" ] && [ -x "$p" ] && PT=$p
done
[ -n "$PT" ] || { echo "demo: pt-trace binary not found"; exit 1; }
OUT=/tmp/pt-demo
rm -rf "$OUT" "$OUT-slow"

echo "=== pt-trace info"
"$PT" info || exit 1

echo "=== pt-trace record -m stream -w 256K -d 2: every CPU, 2 seconds, a busy loop per CPU"
ncpu=$(grep -c '^processor' /proc/cpuinfo)
i=0
while [ "$i" -lt "$ncpu" ]; do
	( j=0; while [ $j -lt 20000 ]; do j=$((j+1)); done ) &
	i=$((i+1))
done
"$PT" record -m stream -w 256K -o "$OUT" -d 2 --mtc || exit 1
wait

for f in "$OUT"/cpu*.pt; do
	echo "=== pt-trace dump --stats $f"
	"$PT" dump --stats "$f"
done
echo "=== first packets of cpu0"
"$PT" dump "$OUT/cpu0.pt" | head -n 12
echo "=== losses (sideband)"
grep -e '^cpu.loss_records=' -e '^cpu.lost_bytes=' -e '^cpu.lost_ns=' \
	-e '^cpu.loss_lapped=' "$OUT/sideband.txt"

echo "=== a slow reader: 16 KiB per CPU drained every 200 ms for 1 second"
"$PT" record -m stream -b 16K --drain-interval 200 -d 1 -o "$OUT-slow" || exit 1
echo "=== $OUT-slow/cpu0.loss"
head -n 8 "$OUT-slow/cpu0.loss"
echo "=== the first gap in pt-trace dump --loss $OUT-slow/cpu0.pt"
"$PT" dump --loss "$OUT-slow/cpu0.pt" | grep -m 1 -B 2 -A 2 '^\[[0-9a-f]*: loss: [0-9b]'
echo "=== pt-trace dump --stats $OUT-slow/cpu0.pt (each stretch decoded on its own)"
"$PT" dump --stats "$OUT-slow/cpu0.pt" | head -n 10

# Tracing a program, decoded to what it did: on the software model only
# where its exact mode exists (it single-steps the traced user code and
# writes the packets silicon would; on a real machine PT itself does).
EXACT=/sys/module/pt_trace_model/parameters/model_exact
PROG=${PT_DEMO_PROG:-/ptt/work/exact_pie}
if [ -w "$EXACT" ] && [ -x "$PROG" ]; then
	echo "=== model_exact=1: the model steps the traced program's user code (slow: ~30 us an instruction)"
	echo 1 >"$EXACT"
	echo "=== pt-trace record -u -o $OUT-prog -- $PROG: the program and its children, on any CPU, user code"
	"$PT" record -u -o "$OUT-prog" -- "$PROG"
	rc=$?
	echo 0 >"$EXACT"
	[ $rc = 0 ] || exit 1
	echo "=== pt-trace decode $OUT-prog/cpu*.pt: perf script's columns, the first lines of main"
	"$PT" decode "$OUT-prog"/cpu*.pt 2>/dev/null | grep -m 8 ' main'
	echo "=== pt-trace decode --calls: the calls main makes (through the PLT into libc)"
	"$PT" decode --calls "$OUT-prog"/cpu*.pt 2>/dev/null | awk '
		/ main$/ && !d { d = match($0, /[^ ]/); print; next }
		d { k = match($0, /[^ ]/); if (k <= d) exit; if (k == d + 2) print }' |
		head -n 12
	echo "=== pt-trace decode --insn --lines: cmp, the qsort callback, the first time"
	"$PT" decode --insn --lines "$OUT-prog"/cpu*.pt 2>/dev/null |
		grep -m 3 -E ' cmp(\+0x[0-9a-f]+)? \('
	echo "=== pt-trace decode -q --timeline $OUT-prog/timeline.json (Chrome/Perfetto JSON; --open shows it)"
	"$PT" decode -q --timeline "$OUT-prog/timeline.json" "$OUT-prog"/cpu*.pt
fi
echo "=== demo done"
