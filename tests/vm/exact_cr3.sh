#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ptt-timeout: 120 (single-stepping under TCG)
# The CR3 filter in the exact model (model_exact=1): the program without
# libc of exact_filter (/ptt/work/exact_nolibc) recorded with 'pt-trace
# record -u --cr3-filter' (the driver's CR3 filter on its address space,
# PT_CR3_BY_PID, instead of following it: tracing stays on on cpu0
# whoever runs) while a shell loop (busy a few ms every 50 ms) and the
# recorder run on cpu0 too.  The decode must be exactly the truth of the
# program, the truth must hold no instruction of another process and one
# CR3 only, and the busy loop must have run meanwhile.
#
# Exit 0 pass, 77 skip, 1 fail.

# bdw and icl have the CR3 filter; the exact model is tested on icl.
[ "$PTT_PROFILE" = icl ] || { echo "SKIP: exact_cr3 runs on icl"; exit 77; }
. /ptt/work/exact_lib.sh

prog=exact_nolibc
# Busy a few ms every 50 ms: it runs (its utime grows) beside the
# stepped program without doubling the test's time.
taskset -c 0 sh -c 'while :; do i=0; while [ $i -lt 300 ]; do i=$((i + 1)); done; sleep 0.05; done' &
spin=$!
utime() {
	awk '{ print $14 }' "/proc/$spin/stat"
}
u0=$(utime)
exact_rec $prog cr3 --cr3-filter
u1=$(utime)
kill $spin
wait $spin 2>/dev/null
if [ -n "$pid" ]; then
	grep -q "^$prog " "$d/rec.out" || exact_fail "$prog did not run to its end: $(cat "$d/rec.out")"
	grep -qi "warn" "$d/rec.out" && sed 's/^/record: /' "$d/rec.out" | head -n 5
	exact_compare "$d/truth" "$d/got" "cr3 filter"
	others=$(awk -v p="$pid" '$1 != "#" && $3 != p' "$d"/truth.* | wc -l)
	cr3s=$(awk -v p="$pid" '$1 != "#" { print $5 }' "$d"/truth.* | sort -u | wc -l)
	echo "PTT-INFO cr3 filter: $others instructions of other processes, $cr3s CR3s, the busy loop ran $((u1 - u0)) ticks"
	[ "$others" = 0 ] || exact_fail "cr3 filter: $others instructions of other processes stepped"
	[ "$cr3s" = 1 ] || exact_fail "cr3 filter: $cr3s CR3 values in the truth"
	[ $((u1 - u0)) -gt 0 ] || exact_fail "cr3 filter: the busy loop did not run during the recording"
fi
exact_finish
