# SPDX-License-Identifier: GPL-2.0
# What the exact_* tests share (/ptt/work/exact_lib.sh, sourced, busybox
# sh): model_exact on,
# record a program of /ptt/work with pt-trace through the driver, read
# the model's ground truth and compare it with the decoded trace.
#
# The variables: PT (pt-trace), OUT (this test's files), EX (the exact
# model's debugfs), PARAM (model_exact).  exact_fail MSG, exact_finish.

PT=$(command -v pt-trace)
for p in "$PT_TRACE" /ptt/bin/pt-trace ./tools/build/pt-trace; do
	[ -z "$PT" ] && [ -n "$p" ] && [ -x "$p" ] && PT=$p
done
if [ -z "$PT" ]; then
	echo "SKIP: pt-trace not found"
	exit 77
fi
PARAM=/sys/module/pt_trace_model/parameters/model_exact
EX=/sys/kernel/debug/pt_trace/model/exact
OUT=${PTT_OUT:-/tmp}/exact.$$
exact_reader=
rm -rf "$OUT"
mkdir -p "$OUT"
exact_rc=0
exact_fail() {
	echo "FAIL: $*"
	exact_rc=1
}

[ -e "$PARAM" ] || { echo "FAIL: pt_trace_model has no model_exact parameter"; exit 1; }
# exact_up: seconds since boot, to 10 ms (the PTT-INFO times).
exact_up() {
	cut -d' ' -f1 /proc/uptime
}
# exact_since T0: the seconds since exact_up said T0.
exact_since() {
	awk -v t0="$1" -v t1="$(exact_up)" 'BEGIN { printf "%.1f", t1 - t0 }'
}
exact_old=$(cat "$PARAM")
exact_t0=$(exact_up)
echo 1 >"$PARAM" || { echo "FAIL: cannot set model_exact=1"; exit 1; }
echo "PTT-INFO model_exact=1 set in $(exact_since "$exact_t0") s"
[ -r "$EX/stats" ] || { echo "FAIL: no $EX/stats with model_exact=1"; exit 1; }

# exact_stat NAME: a counter of exact/stats.
exact_stat() {
	awk -v n="$1" '$1 == n { print $2 }' "$EX/stats"
}
# The counters are the module's (a profile's tests share it): this
# test's desyncs are those after this point.
exact_desync0=$(exact_stat desync)

# Drain what earlier runs left in the truth rings.
exact_drain() {
	for f in "$EX"/truth_cpu*; do
		cat "$f" >/dev/null
	done
}

# exact_truth_start DIR: drain the rings, then read them while the test
# records: /ptt/work/exact_truth_read (tests/vm/work/exact_truth_read.c)
# appends each CPU N's lines to DIR/truth.N every 20 ms, so a program
# of any length fits (a ring holds 2^18 lines, a few seconds of
# stepping; truth_lost counts what a full ring drops and exact_finish
# fails on it).  exact_truth DIR stops it.
exact_truth_start() {
	exact_drain
	rm -f "$1"/truth.*
	/ptt/work/exact_truth_read "$1" &
	exact_reader=$!
}

# exact_truth DIR: DIR/truth.N for each CPU N, complete (the rings,
# consumed): the reader exact_truth_start started reads them to their
# end and stops, or, without one, they are read now.
exact_truth() {
	if [ -n "$exact_reader" ]; then
		kill -TERM "$exact_reader"
		wait "$exact_reader" || exact_fail "the truth reader exited $?"
		exact_reader=
		return
	fi
	for f in "$EX"/truth_cpu*; do
		cat "$f" >"$1/truth.${f##*truth_cpu}"
	done
}

# exact_tid_lines TID FILE: the instruction lines of thread TID in FILE
# (truth lines: TSC CPU PID TID CR3 IP).  Big files are read with grep,
# sed, cut and sort, not awk: busybox awk reads ~500 bytes and writes
# each line it prints with a system call of its own, tens of thousands
# for a truth, which take seconds under TCG (more on the debug kernel).
exact_tid_lines() {
	grep -h "^[0-9][0-9]* [0-9][0-9]* [0-9][0-9]* $1 " "$2"
}

