#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ptt-timeout: 120 (single-stepping under TCG)
# record --filter SYMBOL -- COMMAND where SYMBOL is in a library COMMAND
# loads itself (dlopen), from a second thread while its first waits in
# pthread_join (/ptt/work/exact_dlopen: libipt.so.2's
# pt_library_version, called 3 times).  The recorder finds no such
# function at the exec stop nor in the start-up libraries, says it waits
# for COMMAND to load it, follows every thread's syscalls until the
# dlopen maps the library, programs the range and starts tracing there:
# 'decode --format=ip' must be exactly the instructions of the model's
# truth (all threads of the process) inside the range, with 3 entries.
# Then that function and libc's dlopen at once (one found at start, one
# later: the trace starts at the later).  Then the same function with
# COMMAND never loading it: exit status 1
# once COMMAND has run to its end, with a message that says so; with a
# COMMAND whose loader fails (a missing library): exit status 1 when it
# ends in ld.so; and with a static program (no loader): exit status 1 at
# its exec, the program killed before it ran.
#
# Exit 0 pass, 77 skip, 1 fail.

[ "$PTT_PROFILE" = icl ] || { echo "SKIP: exact_filter_dlopen runs on icl (address ranges)"; exit 77; }
# The recorder's logic, the same on every kernel: on Debian's 6.12 only
# (exact_filter, its encoder's side, runs on 6.1; make check's time
# budget).
case $(uname -r) in
6.12.*-amd64) ;;
*) echo "SKIP: on Debian's 6.12 only (time budget; the recorder is the same on every kernel)"; exit 77 ;;
esac
. /ptt/work/exact_lib.sh

prog=exact_dlopen
sym=pt_library_version

# rec_fails NAME WHAT PROG [ARGS]: 'record --filter $sym -- PROG ARGS'
# into $OUT/NAME (d) must exit 1 (WHAT says which case).
rec_fails() {
	d=$OUT/$1 what=$2
	shift 2
	mkdir -p "$d"
	taskset -c 0 "$PT" record -C 0 -u --filter $sym -o "$d/rec" -- "$@" >"$d/rec.out" 2>&1
	rc=$?
	echo "PTT-INFO $what: record exited $rc"
	[ $rc = 1 ] || exact_fail "record of $what exited $rc, not 1: $(cat "$d/rec.out")"
}

# 1. the function of a library loaded later
if exact_rec $prog dl --filter $sym; then
	grep -q "^$prog 3\$" "$d/rec.out" || exact_fail "$prog did not run to its end: $(cat "$d/rec.out")"
	grep -q "filter $sym: not in .*waiting for .* to load it (dlopen)" "$d/rec.out" ||
		exact_fail "the recorder did not say it waits for the dlopen: $(cat "$d/rec.out")"
	grep -q "filter $sym: in a library the command loaded (dlopen): tracing starts there" "$d/rec.out" ||
		exact_fail "the recorder did not say where it found $sym: $(cat "$d/rec.out")"
	# shellcheck disable=SC2046
	set -- $(sed -n "s/^filter=$sym 0x\([0-9a-f]*\) 0x\([0-9a-f]*\) .*/\1 \2/p" "$d/rec/sideband.txt")
	if [ -z "$2" ]; then
		exact_fail "no 'filter=$sym' range in the sideband"
	else
		A=$(printf '%016x' "0x$1") B=$(printf '%016x' "0x$2")
		exact_pid_ips "$d/truth.0" "$pid" |
			awk -v a="$A" -v b="$B" '{ ip = $1 ""; if (ip >= a "" && ip <= b "") print }' >"$d/want"
		exact_compare "$d/want" "$d/got" "filter $sym [$A,$B]"
		n=$(grep -c "^$A\$" "$d/got")
		echo "PTT-INFO $n entries into $sym"
		[ "$n" = 3 ] || exact_fail "$n entries into $sym decoded, not 3"
	fi
fi

