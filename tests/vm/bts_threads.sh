#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ptt-timeout: 60
# bts_threads (issue 15): 'pt-trace record --bts' asks /dev/btsN for
# switch records (PT_BTS_CTL_SWITCHES), so that decode can tell the
# threads' branches apart although BTS records carry no time.  The
# program (/ptt/work/exact_threads) runs its two threads on CPU 0 and
# CPU 1 in turn.  Required: each CPU's cpuN.bts has switch records to
# both of the program's threads (pid= of the sideband, and two tids);
# 'decode --calls' prints a "[thread exact_threads PID/TID, cpu N]" line
# for each (the name from the sideband's switch records); --tid is
# checked on the host (tests/host/bts_decode.sh).  Kernel branches (-k), so it runs under PTI too; icl
# only (the profiles do not change switch records).
# Exit 0 pass, 77 skip, 1 fail.

. /ptt/work/bts_lib.sh
[ "$PTT_PROFILE" = icl ] || { echo "SKIP: bts_threads runs on icl"; exit 77; }
bts_require
[ -x /ptt/work/exact_threads ] || { echo "SKIP: no /ptt/work/exact_threads"; exit 77; }
OUT=/tmp/bts_threads.$$

"$PT" record --bts -k -C 0,1 -o "$OUT" -- /ptt/work/exact_threads \
	>"$OUT.log" 2>&1
rc=$?
[ $rc = 0 ] || bad "record --bts -k: exit $rc: $(tail -n 3 "$OUT.log")"
pid=$(sed -n 's/^pid=//p' "$OUT/sideband.txt" 2>/dev/null)
[ -n "$pid" ] || bad "no pid= in the sideband"
# Both files in one decode each (decode's start-up is most of the time).
tids=""
for c in 0 1; do
	# OFFSET  switch to pid P tid T
	t=$("$PT" dump "$OUT/cpu$c.bts" 2>/dev/null |
		awk -v p="$pid" '$2 == "switch" && $5 == p { print $7 }' |
		sort -u | tr '\n' ' ')
	echo "  cpu$c: switch records to the program's threads $t"
	set -- $t
	[ $# = 2 ] || bad "cpu$c.bts: switch records to tids '$t' of pid $pid, want 2"
	tids=$t
done
set -- $tids
"$PT" decode --calls "$OUT/cpu0.bts" "$OUT/cpu1.bts" >"$OUT/calls" \
	2>"$OUT/err" || bad "decode --calls: $(head -c 300 "$OUT/err")"
for c in 0 1; do
	for t in "$@"; do
		grep -q "^\[thread exact_threads $pid/$t, cpu $c\]$" "$OUT/calls" ||
			bad "cpu$c: no thread line for $pid/$t: $(grep '^\[thread' "$OUT/calls" | sort -u | head -5 | tr '\n' '|')"
	done
done
[ $fail = 0 ] && rm -rf "$OUT" "$OUT.log"
exit $fail
