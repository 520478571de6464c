#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ptt-timeout: 120
# bts_record (issue 15): 'pt-trace record --bts' writes DIR/cpuN.bts
# beside cpuN.pt: whole 24-byte records, kernel branches only with -k,
# the sideband's bts.cpuN.records matching the file, and
# 'pt-trace dump --stats' of it agreeing (user 0).  Under PTI the
# driver refuses BTS: record --bts (-k, -u or both) fails with exit 3 and
# a message naming PTI and pti=off, and pt-trace info says it.
# Exit 0 pass, 77 skip, 1 fail.

. /ptt/work/bts_lib.sh
bts_require_model
OUT=/tmp/bts_record.$$

# Under PTI the driver refuses BTS: record says so and what to do.
if [ "$(cat /sys/kernel/pt_trace/bts/pti)" = 1 ]; then
	for side in -k -u ""; do
		"$PT" record --bts $side -C 0 -d 0.2 -o "$OUT" >"$OUT.log" 2>&1
		rc=$?
		[ $rc = 3 ] && grep -q "page table isolation is on.*pti=off" "$OUT.log" ||
			bad "BTS${side:+ $side} under PTI: exit $rc: $(cat "$OUT.log")"
		rm -rf "$OUT" "$OUT.log"
	done
	"$PT" info 2>&1 | grep -q "bts  *refused: page table isolation is on" ||
		bad "pt-trace info does not say BTS is refused: $("$PT" info 2>&1 | grep bts)"
	[ $fail = 0 ] && echo "PTI: record --bts (-k, -u, both) refused with exit 3 and a message"
	exit $fail
fi

"$PT" record --bts -k -C 0 -d 0.5 -o "$OUT" >"$OUT.log" 2>&1
rc=$?
[ $rc = 0 ] || bad "record --bts -k: exit $rc: $(tail -n 3 "$OUT.log")"
f=$OUT/cpu0.bts
if [ -f "$f" ]; then
	size=$(wc -c <"$f")
	n=$((size / 24))
	[ "$size" -gt 0 ] && [ $((size % 24)) = 0 ] || bad "cpu0.bts has $size bytes"
	sb=$(sed -n 's/^bts\.cpu0\.records=//p' "$OUT/sideband.txt")
	[ "$sb" = "$n" ] || bad "sideband bts.cpu0.records '$sb', file $n records"
	st=$("$PT" dump --stats "$f")
	echo "$st" | grep -qx "records $n" || bad "dump --stats: $st"
	echo "$st" | grep -qx "user 0" || bad "user branches with -k: $st"
	echo "  $n records; $(echo "$st" | tr '\n' ' ')"
	grep -q "records in cpu0.bts" "$OUT.log" || bad "no summary line: $(cat "$OUT.log")"
else
	bad "no $f: $(ls "$OUT" 2>&1)"
fi
[ -f "$OUT/cpu0.pt" ] || bad "no cpu0.pt beside it"
rm -rf "$OUT" "$OUT.log"
exit $fail
