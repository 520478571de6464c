#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ptt-timeout: 60
# bts_record_snapshot (issue 15): 'pt-trace record --bts -S': each
# snapshot (SIGUSR2, and the end) holds the newest records of the BTS
# flight recorder beside PT's: DIR/snapshot.K/cpu0.bts, whole 24-byte
# records, kernel branches (-k), next to cpu0.pt; and the recording
# goes on after a snapshot (the second one has records too).  Before,
# snapshots held PT only and the BTS records were written once, at the
# end.  Exit 0 pass, 77 skip, 1 fail.

. /ptt/work/bts_lib.sh
bts_require
OUT=/tmp/bts_record_snapshot.$$

"$PT" record --bts -S -k -C 0 -d 1.2 -o "$OUT" >"$OUT.log" 2>&1 &
r=$!
sleep 0.5
kill -USR2 $r
wait $r
rc=$?
[ $rc = 0 ] || bad "record --bts -S: exit $rc: $(tail -n 3 "$OUT.log")"
sed 's/^/  /' "$OUT.log" | grep snapshot
for k in 1 2; do
	d=$OUT/snapshot.$k
	[ -s "$d/cpu0.pt" ] || bad "snapshot $k: no PT data ($d/cpu0.pt)"
	f=$d/cpu0.bts
	if [ ! -f "$f" ]; then
		bad "snapshot $k: no $f"
		continue
	fi
	size=$(wc -c <"$f")
	[ "$size" -gt 0 ] && [ $((size % 24)) = 0 ] ||
		bad "snapshot $k: cpu0.bts has $size bytes"
	# a kernel branch's source: the first record's from, 8 bytes LE
	hi=$(od -An -tx1 -j7 -N1 "$f" | tr -d ' ')
	[ "$hi" = ff ] || bad "snapshot $k: first record's source is not a kernel address (top byte '$hi')"
	echo "  snapshot $k: cpu0.bts $((size / 24)) records"
done
grep -q "snapshot 1: .* bytes" "$OUT.log" || bad "no 'snapshot 1' line"
[ $fail = 1 ] || rm -rf "$OUT" "$OUT.log"
exit $fail