# 2. two at once: libc's dlopen (a library the loader maps at start) and
#    the function of the library it loads: tracing starts when the last
#    is mapped (inside dlopen), and the decode is the truth in either
#    range (the way back through dlopen, then the 3 calls)
if exact_rec $prog two --filter dlopen --filter $sym; then
	grep -q "filter dlopen: in a library the loader mapped at start: tracing starts there" "$d/rec.out" ||
		exact_fail "two: the recorder did not find dlopen in libc at start: $(cat "$d/rec.out")"
	ranges=$(sed -n "s/^filter=\(dlopen\|$sym\) 0x\([0-9a-f]*\) 0x\([0-9a-f]*\) .*/\2 \3/p" "$d/rec/sideband.txt" |
		while read -r a b; do printf '%016x %016x ' "0x$a" "0x$b"; done)
	echo "PTT-INFO two: ranges $ranges"
	# shellcheck disable=SC2086
	set -- $ranges
	if [ $# != 4 ]; then
		exact_fail "two: not 2 filter ranges in the sideband: $ranges"
	else
		exact_pid_ips "$d/truth.0" "$pid" |
			awk -v a="$1" -v b="$2" -v c="$3" -v e="$4" '{ ip = $1 "";
				if ((ip >= a "" && ip <= b "") || (ip >= c "" && ip <= e "")) print }' >"$d/want"
		exact_compare "$d/want" "$d/got" "two ranges"
		S=$(printf '%016x' "0x$(sed -n "s/^filter=$sym 0x\([0-9a-f]*\) .*/\1/p" "$d/rec/sideband.txt")")
		n=$(grep -c "^$S\$" "$d/got")
		[ "$n" = 3 ] || exact_fail "two: $n entries into $sym decoded, not 3"
	fi
fi

# 3. --stop-at the dlopened function with --filter over libc's dlopen
#    (flight mode): the recorder sees the trace stopped there, and the
#    decode is the truth inside dlopen up to pt_library_version's first
#    instruction
if exact_rec $prog stop -b 1M --filter dlopen --stop-at $sym; then
	grep -q "the trace stopped at $sym on cpu 0" "$d/rec.out" ||
		exact_fail "stop: the recorder saw no Status.Stopped: $(cat "$d/rec.out")"
	# shellcheck disable=SC2046
	set -- $(sed -n "s/^filter=dlopen 0x\([0-9a-f]*\) 0x\([0-9a-f]*\) .*/\1 \2/p" "$d/rec/sideband.txt") \
		$(sed -n "s/^stop_at=$sym 0x\([0-9a-f]*\) .*/\1/p" "$d/rec/sideband.txt")
	if [ $# != 3 ]; then
		exact_fail "stop: no filter=dlopen and stop_at=$sym ranges in the sideband"
	else
		S=$(printf '%016x' "0x$3")
		exact_pid_ips "$d/truth.0" "$pid" >"$d/all"
		awk -v a="$(printf '%016x' "0x$1")" -v b="$(printf '%016x' "0x$2")" -v s="$S" '
				$1 "" == s "" { exit }
				{ ip = $1 ""; if (ip >= a "" && ip <= b "") print }' "$d/all" >"$d/want"
		grep -q "^$S\$" "$d/all" || exact_fail "stop: $sym never ran in the truth"
		exact_compare "$d/want" "$d/got" "stop at $sym, filter dlopen"
	fi
fi

# 4. never loaded: an error once the command has ended
rec_fails never "a function never loaded" /ptt/work/$prog noload
grep -q "^$prog 0\$" "$d/rec.out" || exact_fail "$prog noload did not run to its end: $(cat "$d/rec.out")"
grep -q "filter $sym: .* ended without loading a library with that function" "$d/rec.out" ||
	exact_fail "no message that the command ended without loading $sym: $(cat "$d/rec.out")"

# 5. COMMAND's loader fails (a library it needs is missing) and exits
#    before the start-up is over: an error that says so
rec_fails ldfail "a command whose loader fails" /ptt/work/exact_needs_missing
grep -q "libptt_missing.so" "$d/rec.out" || exact_fail "ld.so did not fail on the missing library: $(cat "$d/rec.out")"
grep -q "filter $sym: .* ended before its loader mapped a library with that function" "$d/rec.out" ||
	exact_fail "no message that the command ended in its loader's start-up: $(cat "$d/rec.out")"

# 6. a static program has no loader: the same is an error at its exec
rec_fails static "a static program without $sym" /ptt/work/exact_static
! grep -q "^exact_static " "$d/rec.out" || exact_fail "the static program ran: $(cat "$d/rec.out")"
grep -q "filter $sym: no such function in the executable mappings of .* (no loader: a static program" "$d/rec.out" ||
	exact_fail "no message that a static program has no loader: $(cat "$d/rec.out")"
exact_finish
