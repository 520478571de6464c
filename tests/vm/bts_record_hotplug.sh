#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ptt-timeout: 60
# bts_record_hotplug (issues 15, 13): 'pt-trace record --bts -k -C 1'
# -- a short command, while CPU 1 goes offline and comes back.  The
# driver stops both of CPU 1's traces; record starts both again
# (tools.rst, "CPU hotplug"), in flight and in stream mode: "cpu 1: BTS
# traced again", bts.cpu1.restarts=1, a restart record in cpu1.bts.loss
# with records before and after it, no warning and no bts.cpu1.stopped;
# exit 0, cpu1.bts whole records.  A recording without hotplug has
# neither a restart nor (flight) a cpu1.bts.loss.
# Exit 0 pass, 77 skip, 1 fail.

. /ptt/work/bts_lib.sh
bts_require
# The recorder's behaviour, the same on every kernel: 6.12 only (make
# check's time; the driver's BTS hotplug paths are bts_hotplug's).
case $(uname -r) in
6.12.*) ;;
*) echo "SKIP: runs on 6.12"; exit 77 ;;
esac
[ -w /sys/devices/system/cpu/cpu1/online ] || { echo "SKIP: CPU 1 cannot go offline"; exit 77; }
OUT=/tmp/bts_record_hotplug.$$
ON=/sys/devices/system/cpu/cpu1/online

# hp_run MODE HOTPLUG(0|1): one recording of a 1.2 s command (tracing
# runs once it has started: record starts the devices before the
# command's first instruction).
hp_run() {
	d=$OUT.$1.$2
	rm -f "$d.go"
	"$PT" record --bts -k -m "$1" -C 1 -o "$d" -- sh -c "touch $d.go; sleep 1.2" >"$d.log" 2>&1 &
	r=$!
	if [ "$2" = 1 ] && ! why=$(cpu1_bounce "$d.go"); then
		bad "$1: $why"
	fi
	wait $r
	rc=$?
	[ $rc = 0 ] || bad "$1/$2: record exit $rc: $(tail -n 3 "$d.log")"
	size=$(wc -c <"$d/cpu1.bts" 2>/dev/null || echo x)
	[ "$size" != x ] && [ $((size % 24)) = 0 ] || bad "$1/$2: cpu1.bts has $size bytes"
	w=$(grep -c "cpu 1: the driver stopped BTS before the end" "$d.log")
	s=$(sed -n 's/^bts\.cpu1\.stopped=//p' "$d/sideband.txt" 2>/dev/null)
	again=$(grep -c "cpu 1: BTS traced again" "$d.log")
	rs=$(sed -n 's/^bts\.cpu1\.restarts=//p' "$d/sideband.txt" 2>/dev/null)
	# loss SEQ POS OFFSET ...: where the second run begins in cpu1.bts
	at=$(awk '$1 == "loss" && $NF ~ /restart/ { print $4 }' "$d/cpu1.bts.loss" 2>/dev/null | head -n 1)
	echo "  $1, hotplug $2: warning $w, stopped '$s', again $again, restarts '$rs', restart at ${at:--} of $size bytes, $((size / 24)) records; $(grep '^cpu 1:' "$d.log" | tr '\n' ' ')"
	[ "$w" = 0 ] && [ -z "$s" ] || bad "$1/$2: warning $w, sideband stopped '$s': $(cat "$d.log")"
	if [ "$2" = 1 ]; then
		[ "$again" = 1 ] && [ "$rs" = 1 ] || bad "$1: BTS not started again: $(cat "$d.log")"
		[ -n "$at" ] && [ "$at" -gt 0 ] && [ "$at" -lt "$size" ] && [ $((at % 24)) = 0 ] ||
			bad "$1: the restart record at '${at:-none}' of $size bytes: $(cat "$d/cpu1.bts.loss" 2>&1 | head -n 6)"
		# decode names the gap where it lies
		g=$("$PT" decode "$d/cpu1.bts" 2>/dev/null | grep -c 'not traced for .* ms: CPU offline or a suspend, BTS started again')
		[ "$g" = 1 ] || bad "$1: decode shows $g restart gaps"
	else
		[ "$again" = 0 ] && [ -z "$rs" ] || bad "$1: no hotplug, yet a restart"
		[ "$1" = stream ] || [ ! -e "$d/cpu1.bts.loss" ] || bad "flight: a cpu1.bts.loss without a gap"
	fi
}
hp_run flight 0
hp_run flight 1
hp_run stream 1
echo 1 >"$ON"
[ $fail = 1 ] || rm -rf "$OUT".*
exit $fail