# exact_ips TRUTH TID: the IPs of the instruction lines of thread TID.
exact_ips() {
	exact_tid_lines "$2" "$1" | cut -d' ' -f6
}

# exact_pid_ips TRUTH PID: the IPs of every thread of process PID, in
# the truth's order.
exact_pid_ips() {
	grep -h "^[0-9][0-9]* [0-9][0-9]* $2 " "$1" | cut -d' ' -f6
}

# exact_compare WANT GOT WHAT: the two IP lists must be the same.
exact_compare() {
	w=$(wc -l <"$1") g=$(wc -l <"$2")
	echo "PTT-INFO $3: truth $w instructions, decoded $g"
	[ "$w" -gt 0 ] || exact_fail "$3: no instruction in the truth"
	if ! cmp -s "$1" "$2"; then
		exact_fail "$3: the decoded IPs differ from the truth"
		diff "$1" "$2" | head -n 20
	fi
}

# exact_run PROG [RECORD-OPTIONS...]: record /ptt/work/PROG (or PROG,
# a path; named by its last part, or $EXACT_NAME) with the arguments in
# $EXACT_ARGS on cpu0 (the recorder pinned there, so the program is
# too) and require the decoded IPs to be the truth of its process (its
# main thread).  The program prints a line starting with its name at its
# end (or one that matches $EXACT_END).
exact_run() {
	local t0	# the caller's t0 (a test's own timer) stays
	prog=$1
	shift
	case $prog in
	/*) path=$prog prog=${prog##*/} ;;
	*) path=/ptt/work/$prog ;;
	esac
	[ -x "$path" ] || { exact_fail "$path missing from the initramfs"; return; }
	d=$OUT/${EXACT_NAME:-$prog}
	mkdir -p "$d"
	exact_truth_start "$d"
	t0=$(exact_up)
	# shellcheck disable=SC2086
	if ! taskset -c 0 "$PT" record -C 0 -u "$@" -o "$d/rec" -- "$path" $EXACT_ARGS >"$d/rec.out" 2>&1; then
		cat "$d/rec.out"
		exact_fail "$prog: record exited non-zero"
	fi
	grep -q "${EXACT_END:-^$prog }" "$d/rec.out" ||
		exact_fail "$prog did not run to its end: $(tail -n 5 "$d/rec.out")"
	ti="record $(exact_since "$t0") s"
	t0=$(exact_up)
	exact_truth "$d"
	ti="$ti, truth read $(exact_since "$t0") s"
	t0=$(exact_up)
	pid=$(sed -n 's/^pid=//p' "$d/rec/sideband.txt")
	[ -n "$pid" ] || exact_fail "$prog: no pid= in the sideband"
	# Each thread's IPs in ips.TID, in one pass of C (exact_split): a
	# grep of a truth of 10^6 lines took 20 s under TCG.
	/ptt/work/exact_split "$d/ips" 4 6 <"$d/truth.0" || exact_fail "$prog: cannot split the truth"
	touch "$d/ips.$pid"
	mv "$d/ips.$pid" "$d/want"
	rm -f "$d"/ips.*
	ti="$ti, its IPs $(exact_since "$t0") s"
	t0=$(exact_up)
	"$PT" decode --format=ip "$d/rec/cpu0.pt" >"$d/got" 2>"$d/dec.err" ||
		exact_fail "$prog: decode exited $?: $(head -n 5 "$d/dec.err")"
	echo "PTT-INFO $prog: $ti, decode $(exact_since "$t0") s"
	sed "s/^/$prog decode: /" "$d/dec.err" | head -n 5
	exact_compare "$d/want" "$d/got" "$prog"
}

