# SPDX-License-Identifier: GPL-2.0
# The exact_* tests of programs with several tasks (threads, children),
# sourced after exact_lib.sh (busybox sh): record a program of /ptt/work
# as a user does ('pt-trace record -u -- PROG': followed on every CPU,
# stream mode, not pinned), merge the model's ground truth of all CPUs by
# TSC and compare each thread's decoded flow with it.
#
# exact_follow PROG [RECORD-OPTIONS...] sets D (its directory, with
# rec/, all = every truth instruction line merged by TSC) and PID (the
# program's pid, from the sideband); EXACT_AFTER_RECORD, if set, is
# evaluated once the recorder exited (e.g. to stop other processes).
# exact_thread TID WHAT compares one thread.  exact_pids: the processes
# of the truth, one a line.

exact_follow() {
	prog=$1
	shift
	[ -x "/ptt/work/$prog" ] || { exact_fail "/ptt/work/$prog missing from the initramfs"; return; }
	D=$OUT/$prog
	mkdir -p "$D"
	exact_drain
	t0=$(date +%s)
	if ! "$PT" record -u "$@" -o "$D/rec" -- "/ptt/work/$prog" >"$D/rec.out" 2>&1; then
		cat "$D/rec.out"
		exact_fail "$prog: record exited non-zero"
	fi
	grep -q "^$prog " "$D/rec.out" || exact_fail "$prog did not run to its end: $(cat "$D/rec.out")"
	tr=$(date +%s)
	# What the test runs beside the program is done with.
	[ -z "$EXACT_AFTER_RECORD" ] || eval "$EXACT_AFTER_RECORD"
	exact_truth "$D"
	PID=$(sed -n 's/^pid=//p' "$D/rec/sideband.txt")
	[ -n "$PID" ] || exact_fail "$prog: no pid= in the sideband"
	# Instruction lines of every CPU, by TSC (the CPUs' TSCs agree).
	cat "$D"/truth.* | awk '$1 != "#"' | sort -s -n -k1,1 >"$D/all"
	# One decode with perf's columns: each instruction's task and time.
	"$PT" decode --format=perf "$D"/rec/cpu*.pt >"$D/perf" 2>"$D/dec.err" ||
		exact_fail "$prog: decode exited $?: $(head -n 5 "$D/dec.err")"
	t1=$(date +%s)
	# "PID TID TIME IP" (IP as 16 hex digits, TIME zero-padded).
	# (COMM PID/TID [CPU] SEC.NSEC: IP ...; the programs' comms have no
	# blank)
	awk '$2 ~ /^[0-9]+\/[0-9]+$/ && $4 ~ /:$/ {
		split($2, w, "/")
		split(substr($4, 1, length($4) - 1), ts, ".")
		ip = sprintf("%16s", $5)
		gsub(/ /, "0", ip)
		printf "%d %d %012d.%s %s\n", w[1], w[2], ts[1], ts[2], ip
	}' "$D/perf" >"$D/got"
	t2=$(date +%s)
	echo "PTT-INFO $prog: record $((tr - t0)) s, decode $((t1 - tr)) s, parse $((t2 - t1)) s"
	sed "s/^/$prog decode: /" "$D/dec.err" | head -n 5
	# Everything decoded is some traced task's instruction: as many.
	w=$(wc -l <"$D/all") g=$(wc -l <"$D/got")
	echo "PTT-INFO $prog: truth $w instructions on $(ls "$D"/truth.* | wc -l) CPUs, decoded $g"
	[ "$w" = "$g" ] || exact_fail "$prog: decoded $g instructions, the truth has $w"
}

exact_pids() {
	awk '{ print $3 }' "$D/all" | sort -u
}

# exact_tids PID: the threads of PID in the truth.
exact_tids() {
	awk -v p="$1" '$3 == p { print $4 }' "$D/all" | sort -u
}

# exact_decoded_pids: the processes the decoder named, one a line.
exact_decoded_pids() {
	awk '{ print $1 }' "$D/got" | sort -u
}

# exact_thread TID WHAT: the thread's decoded flow (its instructions in
# the decode of all the CPUs' traces, ordered by their time) must be its
# truth.
exact_thread() {
	awk -v t="$1" '$4 == t { print $6 }' "$D/all" >"$D/want.$1"
	awk -v t="$1" '$2 == t { print $3, $4 }' "$D/got" | sort -s -k1,1 |
		awk '{ print $2 }' >"$D/got.$1"
	exact_compare "$D/want.$1" "$D/got.$1" "$2 (tid $1)"
	echo "PTT-INFO $2 (tid $1): CPUs $(awk -v t="$1" '$4 == t { print $2 }' "$D/all" | sort -u | tr '\n' ' ')"
}
