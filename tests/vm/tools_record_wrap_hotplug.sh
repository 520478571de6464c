#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ptt-timeout: 60
# tools_record_wrap_hotplug (issue 13): a flight recording, 'pt-trace
# record -m flight -b 4K -a -k -C 1 -- COMMAND', while CPU 1 goes
# offline and comes back.  The first run's 4 KiB buffer wraps at the
# model's usual 2 MB/s; the model then writes 640 B/s, so the run after
# the restart does not.  cpuN.pt holds both runs and the first lost its
# older data: sideband.txt's cpu.wrapped for CPU 1 must say 1, as the
# summary line must say "wrapped" (before: the last run's flag only).
# Exit 0 pass, 77 skip, 1 fail.

. /ptt/work/pt_trace_lib.sh
pt_trace_require
[ -w /sys/devices/system/cpu/cpu1/online ] || { echo "SKIP: CPU 1 cannot go offline"; exit 77; }
[ "${PTT_PROFILE:-icl}" = icl ] || { echo "SKIP: the recorder's behaviour, run on icl"; exit 77; }
ON=/sys/devices/system/cpu/cpu1/online
PARAM=/sys/module/pt_trace_model/parameters
d=/tmp/tools_record_wrap_hotplug.$$
fail=0
bad() {
	echo "FAIL: $*"
	fail=1
}

tick=$(cat $PARAM/model_tick_bytes)
period=$(cat $PARAM/model_period_us)
"$PT" record -m flight -b 4K -a -k -C 1 -o "$d" -- sh -c "touch $d.go; sleep 1.5" >"$d.log" 2>&1 &
r=$!
# 640 B/s from the offline on: the run after the restart does not wrap.
slow() {
	echo 64 >$PARAM/model_tick_bytes
	echo 100000 >$PARAM/model_period_us
}
why=$(cpu1_bounce "$d.go" slow) || bad "$why"
wait $r
rc=$?
echo "$tick" >$PARAM/model_tick_bytes
echo "$period" >$PARAM/model_period_us
echo 1 >"$ON"
[ $rc = 0 ] || bad "record exit $rc: $(tail -n 3 "$d.log")"
grep '^cpu 1:\|^cpu1 ' "$d.log" | sed 's/^/  /'
grep -q '^cpu 1: .*started again\|^cpu 1: .*starts again' "$d.log" ||
	bad "no restart of CPU 1's trace in the log"
w=$(awk -F= '$1 == "cpu.wrapped" { split($2, f, " "); if (f[1] == 1) print f[2] }' "$d/sideband.txt")
echo "  cpu.wrapped for CPU 1: '$w'; $(grep '^cpu.restarts=1 ' "$d/sideband.txt")"
[ "$w" = 1 ] || bad "cpu.wrapped for CPU 1 is '$w': the first run wrapped"
grep -q '^cpu1 .*wrapped' "$d.log" || bad "the summary line of CPU 1 does not say wrapped"
[ $fail = 1 ] || rm -rf "$d" "$d.log" "$d.go"
exit $fail
