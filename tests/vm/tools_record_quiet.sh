#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ptt-timeout: 60
# The recorder sleeps while the command it traces needs nothing from it
# (6f88222): 'pt-trace record -- COMMAND' waits in ppoll() for SIGCHLD,
# the devices, the perf sideband's rings or the next thing due (at most
# 100 ms), where it used to wake every 2 ms to look for the command's
# ptrace stops, each wakeup preempting the traced program on its CPU.
#
# The command writes its pid to a file, then sleeps until the test
# kills it: nothing to trace, nothing to drain, no ptrace stop.  The
# recorder's own voluntary context switches (/proc/PID/status: one per
# sleep) over 0.8 s of that must stay at most QUIET_MAX a second (the
# recorder still running at the end): the 100 ms cap makes ~10,
# the old 2 ms loop up to 500 (213-340 measured on 6.12 under TCG,
# whose timers are late).  Stream mode (polls the devices for POLLIN)
# and flight mode (the default), user space only (-u: no kernel text
# to copy) into 64 KiB: about 2 s each.  icl only: the loop is the
# tool's, the same on every profile.  Not on the debug kernel, where
# each recording's start and end take 5-6 s (13 s in all; it passed
# there, 10/s and 8/s): the loop does not depend on the kernel.
#
# Exit 0 pass, 77 skip, 1 fail.

[ "$PTT_PROFILE" = icl ] || { echo "SKIP: tools_record_quiet runs on icl"; exit 77; }
if [ -e /proc/lockdep ]; then
	echo "SKIP: not on the debug kernel (time budget; the loop is the tool's)"
	exit 77
fi
. /ptt/work/pt_trace_lib.sh
pt_trace_require

QUIET_MAX=40
OUT=/tmp/tools_record_quiet.$$
fail=0
bad() {
	echo "FAIL: $*"
	fail=1
}
rm -rf "$OUT"
mkdir -p "$OUT"

# centiseconds since boot
now_cs() { awk '{ printf "%d\n", $1 * 100 }' /proc/uptime; }
vcsw() { sed -n 's/^voluntary_ctxt_switches:[[:space:]]*//p' "/proc/$1/status"; }

quiet() {
	mode=$1
	start=$(now_cs)
	"$PT" record -m "$mode" -u -b 64K -o "$OUT/$mode" -- \
		sh -c "echo \$\$ >$OUT/$mode.go; exec sleep 30" 2>"$OUT/$mode.err" &
	rec=$!
	i=0
	while [ ! -s "$OUT/$mode.go" ] && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	cmd=$(cat "$OUT/$mode.go" 2>/dev/null)
	[ -n "$cmd" ] || { bad "$mode: the command did not start in 10 s"; kill $rec; wait $rec; return; }
	# past the exec's ptrace stop and the recorder's look at the new map
	sleep 0.2
	t0=$(now_cs) v0=$(vcsw $rec)
	sleep 0.8
	t1=$(now_cs) v1=$(vcsw $rec)
	# the command (sleep, the shell's pid after its exec) ends the recording
	kill "$cmd"
	wait $rec
	rc=$?
	[ $rc = 0 ] || { sed "s/^/$mode: /" "$OUT/$mode.err"; bad "$mode: record exited $rc"; }
	if [ -z "$v0" ] || [ -z "$v1" ]; then
		bad "$mode: no voluntary_ctxt_switches for the recorder ($v0, $v1)"
		return
	fi
	dt=$((t1 - t0))
	[ $dt -gt 0 ] || dt=1
	rate=$(((v1 - v0) * 100 / dt))
	echo "PTT-INFO $mode: the recorder slept $((v1 - v0)) times in $dt cs: $rate/s (record took $(($(now_cs) - start)) cs)"
	[ $rate -le $QUIET_MAX ] ||
		bad "$mode: the recorder woke $rate times a second while the command slept (at most $QUIET_MAX)"
}

quiet stream
quiet flight

rm -rf "$OUT"
[ $fail = 0 ] && echo PASS
exit $fail
