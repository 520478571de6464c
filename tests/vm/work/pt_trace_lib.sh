# SPDX-License-Identifier: GPL-2.0
# Sourced by the shell tests (busybox sh) that run the pt-trace tool:
# sets PT to the binary, found on PATH, in $PT_TRACE, in /ptt/bin (where
# the VM installs tools/build/*) or in the tree's tools/build, in that
# order; empty when there is none.  pt_trace_require skips the test then.

PT=$(command -v pt-trace)
for p in "$PT_TRACE" /ptt/bin/pt-trace ./tools/build/pt-trace; do
	[ -z "$PT" ] && [ -n "$p" ] && [ -x "$p" ] && PT=$p
done

pt_trace_require() {
	[ -n "$PT" ] && return 0
	echo "SKIP: pt-trace not found (PATH=$PATH; the VM installs tools/build/* in /ptt/bin)"
	exit 77
}

# cpu1_bounce GOFILE [WHILE_OFF]: once GOFILE exists (a command that
# pt-trace record runs touched it: the devices are started before its
# first instruction), CPU 1 offline for 0.3 s and online again; the
# shell function WHILE_OFF, if given, runs right after the offline.
# Prints what went wrong (one line each) and returns 1 then.
cpu1_bounce() {
	cb_on=/sys/devices/system/cpu/cpu1/online cb_i=0 cb_rc=0
	while [ ! -e "$1" ] && [ $cb_i -lt 500 ]; do
		sleep 0.02
		cb_i=$((cb_i + 1))
	done
	[ -e "$1" ] || { echo "the command did not start"; cb_rc=1; }
	sleep 0.2
	echo 0 >"$cb_on" || { echo "CPU 1 did not go offline"; cb_rc=1; }
	[ -z "${2:-}" ] || "$2"
	sleep 0.3
	echo 1 >"$cb_on" || { echo "CPU 1 did not come back"; cb_rc=1; }
	return $cb_rc
}
