# SPDX-License-Identifier: GPL-2.0
# The exact_* tests of programs with several tasks (threads, children),
# sourced after exact_lib.sh (busybox sh): record a program of /ptt/work
# as a user does ('pt-trace record -u -- PROG': followed on every CPU,
# stream mode, not pinned), merge the model's ground truth of all CPUs by
# TSC and compare each thread's decoded flow with it.
#
# exact_follow PROG [RECORD-OPTIONS...] sets D (its directory, $OUT/PROG
# or $OUT/$EXACT_NAME, with rec/, all = every truth instruction line
# merged by TSC) and PID (the program's pid, from the sideband); PROG
# is a name in /ptt/work or a path (then named by its last part), run
# with the arguments in $EXACT_ARGS; its output must have a line that
# matches $EXACT_END (default: one starting with its name);
# EXACT_AFTER_RECORD, if set, is evaluated once the recorder exited
# (e.g. to stop other processes); EXACT_NO_DECODE=1 leaves out the decode
# of all the traces (and $D/got) for a test that decodes thread by
# thread.  exact_thread TID WHAT compares one
# thread; exact_process PID WHAT decodes one process (decode --pid) and
# compares each of its threads; exact_thread_decode TID WHAT decodes one
# thread (decode --tid) and compares it.  exact_pids: the processes of
# the truth, one a line.

# exact_perf_parse < DECODE-OUTPUT: decode --format=perf as
# "PID TID TIME IP COMM" (IP as 16 hex digits, TIME zero-padded).
# (COMM PID/TID [CPU] SEC.NSEC: IP ...; the programs' comms have no
# blank)  In C (tests/vm/work/exact_perf_parse.c): the busybox awk it
# replaces took ~320 us a line under TCG, 8-15 s for exact_threads.
exact_perf_parse() {
	/ptt/work/exact_perf_parse
}

# exact_flow TID GOT: the IPs of thread TID in GOT (exact_perf_parse's
# lines) ordered by their time.
exact_flow() {
	grep "^[0-9][0-9]* $1 " "$2" | cut -d' ' -f3,4 | sort -s -k1,1 |
		cut -d' ' -f2
}

exact_follow() {
	local t0	# the caller's t0 (a test's own timer) stays
	prog=$1
	shift
	case $prog in
	/*) path=$prog prog=${prog##*/} ;;
	*) path=/ptt/work/$prog ;;
	esac
	[ -x "$path" ] || { exact_fail "$path missing from the initramfs"; return; }
	D=$OUT/${EXACT_NAME:-$prog}
	mkdir -p "$D"
	rm -f "$D/by_tid"
	exact_truth_start "$D"
	t0=$(exact_up)
	# shellcheck disable=SC2086
	if ! "$PT" record -u "$@" -o "$D/rec" -- "$path" $EXACT_ARGS >"$D/rec.out" 2>&1; then
		cat "$D/rec.out"
		exact_fail "$prog: record exited non-zero"
	fi
	grep -q "${EXACT_END:-^$prog }" "$D/rec.out" ||
		exact_fail "$prog did not run to its end: $(tail -n 5 "$D/rec.out")"
	ti="record $(exact_since "$t0") s"
	t0=$(exact_up)
	# What the test runs beside the program is done with.
	[ -z "$EXACT_AFTER_RECORD" ] || eval "$EXACT_AFTER_RECORD"
	exact_truth "$D"
	PID=$(sed -n 's/^pid=//p' "$D/rec/sideband.txt")
	[ -n "$PID" ] || exact_fail "$prog: no pid= in the sideband"
	# Instruction lines of every CPU, by TSC (the CPUs' TSCs agree).
	/ptt/work/exact_truth_read -m "$D" >"$D/all" || exact_fail "$prog: cannot merge the truth"
	ti="$ti, truth $(exact_since "$t0") s"
	# EXACT_NO_DECODE=1: the test decodes each thread on its own.
	if [ -n "$EXACT_NO_DECODE" ]; then
		echo "PTT-INFO $prog: $ti"
		return 0
	fi
	t0=$(exact_up)
	# One decode with perf's columns: each instruction's task and time.
	"$PT" decode --format=perf "$D"/rec/cpu*.pt >"$D/perf" 2>"$D/dec.err" ||
		exact_fail "$prog: decode exited $?: $(head -n 5 "$D/dec.err")"
	ti="$ti, decode $(exact_since "$t0") s"
	t0=$(exact_up)
	exact_perf_parse <"$D/perf" >"$D/got" || exact_fail "$prog: cannot parse the decode (/tmp full?)"
	echo "PTT-INFO $prog: $ti, parse $(exact_since "$t0") s"
	sed "s/^/$prog decode: /" "$D/dec.err" | head -n 5
	# Everything decoded is some traced task's instruction: as many.
	w=$(wc -l <"$D/all") g=$(wc -l <"$D/got")
	echo "PTT-INFO $prog: truth $w instructions on $(ls "$D"/truth.* | wc -l) CPUs, decoded $g"
	[ "$w" = "$g" ] || exact_fail "$prog: decoded $g instructions, the truth has $w"
}

