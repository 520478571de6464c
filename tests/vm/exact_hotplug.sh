#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ptt-timeout: 90 (single-stepping under TCG)
# A followed program stepped by the exact model while a CPU goes offline
# and comes back (issue 12: stepping re-armed "where the kernel clears it
# or a task starts: ... migration to another CPU, CPU offline"; issue 13:
# "correct with CPU hotplug"): 'pt-trace record -u -- follow_nolibc_balance'
# (three busy threads, followed; stream mode, then flight) while a shell loop beside
# it takes CPU 1 offline and online again twice (0.3 s each way), which
# moves every thread on CPU 1 to CPU 0 and, once back, lets the balancer
# move some back.  The driver stops CPU 1's trace at each offline and
# leaves it stopped (abi.rst, "CPU hotplug"): the recorder must START it
# again when the CPU is back, append the new run to cpu1.pt and write a
# loss record for the gap (tools.rst, "CPU hotplug").  Required: the
# truth has only the program's three threads; one decode of all the
# CPUs' traces has each thread's flow, by time, exactly its truth; CPU 1
# went offline at least once while the program ran; cpu1.loss has a
# 'restart' record for it, which 'dump --loss' shows; and CPU 1 traced
# the program again after the last restart (its truth, which the model
# writes only while CPU 1 traces, goes on after that record's end TSC).
# Before the recorder restarted CPUs, CPU 1's truth and trace ended at
# the first offline and cpu1.loss was empty.
#
# Exit 0 pass, 77 skip, 1 fail.

[ "$PTT_PROFILE" = icl ] || { echo "SKIP: exact_hotplug runs on icl (exact model)"; exit 77; }
ON=/sys/devices/system/cpu/cpu1/online
[ -w "$ON" ] || { echo "SKIP: CPU 1 cannot go offline here"; exit 77; }
. /ptt/work/exact_lib.sh
. /ptt/work/exact_tasks.sh

prog=follow_nolibc_balance
OFFS=/tmp/exact_hotplug.offs
# The loop starts once the program runs: record STARTs every CPU after
# the command's exec and before it lets it go on (ptrace stop 't'); a
# CPU offline at that START fails the recording (make check saw it when
# the first offline came before a slow START).
plug='i=0
while [ $i -lt 400 ]; do
	p=$(grep -ls "^follow_nolibc_b" /proc/[0-9]*/comm | head -n 1)
	s=
	[ -z "$p" ] || s=$(cut -d" " -f3 "${p%/comm}/stat" 2>/dev/null)
	[ -z "$s" ] || [ "$s" = t ] || break
	i=$((i + 1))
	sleep 0.05
done
sleep 0.3; n=0
while [ $n -lt 2 ]; do
	echo 0 >'"$ON"' || exit 1
	n=$((n + 1))
	echo $n >'"$OFFS"'
	sleep 0.3
	echo 1 >'"$ON"' || exit 1
	sleep 0.3
done'
# By time only (no thread sees 1000 moves): the program runs on after
# the last online, so the balancer puts a thread back on CPU 1.
EXACT_ARGS="2500 1000"

# hotplug_run MODE: record in MODE (stream, the default with a command,
# or flight, whose 4 MiB buffer holds the whole run) with CPU 1 going
# offline twice, and check.
hotplug_run() {
	mode=$1
	EXACT_NAME=$prog.$mode
	rm -f "$OFFS"
	sh -c "$plug" &
	h=$!
	EXACT_AFTER_RECORD="wait $h 2>/dev/null; echo 1 >$ON"
	exact_follow "$prog" -m "$mode" -b 4M
	echo 1 >"$ON"
	offs=$(cat "$OFFS" 2>/dev/null || echo 0)
	pids=$(exact_pids | tr '\n' ' ')
	[ "$pids" = "$PID " ] || exact_fail "$mode: processes in the truth: $pids(want only $PID)"
	exact_threads_all "$mode: $prog"
	[ "$et_threads" = 3 ] || exact_fail "$mode: $et_threads threads in the truth, the program has 3"
	echo "PTT-INFO $mode: CPU 1 offline $offs times; $et_moves moves in the truth; the program saw: $(grep "^$prog " "$D/rec.out")"
	[ "$offs" -ge 1 ] || exact_fail "$mode: CPU 1 never went offline while the program ran"
	grep '^cpu 1: ' "$D/rec.out" | sed "s/^/PTT-INFO $mode: record: /"
	L=$D/rec/cpu1.loss
	[ ! -f "$L" ] || sed "s/^/PTT-INFO $mode: cpu1.loss: /" "$L"
	r=$(grep -c '^loss .*restart' "$L" 2>/dev/null)
	echo "PTT-INFO $mode: ${r:-0} restart records in cpu1.loss"
	[ "${r:-0}" -ge 1 ] || exact_fail "$mode: no restart record in cpu1.loss: CPU 1's trace was not started again"
	d=$("$PT" dump --loss "$D/rec/cpu1.pt" 2>&1 | grep -c 'loss: .*restart')
	[ "$d" = "${r:-0}" ] || exact_fail "$mode: dump --loss shows $d restart records, cpu1.loss has ${r:-0}"
	# The last restart's end TSC against CPU 1's last truth instruction.
	e=$(grep '^loss .*restart' "$L" 2>/dev/null | tail -n 1 | cut -d' ' -f9)
	last=$(grep -v '^#' "$D/truth.1" | tail -n 1 | cut -d' ' -f1)
	echo "PTT-INFO $mode: last restart at tsc ${e:-none}, CPU 1's last truth instruction at tsc ${last:-none}"
	[ -n "$e" ] && [ -n "$last" ] && awk -v a="$last" -v b="$e" 'BEGIN { exit !(a + 0 > b + 0) }' ||
		exact_fail "$mode: no instruction traced on CPU 1 after its last restart (the program did not run there again?)"
}

hotplug_run stream
# Flight mode on 6.12 only: make check's time budget (both modes take
# 20 s on 6.1 there).
case $(uname -r) in
6.1.*) ;;
*) hotplug_run flight ;;
esac
exact_finish
