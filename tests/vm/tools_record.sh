#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# In-VM test of 'pt-trace record' and 'pt-trace dump --stats' on the
# module's model backend: record a short workload on cpu0, then the dump
# must find packets and no decode errors.  Exit 0 pass, 77 skip, 1 fail.

PT=""
for p in "$PT_TRACE" /pt-trace /bin/pt-trace /usr/bin/pt-trace \
	 /tools/build/pt-trace ./tools/build/pt-trace; do
	[ -n "$p" ] && [ -x "$p" ] && PT=$p && break
done
if [ -z "$PT" ]; then
	echo "SKIP: pt-trace binary not in the initramfs (tools/build/pt-trace)"
	exit 77
fi
[ -e /dev/pt0 ] || { echo "FAIL: /dev/pt0 missing with the module loaded"; exit 1; }

OUT=/tmp/tools_record.$$
rm -rf "$OUT"
"$PT" info -C 0 || { echo "FAIL: pt-trace info"; exit 1; }
if ! "$PT" record -C 0 -o "$OUT" -- sh -c 'i=0; while [ $i -lt 2000 ]; do i=$((i+1)); done'; then
	echo "FAIL: pt-trace record exited $?"
	exit 1
fi
[ -s "$OUT/sideband.txt" ] || { echo "FAIL: no sideband.txt"; exit 1; }
grep -q '^cpu.family=' "$OUT/sideband.txt" || { echo "FAIL: sideband lacks cpu.family"; exit 1; }
[ -s "$OUT/cpu0.pt" ] || { echo "FAIL: cpu0.pt empty"; exit 1; }
"$PT" dump --stats "$OUT/cpu0.pt" > "$OUT/stats" || { echo "FAIL: dump --stats"; exit 1; }
cat "$OUT/stats"
packets=$(sed -n 's/^packets: //p' "$OUT/stats")
errors=$(sed -n 's/^errors: //p' "$OUT/stats")
rm -rf "$OUT"
[ -n "$packets" ] && [ "$packets" -gt 0 ] || { echo "FAIL: no packets"; exit 1; }
[ "$errors" = 0 ] || { echo "FAIL: $errors decode errors"; exit 1; }
exit 0