# exact_sampled_small: the sampled generator (OS=1 recordings of the
# decode_kernel/kmod tests) writes 256 bytes a tick, not 2048: as many
# sampled IPs, an eighth of the trace around them (decode_kmod: 215 KB
# to 26-50 KB).  Measured on 6.1, a decode took about half as long, not
# an eighth (its start-up stays): decode_kmod 41 s here and over 90 s on
# CI's machine before, 11-15 s a recording after.  Put back when the
# test exits.
TICK=/sys/module/pt_trace_model/parameters/model_tick_bytes
exact_sampled_small() {
	exact_tick=$(cat "$TICK")
	trap 'echo "$exact_tick" >"$TICK"' EXIT
	echo 256 >"$TICK"
}

exact_finish() {
	[ -z "$exact_reader" ] || exact_truth "$OUT"	# a test that stopped early
	un=$(exact_stat unclassified) lost=$(exact_stat truth_lost)
	desync=$(($(exact_stat desync) - exact_desync0))
	echo "PTT-INFO exact stats: $(tr '\n' ' ' <"$EX/stats")"
	echo "PTT-INFO $(exact_since "$exact_t0") s since model_exact=1"
	[ "$un" = 0 ] || exact_fail "$un unclassified instructions"
	[ "$lost" = 0 ] || exact_fail "$lost truth lines lost"
	# A system call that was not the pending instruction at sys_enter:
	# the model lost its place (exact_step.c).
	[ "$desync" = 0 ] || exact_fail "desync $desync: the model lost the pending instruction at a system call"
	gp=$(cat /sys/kernel/debug/pt_trace/model/gp_faults)
	[ "$gp" = 0 ] || exact_fail "gp_faults $gp"
	echo "$exact_old" >"$PARAM"
	[ $exact_rc = 0 ] && rm -rf "$OUT"
	exit $exact_rc
}

# exact_rec PROG NAME [RECORD-OPTIONS...]: record /ptt/work/PROG (with the
# arguments in $EXACT_ARGS) on cpu0 into $OUT/NAME (d), its truth in
# $d/truth.N, the IPs of its process in $d/truth (all it executed), the
# decoded IPs in $d/got; pid is its pid.  Unlike exact_run it compares
# nothing: the test says which part of the truth the configuration
# traces.
exact_rec() {
	local t0	# the caller's t0 (a test's own timer) stays
	prog=$1 d=$OUT/$2
	shift 2
	[ -x "/ptt/work/$prog" ] || { exact_fail "/ptt/work/$prog missing from the initramfs"; return 1; }
	mkdir -p "$d"
	exact_truth_start "$d"
	t0=$(date +%s)
	# shellcheck disable=SC2086
	taskset -c 0 "$PT" record -C 0 -u "$@" -o "$d/rec" -- "/ptt/work/$prog" $EXACT_ARGS >"$d/rec.out" 2>&1 &
	# EXACT_DURING: what the test does while it records ($1: the
	# recorder's pid).
	xr_pid=$!
	[ -z "$EXACT_DURING" ] || $EXACT_DURING $xr_pid
	if ! wait $xr_pid; then
		cat "$d/rec.out"
		exact_fail "$prog ($*): record exited non-zero"
	fi
	tr=$(date +%s)
	exact_truth "$d"
	pid=$(sed -n 's/^pid=//p' "$d/rec/sideband.txt")
	[ -n "$pid" ] || { exact_fail "$prog ($*): no pid= in the sideband"; return 1; }
	exact_ips "$d/truth.0" "$pid" >"$d/truth"
	# EXACT_NODECODE=1: the test decodes as it needs.
	[ "${EXACT_NODECODE:-0}" = 1 ] || "$PT" decode --format=ip "$d/rec/cpu0.pt" >"$d/got" 2>"$d/dec.err" ||
		exact_fail "$prog ($*): decode exited $?: $(head -n 5 "$d/dec.err")"
	echo "PTT-INFO $prog $*: record $((tr - t0)) s, decode $(($(date +%s) - tr)) s, $(wc -l <"$d/truth") instructions"
	[ ! -f "$d/dec.err" ] || sed "s/^/$prog decode: /" "$d/dec.err" | head -n 5
	return 0
}
