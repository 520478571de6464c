# SPDX-License-Identifier: GPL-2.0
# Helpers for the in-VM runner, demo and bench scripts (busybox sh).

FAILED=0

# result STATUS NAME [WHY]
result() {
	if [ -z "$3" ]; then
		echo "PTT-RESULT $1 $2"
	else
		echo "PTT-RESULT $1 $2 ($3)" | tr '\n' ' ' | sed 's/ $//'
		echo
	fi
	[ "$1" != FAIL ] || FAILED=1
}

# UPTIME_CS: /proc/uptime in hundredths of a second.  Builtins only, as
# in run_test: a fork costs tens of ms on the debug kernel (KASAN) under
# TCG, and the runner's own cost is paid for each of ~280 tests a kernel.
uptime_cs() {
	local up rest
	read -r up rest </proc/uptime
	UPTIME_CS=$((${up%.*} * 100 + 1${up#*.} - 100))
}

# phase_done NAME: print how long the runner's phase NAME took since the
# last phase_done (or since boot: /proc/uptime starts there), as
# PTT-PHASE NAME SECONDS.  check.sh adds these to each kernel's time
# report: the part of a VM run that is not its tests (boot, module loads,
# kmemleak scans) was not visible before.
PHASE_CS=0
phase_done() {
	local ds
	uptime_cs
	ds=$(((UPTIME_CS - PHASE_CS + 5) / 10))
	echo "PTT-PHASE $1 $((ds / 10)).$((ds % 10))"
	PHASE_CS=$UPTIME_CS
}

summary() {
	[ "$FAILED" = 0 ]
}

# Test programs and scripts, by name.
list_tests() {
	if [ -n "$PTT_TESTS" ]; then
		echo "$PTT_TESTS"
	else
		ls /ptt/tests 2>/dev/null
	fi
}

# The two modules of the model backend (see drivers/pt_trace/hw.h): first
# pt_trace_model.ko with its parameters (ARGS: model_profile=P, ...), then
# pt_trace.ko backend=model, which takes the model and pins it.  On a
# failure nothing stays loaded.  Unload the other way round.
ptt_load_model() {
	ptt-insmod /ptt/pt_trace_model.ko "$@" || return 1
	ptt-insmod /ptt/pt_trace.ko backend=model && return 0
	rmmod pt_trace_model
	return 1
}

ptt_unload_model() {
	rmmod pt_trace && rmmod pt_trace_model
}

# run_test PROFILE NAME: exit 0 = PASS, 77 = SKIP, anything else = FAIL.
# Its output is shown indented; its files go to /out/PROFILE/NAME/.
run_test() {
	local p=$1 t=$2 rc to=$TEST_TIMEOUT n own="" start ds
	# A longer limit the test asked for (see mkinitramfs.sh).
	if [ -r /ptt/timeouts ]; then
		while read -r n ds; do
			[ "$n" != "$t" ] || own=$ds
		done </ptt/timeouts
	fi
	[ -z "$own" ] || [ "$own" -le "$to" ] || to=$own
	# Limits are set from runs here; CI's machines were at times more
	# than twice as slow (a 41 s test timed out at 90 s there).  A
	# limit only ends a hung test, so it is generous.
	to=$((to * ${TIMEOUT_SCALE:-1}))
	export PTT_PROFILE=$p PTT_OUT=/out/$p/$t
	mkdir -p "$PTT_OUT"
	echo "PTT-START $p/$t"
	uptime_cs
	start=$UPTIME_CS
	# The exit status leaves the pipe through a file.  ptt-run, not
	# busybox timeout: a stuck child of the test would hold the pipe open
	# and hang the whole VM run (see scripts/guest/ptt-run.c).
	(
		cd "$PTT_OUT" && ptt-run "$to" "/ptt/tests/$t" </dev/null
		echo $? >/tmp/rc
	) 2>&1 | sed 's/^/  | /'
	read -r rc </tmp/rc
	rmdir "$PTT_OUT" 2>/dev/null
	# How long it took, in tenths of a second, rounded (check.sh lists
	# the slowest: make check has a time budget).
	uptime_cs
	ds=$(((UPTIME_CS - start + 5) / 10))
	echo "PTT-TIME $p/$t $((ds / 10)).$((ds % 10))"
	case $rc in
	0) result PASS "$p/$t" ;;
	77) result SKIP "$p/$t" ;;
	124) result FAIL "$p/$t" "timeout after ${to}s, its process group killed" ;;
	125) result FAIL "$p/$t" "could not start" ;;
	*) result FAIL "$p/$t" "exit $rc" ;;
	esac
}

# The lines a failed insmod logged itself: every module line starts with
# "pt_trace: " (pr_fmt, see Kbuild); not the kernel's taint notices, and
# not KUnit's output (its failure details are not prefixed).
module_lines() {
	sed 's/^\[[ 0-9.]*\] //' |
		grep '^pt_trace: ' |
		grep -v -e 'taints kernel' -e 'verification failed'
}

# KUnit suites run at insmod on the debug kernel; report each top-level
# (suite) result of the KTAP in the log on stdin.
ktap_results() {
	awk '{ sub(/^\[[ 0-9.]*\] /, "") }
	/^(not )?ok [0-9]+ / {
		st = $1 == "ok" ? "PASS" : "FAIL"
		i = $1 == "ok" ? 3 : 4
		name = $i == "-" ? $(i + 1) : $i
		if ($0 ~ /# SKIP/)
			st = "SKIP"
		print "PTT-RESULT " st " kunit/" name
	}'
}

# scan_dmesg WHERE LOG: any kernel complaint in LOG fails.
scan_dmesg() {
	local bad
	bad=$(echo "$2" | grep -E -e 'BUG:|WARNING:|Oops|KASAN|UBSAN|Call Trace:' \
		-e 'possible circular|possible recursive|inconsistent lock state' \
		-e 'sleeping function called|suspicious RCU usage|INFO: task' \
		-e 'NMI received for unknown reason|general protection|kmemleak:')
	if [ -n "$bad" ]; then
		echo "$2" | sed 's/^/  dmesg| /'
		result FAIL "dmesg/$1" "$(echo "$bad" | head -n1)"
	else
		result PASS "dmesg/$1"
	fi
}

KMEMLEAK=/sys/kernel/debug/kmemleak

# Forget what the kernel leaked before we started (boot-time objects).
# No automatic scans (every 10 minutes, each tens of seconds of a CPU
# under TCG with KASAN, in the middle of some test): kmemleak_check()
# scans when it needs to.
kmemleak_start() {
	[ -w $KMEMLEAK ] || return 0
	echo scan=off >$KMEMLEAK
	echo scan >$KMEMLEAK
	echo clear >$KMEMLEAK
}

# kmemleak reports only objects older than 5 s that an earlier scan saw:
# scan twice, 6 s apart, while the module is loaded (its symbols intact).
kmemleak_check() {
	local leaks
	[ -w $KMEMLEAK ] || return 0
	echo scan >$KMEMLEAK
	sleep 6
	echo scan >$KMEMLEAK
	leaks=$(cat $KMEMLEAK)
	if [ -n "$leaks" ]; then
		echo "$leaks" | sed 's/^/  kmemleak| /'
		result FAIL "kmemleak/$1" "$(echo "$leaks" | grep -c 'unreferenced object') leak(s)"
	else
		result PASS "kmemleak/$1"
	fi
	echo clear >$KMEMLEAK
}
