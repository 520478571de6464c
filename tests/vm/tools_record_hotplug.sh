#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ptt-timeout: 60
# tools_record_hotplug (issue 13): a system-wide recording, 'pt-trace
# record -a -k -C 1 -- COMMAND', while CPU 1 goes offline and comes
# back.  perf drops a CPU's CPU-wide events from it at offline
# (perf_event_exit_cpu()): record must open CPU 1's sideband event again
# when it STARTs the trace again, so sideband.perf has CPU 1's switch
# records after the restart (the restart record's end TSC in cpu1.loss)
# as before the offline; without them decode cannot say whose code it
# is.  Exit 0 pass, 77 skip, 1 fail.

. /ptt/work/pt_trace_lib.sh
pt_trace_require
[ -w /sys/devices/system/cpu/cpu1/online ] || { echo "SKIP: CPU 1 cannot go offline"; exit 77; }
[ "${PTT_PROFILE:-icl}" = icl ] || { echo "SKIP: the recorder's behaviour, run on icl"; exit 77; }
ON=/sys/devices/system/cpu/cpu1/online
d=/tmp/tools_record_hotplug.$$
fail=0
bad() {
	echo "FAIL: $*"
	fail=1
}

"$PT" record -a -k -C 1 -o "$d" -- sh -c "touch $d.go; sleep 1.5" >"$d.log" 2>&1 &
r=$!
why=$(cpu1_bounce "$d.go") || bad "$why"
wait $r
rc=$?
echo 1 >"$ON"
[ $rc = 0 ] || bad "record exit $rc: $(tail -n 3 "$d.log")"
grep '^cpu 1:' "$d.log" | sed 's/^/  /'
t=$(awk '$1 == "loss" && $NF ~ /restart/ { print $9 }' "$d/cpu1.loss" 2>/dev/null | tail -n 1)
[ -n "$t" ] || bad "no restart record in cpu1.loss: $(cat "$d/cpu1.loss" 2>&1 | head -n 5)"
before=$(awk -v t="${t:-0}" '$3 == 1 && $6 == "switch" && $1 + 0 < t + 0' "$d/sideband.perf.txt" | wc -l)
after=$(awk -v t="${t:-0}" '$3 == 1 && $6 == "switch" && $1 + 0 > t + 0' "$d/sideband.perf.txt" | wc -l)
echo "  CPU 1's switch records: $before before the restart at tsc $t, $after after"
[ "$before" -gt 0 ] || bad "no switch record of CPU 1 before the offline"
[ "$after" -gt 0 ] || bad "no switch record of CPU 1 after the restart: its sideband event was not opened again"
[ $fail = 1 ] || rm -rf "$d" "$d.log" "$d.go"
exit $fail
