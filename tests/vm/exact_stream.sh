#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ptt-timeout: 120 (single-stepping under TCG)
# Streaming in the exact model (model_exact=1): the program without libc
# of exact_filter (/ptt/work/exact_nolibc) running 3 rounds of 1000 calls
# through function pointers (a dense trace: DisRETC=1, so each RET is a
# TIP too) with 0.8 s of sleep between them, recorded with 'pt-trace
# record -u -m stream' into an 8 KiB ring (the smallest that streams)
# drained every 0.7 s (a slow reader), with a PSB every 2 KiB, and the
# recorder stopped (SIGSTOP) from the program's first step until the
# ring is full (the trace stopped): a reader slow only by its period
# lost nothing where stepping was slow (a loaded machine, the debug
# kernel).  When the ring fills, the driver holds the trace off until
# the reader drains
# and the program runs unstepped meanwhile; after its sleep (longer than
# the reader's period) it is stepped again.  The recorder writes loss
# records and the model counts the bytes it could not write.  Then:
#  - the loss records' bytes are exactly the model's lost_bytes;
#  - 'decode --format=raw' (each stretch between two loss records decoded
#    on its own) gives stretches that are each an exact contiguous piece
#    of the model's truth, in order, with no decode error;
#  - instructions are missing only where a loss record is: a stretch not
#    preceded by one starts right after the previous one (the first at
#    the program's first instruction) and the last one ends at the
#    program's last instruction unless a loss record follows it.
#
# Exit 0 pass, 77 skip, 1 fail.

[ "$PTT_PROFILE" = icl ] || [ "$PTT_PROFILE" = bdw ] || { echo "SKIP: this exact_* test runs on icl and bdw (single-entry ToPA)"; exit 77; }
. /ptt/work/exact_lib.sh

prog=exact_nolibc
EXACT_ARGS="3 1000 800"
EXACT_NODECODE=1
LOST=/sys/kernel/debug/pt_trace/model/lost_bytes
l0=$(cat $LOST)
# cpu0's HW_STOP count (the driver's streaming counters).
exact_stops() {
	awk '$1 == "0" { print $4 }' /sys/kernel/debug/pt_trace/stream
}
# 1 when a CPU's stream is stalled now: its ring was full, the trace is
# held off until the reader drains (a gap open).
exact_stalled() {
	awk '$1 ~ /^[0-9]+$/ && $14 == 1 { s = 1 } END { print s + 0 }' \
		/sys/kernel/debug/pt_trace/stream
}
# exact_pause_reader PID: stop the recorder PID once the program is
# stepped, until the ring is full: the model lost bytes, or the trace
# stopped at the STOP (the bytes after it are lost only if the CPU
# generates any before the PMI clears TraceEn: none where the STOP
# region ends with the timing packets of a switch-in and the PMI comes
# before the task is back in user code; the recorder then waited 60 s
# while the program ran untraced to its end), or a stream is stalled:
# on the debug kernel the ring was once full before the recorder was
# stopped, the trace held off, nothing changed, and the program ran
# untraced to its end in the 60 s.  At most 60 s.
exact_pause_reader() {
	s0=$(exact_stat steps) i=0
	while [ "$(exact_stat steps)" = "$s0" ] && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -STOP "$1"
	st0=$(exact_stops) i=0
	while [ "$(cat $LOST)" = "$l0" ] && [ "$(exact_stops)" = "$st0" ] &&
	      [ "$(exact_stalled)" = 0 ] && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -CONT "$1"
	echo "PTT-INFO stream: recorder stopped for $((i / 10)).$((i % 10)) s, until the ring was full (model lost $(($(cat $LOST) - l0)) bytes, cpu0 stops $st0 -> $(exact_stops))"
}
EXACT_DURING=exact_pause_reader
if exact_rec $prog stream -m stream -b 8K --drain-interval 700 --psb-period 0 --no-ret-compression; then
	l1=$(cat $LOST)
	grep -q "^$prog " "$d/rec.out" || exact_fail "$prog did not run to its end: $(cat "$d/rec.out")"
	# shellcheck disable=SC2046
	set -- $("$PT" dump -s "$d/rec/cpu0.pt" | awk -F': ' '
		$1 == "loss records" { n = $2 } $1 == "lost bytes" { b = $2 }
		END { print n + 0, b + 0 }')
	echo "PTT-INFO stream: $1 loss records, $2 bytes lost; the model lost $((l1 - l0))"
	[ "$1" -gt 0 ] || exact_fail "stream: the slow reader lost nothing: no test of loss"
	[ "$2" = $((l1 - l0)) ] || exact_fail "stream: the loss records say $2 bytes, the model lost $((l1 - l0))"
	"$PT" decode --format=raw "$d/rec/cpu0.pt" >"$d/raw" 2>"$d/raw.err" ||
		exact_fail "stream: decode exited $?: $(head -n 5 "$d/raw.err")"
	res=$(awk -v tf="$d/truth" '
		function piece(  k, i, ok) {
			if (!m)
				return
			ns++
			for (k = pos + 1; k + m - 1 <= n; k++) {
				if (T[k] != S[1])
					continue
				ok = 1
				for (i = 2; i <= m && ok; i++)
					ok = T[k + i - 1] == S[i]
				if (ok)
					break
			}
			if (k + m - 1 > n) {
				printf "stretch %d (%d instructions from %s) is not in the truth after instruction %d\n", ns, m, S[1], pos
				bad++
			} else {
				if (!gap && k != pos + 1) {
					printf "stretch %d starts at instruction %d, after %d, with no loss record between\n", ns, k, pos
					bad++
				}
				if (k > pos + 1)
					missing += k - pos - 1
				pos = k + m - 1
			}
			m = 0
			gap = 0
		}
		BEGIN { while ((getline l < tf) > 0) T[++n] = l }
		/^\[end of trace\]/ { next }
		/^\[/ { if ($0 ~ /: loss: /) { piece(); gap = 1; loss++ } else { errs++; print } next }
		length($1) == 16 { S[++m] = $1 }
		END {
			piece()
			if (!gap && pos != n) {
				printf "the decode ends at instruction %d of %d, with no loss record after it\n", pos, n
				bad++
			}
			printf "RESULT %d stretches, %d loss lines, %d of %d instructions missing, %d errors, %d bad\n", ns, loss, missing + n - pos, n, errs, bad
		}' "$d/raw")
	echo "$res" | grep -v "^RESULT" | head -n 10
	echo "PTT-INFO stream: $(echo "$res" | sed -n 's/^RESULT //p')"
	echo "$res" | grep -q "^RESULT .* 0 errors, 0 bad" || exact_fail "stream: the stretches are not exact pieces of the truth"
	echo "$res" | grep -q "^RESULT 1 stretches" && exact_fail "stream: one stretch only"
fi
exact_finish
