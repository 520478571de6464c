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
#
# Under TCG the text processing of a whole file is slow in busybox (sort
# of 200,000 lines: most of a 24 s test), so every pass over $D/all or a
# decode is one of /ptt/work/exact_split (tests/vm/work/exact_split.c)
# writing per-thread files, and the shell reads those small files.

# exact_perf_parse < DECODE-OUTPUT: decode --format=perf as
# "PID TID TIME IP COMM" (IP as 16 hex digits, TIME zero-padded).
# (COMM PID/TID [CPU] SEC.NSEC: IP ...; the programs' comms have no
# blank)  In C (tests/vm/work/exact_perf_parse.c): the busybox awk it
# replaces took ~320 us a line under TCG, 8-15 s for exact_threads.
exact_perf_parse() {
	/ptt/work/exact_perf_parse
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

# exact_by_tid: once per $D/all (and $D/got when there is one), in one
# pass of /ptt/work/exact_split a file: each thread's truth IPs in
# $D/want.TID (exact_ips of it), the CPUs of its stretches in
# $D/cpus.TID (a CPU a stretch: 'uniq' of each instruction's CPU), its
# PIDs in $D/pids.TID, "TID STRETCHES" for each thread in
# $D/stretches (in the order first seen); its decoded IPs by time in
# $D/got.TID (its lines of got sorted by time stably are its lines of
# the whole got sorted so) and the PIDs decode gave it in $D/gpids.TID.
# Not a grep, cut and sort of the whole files per thread: under TCG that
# was most of the multi-thread tests' time (~2 G instructions of
# busybox).  exact_follow starts it anew.
exact_by_tid() {
	[ ! -e "$D/by_tid" ] || return 0
	/ptt/work/exact_split -u 2:"$D/cpus" -u 3:"$D/pids" "$D/want" 4 6 2 \
		<"$D/all" >"$D/stretches" || exact_fail "cannot split the truth (/tmp full?)"
	[ ! -e "$D/got" ] || /ptt/work/exact_split -s 3 -u 1:"$D/gpids" "$D/got" 2 4 <"$D/got" ||
		exact_fail "cannot split the decode (/tmp full?)"
	: >"$D/by_tid"
}

# exact_pids: the processes of the truth, one a line (sorted).
exact_pids() {
	exact_by_tid
	[ ! -s "$D/stretches" ] || cat "$D"/pids.* | sort -u
}

# exact_cpus TID: the CPU of each stretch of thread TID (its
# instructions by TSC on one CPU), in order: 'uniq' of the CPU of each
# of its instructions (and 'sort -u' of either is its CPUs).
exact_cpus() {
	exact_by_tid
	[ ! -e "$D/cpus.$1" ] || cat "$D/cpus.$1"
}

# exact_tids PID: the threads of PID in the truth (sorted).
exact_tids() {
	exact_by_tid
	[ ! -s "$D/stretches" ] || grep -l -x "$1" "$D"/pids.* | sed 's,.*/pids\.,,' | sort -u
}

# exact_decoded_pids: the processes the decoder named, one a line.
exact_decoded_pids() {
	exact_by_tid
	[ ! -s "$D/got" ] || cat "$D"/gpids.* | sort -u
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

# exact_threads_all WHAT: every thread of the truth's decoded flow must
# be its truth (as exact_thread, WHAT naming the program in failures);
# sets et_threads (the threads of the truth) and et_moves (their moves
# between CPUs: stretches after each thread's first).
exact_threads_all() {
	exact_by_tid
	et_threads=0 et_moves=0
	while read -r et_t et_s; do
		et_threads=$((et_threads + 1))
		et_moves=$((et_moves + et_s - 1))
		touch "$D/got.$et_t"
		exact_compare "$D/want.$et_t" "$D/got.$et_t" "$1 (tid $et_t, $et_s stretches)"
	done <"$D/stretches"
}

# exact_decode_only pid|tid ID WHAT COL: decode only that process or
# thread (decode --pid/--tid ID, all the CPUs' traces) into
# $D/got.pID or $D/got.tID (exact_perf_parse's lines), whose column COL
# (1: pid, 2: tid) must name ID alone; each thread's IPs in it by time
# in $D/got.pID.TID or $D/got.tID.TID (exact_split, as exact_by_tid).
# Its variables are xo_*: callers count in theirs.
exact_decode_only() {
	xo_k=$(echo "$1" | cut -c1)
	xo_f=$D/got.$xo_k$2
	"$PT" decode --"$1" "$2" --format=perf "$D"/rec/cpu*.pt >"$D/perf.$xo_k$2" 2>"$D/dec.$xo_k$2.err" ||
		exact_fail "$3: decode --$1 $2 exited $?: $(head -n 5 "$D/dec.$xo_k$2.err")"
	exact_perf_parse <"$D/perf.$xo_k$2" >"$xo_f"
	/ptt/work/exact_split -s 3 -u "$4":"$xo_f.n" "$xo_f" 2 4 <"$xo_f" ||
		exact_fail "$3: cannot split the decode (/tmp full?)"
	xo_n=
	[ ! -s "$xo_f" ] || xo_n=$(cat "$xo_f".n.* | sort -u | tr '\n' ' ')
	[ "$xo_n" = "$2 " ] || exact_fail "$3: decode --$1 $2 named the ${1}s $xo_n"
}

# exact_process PID WHAT: decode only process PID (decode --pid, all the
# CPUs' traces) into $D/got.pPID; each of its threads in the truth must
# be that decode's flow of the thread, and the decode must name no
# other process.
exact_process() {
	exact_decode_only pid "$1" "$2" 1
	for t in $(exact_tids "$1"); do
		touch "$D/want.$t" "$D/got.p$1.$t"	# none: empty
		exact_compare "$D/want.$t" "$D/got.p$1.$t" "$2 (decode --pid $1, tid $t)"
	done
}

# exact_thread_decode TID WHAT: decode only thread TID (decode --tid,
# all the CPUs' traces) into $D/got.tTID: it must name that thread alone
# and its flow must be the thread's truth.
exact_thread_decode() {
	exact_decode_only tid "$1" "$2" 2
	exact_by_tid
	touch "$D/want.$1" "$D/got.t$1.$1"	# none: empty
	exact_compare "$D/want.$1" "$D/got.t$1.$1" "$2 (decode --tid $1)"
}
