#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ptt-timeout: 120 (single-stepping under TCG)
# Streaming in the exact model, the stepped program preempted in user
# code many times between two PMIs: the program without libc of
# exact_filter (/ptt/work/exact_nolibc, 2 rounds of 1000 calls through
# function pointers, no sleep) recorded with 'pt-trace record -u -m
# stream' into an 8 KiB ring (a PMI every 4 KiB region) by a recorder
# pinned to the same CPU that drains every millisecond, so it preempts
# the program at every drain and each switch-in's timing packets are a
# good part of the trace.  A PMI raised by them comes inside the switch,
# before the program is back in user code, with current still the task
# switched out: its restart (TraceEn 0 -> 1 in NMI) must leave where
# the program enters user code as it was.  Before, the model forgot it
# (the next TIP.PGE at IP 0, a decode error) or armed the task switched
# out (TIP.PGE at its IP).  The decoded IPs must be the truth exactly,
# with no loss.
#
# Exit 0 pass, 77 skip, 1 fail.

[ "$PTT_PROFILE" = icl ] || { echo "SKIP: exact_stream_preempt runs on icl"; exit 77; }
# About 20 s on 6.12 (32,000 steps, 1,600 switches); the model's logic
# is the same on every kernel: 6.12 only, for make check's budget.
case $(uname -r) in
6.12.*) ;;
*) echo "SKIP: on 6.12 only (time budget)"; exit 77 ;;
esac
. /ptt/work/exact_lib.sh

prog=exact_nolibc
EXACT_ARGS="2 1000 0"
if exact_rec $prog preempt -m stream -b 8K --drain-interval 1; then
	grep -q "^$prog " "$d/rec.out" || exact_fail "$prog did not run to its end: $(cat "$d/rec.out")"
	# shellcheck disable=SC2046
	set -- $("$PT" dump -s "$d/rec/cpu0.pt" | awk -F': ' '
		$1 == "loss records" { n = $2 }
		END { print n + 0 }')
	[ "$1" = 0 ] || exact_fail "preempt: $1 loss records (the reader drains every ms)"
	pge=$("$PT" dump -s "$d/rec/cpu0.pt" | awk '$1 == "tip.pge" { print $2 }')
	echo "PTT-INFO preempt: $pge TIP.PGE (switch-ins and PMI restarts) in $(wc -c <"$d/rec/cpu0.pt") bytes"
	[ "${pge:-0}" -ge 100 ] || exact_fail "preempt: only ${pge:-0} TIP.PGE: the program was hardly preempted"
	exact_compare "$d/truth" "$d/got" "$prog preempted"
fi
exact_finish
