#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The 'make demo' guest script: runs as root inside the VM with
# pt_trace.ko loaded (backend=model).  Shows the capabilities, records a
# small workload on every CPU for about two seconds and prints the dump
# summary and the loss figures of each CPU.  Takes well under a minute.

PT=""
for p in "$PT_TRACE" /pt-trace /bin/pt-trace /usr/bin/pt-trace \
	 /tools/build/pt-trace ./tools/build/pt-trace; do
	[ -n "$p" ] && [ -x "$p" ] && PT=$p && break
done
[ -n "$PT" ] || { echo "demo: pt-trace binary not found"; exit 1; }
OUT=/tmp/pt-demo
rm -rf "$OUT"

echo "=== pt-trace info"
"$PT" info || exit 1

echo "=== pt-trace record: every CPU, 2 seconds, a busy loop per CPU"
ncpu=$(grep -c '^processor' /proc/cpuinfo)
i=0
while [ "$i" -lt "$ncpu" ]; do
	( j=0; while [ $j -lt 20000 ]; do j=$((j+1)); done ) &
	i=$((i+1))
done
"$PT" record -o "$OUT" -d 2 --mtc || exit 1
wait

for f in "$OUT"/cpu*.pt; do
	echo "=== pt-trace dump --stats $f"
	"$PT" dump --stats "$f"
done
echo "=== first packets of cpu0"
"$PT" dump "$OUT/cpu0.pt" | head -n 12
echo "=== losses (sideband)"
grep -e '^cpu.lost_bytes=' -e '^cpu.loss_records=' -e '^cpu.wrapped=' \
	-e '^loss=' "$OUT/sideband.txt"
echo "=== demo done"
