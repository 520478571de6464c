#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ptt-timeout: 60 (single-stepping under TCG)
# 'pt-trace record -u -p PID --no-inherit' of a running process (issue
# 13), checked against the exact model's ground truth (model_exact=1):
# /ptt/work/exact_nolibc_fork 1000 sleeps 1 s, then forks a child that
# execs, waits for it and exits.  It is held (SIGSTOP) until the recorder
# traces: the truth has that process only (its later child, not
# inherited, never runs with the model's TF), the decode of every CPU's trace names only it, and its
# decoded flow is exactly its truth, from where SIGCONT resumes it (in
# the sleep, or in the shell's child before its exec) to its exit.  The
# recorder ends by itself when the process has exited.
#
# Exit 0 pass, 77 skip, 1 fail.

[ "$PTT_PROFILE" = icl ] || { echo "SKIP: follow_pid_exact runs on icl (exact model)"; exit 77; }
# Not on the debug kernel (lockdep, KASAN): it passed there in 35 s on a
# loaded machine, too much of make check's budget; follow_pid runs there.
[ ! -e /proc/lockdep ] || { echo "SKIP: not on the debug kernel (time budget)"; exit 77; }
. /ptt/work/exact_lib.sh
. /ptt/work/exact_tasks.sh

prog=exact_nolibc_fork
D=$OUT/pid
mkdir -p "$D"
exact_drain
"/ptt/work/$prog" 1000 >"$D/prog.out" 2>&1 &
PID=$!
# Held until the recorder has opened the PT devices (/dev/ptN), then a
# second more for it to start following.
kill -STOP "$PID"
"$PT" record -u -p "$PID" --no-inherit -o "$D/rec" >"$D/rec.out" 2>&1 &
rp=$!
i=0
while ! ls -l /proc/$rp/fd 2>/dev/null | grep -q '/dev/pt[0-9]' &&
      [ $i -lt 100 ] && kill -0 $rp 2>/dev/null; do
	sleep 0.1
	i=$((i + 1))
done
echo "PTT-INFO the recorder opened the devices after $i x 0.1 s"
sleep 1
kill -CONT "$PID"
wait "$PID" || exact_fail "$prog exited $?"
grep -q "^$prog done" "$D/prog.out" || exact_fail "$prog did not run to its end: $(cat "$D/prog.out")"
# record -p ends by itself once the process has exited (within 0.1 s of
# its exit; follow_pid_end checks that): no Ctrl-C.
if ! wait $rp; then
	cat "$D/rec.out"
	exact_fail "record -p $PID --no-inherit exited non-zero"
fi
exact_truth "$D"
cat "$D"/truth.* | awk '$1 != "#"' | sort -s -n -k1,1 >"$D/all"
"$PT" decode --format=perf "$D"/rec/cpu*.pt >"$D/perf" 2>"$D/dec.err" ||
	exact_fail "decode exited $?: $(head -n 5 "$D/dec.err")"
exact_perf_parse <"$D/perf" >"$D/got"
sed "s/^/decode: /" "$D/dec.err" | head -n 5
p=$(exact_pids | tr '\n' ' ')
[ "$p" = "$PID " ] || exact_fail "processes in the truth: $p(want only $PID)"
p=$(exact_decoded_pids | tr '\n' ' ')
[ "$p" = "$PID " ] || exact_fail "processes in the decode: $p(want only $PID)"
w=$(wc -l <"$D/all")
[ "$w" -gt 100 ] || exact_fail "the truth has $w instructions: attached after the work?"
exact_thread "$PID" "-p --no-inherit"
exact_finish