exact_pids() {
	cut -d' ' -f3 "$D/all" | sort -u
}

# exact_by_tid: once per $D/all (and $D/got when there is one), each
# thread's truth IPs in $D/want.TID and CPUs in $D/cpus.TID, and its
# decoded IPs by time in $D/got.TID: one pass of
# /ptt/work/exact_split (tests/vm/work/exact_split.c) a file, not a
# grep, cut and sort of the whole files per thread (under TCG that was
# most of exact_threads' time: ~2 G instructions of busybox).  The
# thread's lines of got sorted by time stably are its lines of the whole
# got sorted so.  exact_follow starts it anew.
exact_by_tid() {
	[ ! -e "$D/by_tid" ] || return 0
	/ptt/work/exact_split "$D/want" 4 6 <"$D/all"
	/ptt/work/exact_split "$D/cpus" 4 2 <"$D/all"
	[ ! -e "$D/got" ] || sort -s -k3,3 "$D/got" | /ptt/work/exact_split "$D/got" 2 4
	: >"$D/by_tid"
}

# exact_cpus TID: the CPU of each instruction of thread TID, in order.
exact_cpus() {
	exact_by_tid
	[ ! -e "$D/cpus.$1" ] || cat "$D/cpus.$1"
}

# exact_tids PID: the threads of PID in the truth.
exact_tids() {
	grep "^[0-9][0-9]* [0-9][0-9]* $1 " "$D/all" | cut -d' ' -f4 | sort -u
}

# exact_decoded_pids: the processes the decoder named, one a line.
exact_decoded_pids() {
	cut -d' ' -f1 "$D/got" | sort -u
}

# exact_thread TID WHAT: the thread's decoded flow (its instructions in
# the decode of all the CPUs' traces, ordered by their time) must be its
# truth.
exact_thread() {
	exact_by_tid
	touch "$D/want.$1" "$D/got.$1"	# none: empty
	exact_compare "$D/want.$1" "$D/got.$1" "$2 (tid $1)"
	echo "PTT-INFO $2 (tid $1): CPUs $(exact_cpus "$1" | sort -u | tr '\n' ' ')"
}

# exact_decode_only pid|tid ID WHAT COL: decode only that process or
# thread (decode --pid/--tid ID, all the CPUs' traces) into
# $D/got.pID or $D/got.tID (exact_perf_parse's lines), whose column COL
# (1: pid, 2: tid) must name ID alone.  Its variables are xo_*: callers
# count in theirs.
exact_decode_only() {
	xo_k=$(echo "$1" | cut -c1)
	xo_f=$D/got.$xo_k$2
	"$PT" decode --"$1" "$2" --format=perf "$D"/rec/cpu*.pt >"$D/perf.$xo_k$2" 2>"$D/dec.$xo_k$2.err" ||
		exact_fail "$3: decode --$1 $2 exited $?: $(head -n 5 "$D/dec.$xo_k$2.err")"
	exact_perf_parse <"$D/perf.$xo_k$2" >"$xo_f"
	xo_n=$(cut -d' ' -f"$4" "$xo_f" | sort -u | tr '\n' ' ')
	[ "$xo_n" = "$2 " ] || exact_fail "$3: decode --$1 $2 named the ${1}s $xo_n"
}

# exact_process PID WHAT: decode only process PID (decode --pid, all the
# CPUs' traces) into $D/got.pPID; each of its threads in the truth must
# be that decode's flow of the thread, and the decode must name no
# other process.
exact_process() {
	exact_decode_only pid "$1" "$2" 1
	for t in $(exact_tids "$1"); do
		exact_ips "$D/all" "$t" >"$D/want.p$1.$t"
		exact_flow "$t" "$D/got.p$1" >"$D/got.p$1.$t"
		exact_compare "$D/want.p$1.$t" "$D/got.p$1.$t" "$2 (decode --pid $1, tid $t)"
	done
}

# exact_thread_decode TID WHAT: decode only thread TID (decode --tid,
# all the CPUs' traces) into $D/got.tTID: it must name that thread alone
# and its flow must be the thread's truth.
exact_thread_decode() {
	exact_decode_only tid "$1" "$2" 2
	exact_ips "$D/all" "$1" >"$D/want.t$1"
	exact_flow "$1" "$D/got.t$1" >"$D/flow.t$1"
	exact_compare "$D/want.t$1" "$D/flow.t$1" "$2 (decode --tid $1)"
}
