#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bts_record_stream (issue 15): 'pt-trace record --bts -m stream' drains
# /dev/bts0's ring while tracing runs, into cpu0.bts and cpu0.bts.loss.
# A slow reader (--drain-interval 400 on an 8 KiB ring, 32 sampled
# branches per model tick) loses records, and the loss is exact: the
# records in the file plus the bytes of the loss file's gaps are exactly
# the records the model stored (its bts_records counter) and the switch
# records the driver stored (debugfs bts), the sideband's
# bts.cpu0.records and bts.cpu0.lost_records agree with both files, and
# every gap is a whole number of records.  Kernel branches (-k), so it
# runs under PTI too; icl only (the profiles do not change BTS streaming).
# Exit 0 pass, 77 skip, 1 fail.

[ "$PTT_PROFILE" = icl ] || { echo "SKIP: bts_record_stream runs on icl"; exit 77; }
. /ptt/work/bts_lib.sh
bts_require
M=/sys/kernel/debug/pt_trace/model
PARAM=/sys/module/pt_trace_model/parameters/model_bts_per_tick
OUT=/tmp/bts_record_stream.$$

old=$(cat "$PARAM")
echo 32 >"$PARAM"
# The driver's switch records of CPU 0 (debugfs bts, last column) go
# through the same ring as the CPU's: stored = the model's + these.
swc() { awk '$1 == 0 { print $7 }' /sys/kernel/debug/pt_trace/bts; }
r0=$(cat "$M/bts_records")
sw0=$(swc)
"$PT" record --bts -m stream -k -C 0 -b 8K --drain-interval 400 -d 1 \
	-o "$OUT" >"$OUT.log" 2>&1
rc=$?
r1=$(cat "$M/bts_records")
sw1=$(swc)
echo "$old" >"$PARAM"
[ $rc = 0 ] || bad "record --bts -m stream: exit $rc: $(tail -n 3 "$OUT.log")"
f=$OUT/cpu0.bts
size=$(wc -c <"$f" 2>/dev/null || echo 0)
n=$((size / 24))
[ "$size" -gt 0 ] && [ $((size % 24)) = 0 ] || bad "cpu0.bts has $size bytes"
[ -f "$f.loss" ] || bad "no cpu0.bts.loss: $(ls "$OUT")"
# loss SEQ POS OFFSET BYTES ...: known bytes only ("-" would be unknown).
lb=$(awk '$1 == "loss" { if ($5 == "-" || $5 % 24) bad = 1; s += $5; k++ }
	END { print (bad ? "bad" : s + 0), k + 0 }' "$f.loss" 2>/dev/null)
lost_bytes=${lb% *} gaps=${lb#* }
[ "$lost_bytes" != bad ] || bad "a gap of unknown size or not whole records: $(head -n 5 "$f.loss")"
lost=$((lost_bytes / 24))
[ -n "$sw0" ] && [ -n "$sw1" ] || bad "no switch count in debugfs pt_trace/bts"
switches=$((sw1 - sw0))
stored=$((r1 - r0 + switches))
echo "PTT-INFO $n records in cpu0.bts, $lost lost in $gaps gaps; the model stored $((r1 - r0)), the driver $switches switch records"
[ "$lost" -gt 0 ] || bad "a reader draining every 0.4 s from an 8 KiB ring lost nothing"
[ $((n + lost)) = "$stored" ] || bad "file $n + lost $lost != stored $stored"
sb() { sed -n "s/^$1=//p" "$OUT/sideband.txt"; }
[ "$(sb bts.cpu0.records)" = "$n" ] || bad "sideband bts.cpu0.records $(sb bts.cpu0.records), file $n"
[ "$(sb bts.cpu0.lost_records)" = "$lost" ] || bad "sideband bts.cpu0.lost_records $(sb bts.cpu0.lost_records), loss file $lost"
[ "$(sb bts.cpu0.mode)" = stream ] || bad "sideband bts.cpu0.mode $(sb bts.cpu0.mode)"
grep -q "records in cpu0.bts, $lost lost" "$OUT.log" || bad "summary: $(cat "$OUT.log")"
st=$("$PT" dump --stats "$f")
echo "$st" | grep -qx "records $n" || bad "dump --stats: $st"
echo "$st" | grep -qx "user 0" || bad "user branches with -k: $st"
[ $fail = 0 ] && rm -rf "$OUT" "$OUT.log"
exit $fail
