#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The in-VM test runner (busybox sh).  Prints one line per result,
#   PTT-RESULT PASS|FAIL|SKIP NAME [why]
# and exits non-zero if anything failed.  Stages:
#   load/enodev      the default backend must be refused with ENODEV and
#                    one clear log line (TCG has no PT) that does not
#                    suggest the model
#   kunit/SUITE      KTAP of the KUnit suites (debug kernel only: they run
#                    at insmod, the driver's at load/enodev, the model's
#                    at load/model-module)
#   load/model-needed   backend=model without pt_trace_model.ko: refused,
#                    one log line naming the module
#   load/model-module   pt_trace_model.ko alone: loads, a bad profile is
#                    refused, the driver still defaults to the hardware
#   P/TEST           every /ptt/tests/* with pt_trace_model.ko
#                    model_profile=P and pt_trace.ko backend=model (a
#                    profile given as P:NAME:NAME... runs only the tests
#                    named or of the feature named, e.g. bdw:abi:follow_switch;
#                    P:-NAME all but those, each a SKIP line)
#   load/P, unload/P (the model pinned while the driver runs), dmesg/P
#   kmemleak/all     after the last profile's unload (debug kernel)
. /ptt/lib.sh

PROFILES=${PTT_PROFILES:-icl bdw min}
TEST_TIMEOUT=${PTT_TEST_TIMEOUT:-30}
TIMEOUT_SCALE=${PTT_TIMEOUT_SCALE:-3}
KO=/ptt/pt_trace.ko
MODEL_KO=/ptt/pt_trace_model.ko

phase_done boot
echo "PTT-INFO kernel=$(uname -r)"
echo "PTT-INFO cpu=$(grep -m1 '^vendor_id' /proc/cpuinfo | cut -d: -f2 | tr -d ' ') cpus=$(grep -c ^processor /proc/cpuinfo)"
echo "PTT-INFO meltdown=$(cat /sys/devices/system/cpu/vulnerabilities/meltdown 2>/dev/null || echo unknown)"
# Where the kernel's text is (KASLR), for vm-stall.py should the guest
# hang: it names the vCPUs' RIPs from System.map.
echo "PTT-KSYM _stext $(grep -m1 ' _stext$' /proc/kallsyms | cut -d' ' -f1)"

# Kernel text the modules would patch at run time held as it will be
# (ptt-perf-hold.c: under TCG a vCPU sometimes runs the int3 of a
# text_poke_bp() after it is gone): perf's scheduler static keys, and
# every tracepoint pt_trace.ko (follow.c) and pt_trace_model.ko
# (exact_step.c) register probes on, with two probes each.  Before the
# first test: a guest dying here is booted once more by vm-run.sh.  The
# host test runner-hold-tracepoints (tests/host/hold_list.sh) fails when a
# module table names a tracepoint this list lacks.
PTT_HOLD_TPS="raw_syscalls/sys_enter raw_syscalls/sys_exit sched/sched_switch
sched/sched_process_fork sched/sched_process_exit sched/sched_process_exec
signal/signal_deliver signal/signal_generate exceptions/page_fault_user
irq_vectors/local_timer_entry
irq_vectors/reschedule_entry irq_vectors/call_function_entry
irq_vectors/call_function_single_entry irq_vectors/irq_work_entry
irq/irq_handler_entry"
echo 0 >/sys/kernel/debug/tracing/tracing_on
# shellcheck disable=SC2086
PTT_HOLD_READY=/tmp/ptt-hold.ready ptt-perf-hold $PTT_HOLD_TPS &
i=0
while [ ! -s /tmp/ptt-hold.ready ] && [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
echo "PTT-INFO kernel text held: $(cat /tmp/ptt-hold.ready 2>/dev/null || echo "not ready") of $(echo $PTT_HOLD_TPS | wc -w) tracepoints"

# Boot messages are not ours: start each scan from an empty ring.
dmesg -c >/dev/null
kmemleak_start
phase_done setup

# The KTAP of the KUnit suites that ran at a load, from its log (LOG).
report_ktap() {
	local res
	res=$(echo "$1" | ktap_results)
	[ -z "$res" ] || echo "$res"
	case $res in *FAIL*) FAILED=1 ;; esac
}

# insmod_refused NAME ERRNO_TEXT WANT AVOID CMD...: CMD must fail with
# ERRNO_TEXT and log exactly one module line, which matches WANT and,
# unless AVOID is empty, not AVOID.  Leaves the kernel log in LOG.
insmod_refused() {
	local name=$1 err=$2 want=$3 avoid=$4 out rc log lines n
	shift 4
	out=$("$@" 2>&1)
	rc=$?
	log=$(dmesg -c)
	LOG=$log
	lines=$(echo "$log" | module_lines)
	n=$(echo "$lines" | grep -c .)
	if [ $rc = 0 ]; then
		result FAIL "$name" "$* succeeded"
		rmmod pt_trace
	elif ! echo "$out" | grep -q "$err"; then
		result FAIL "$name" "expected '$err', got: $out"
	elif [ "$n" != 1 ] || ! echo "$lines" | grep -q "$want"; then
		result FAIL "$name" "expected one log line matching '$want', got $n: $lines"
	elif [ -n "$avoid" ] && echo "$lines" | grep -qi "$avoid"; then
		result FAIL "$name" "the log line must not mention '$avoid': $lines"
	else
		result PASS "$name"
	fi
	scan_dmesg "${name#load/}" "$log"
}

# 1. No PT under TCG: the default (hardware) backend must refuse to load,
# saying why, and never point at the model.
echo "PTT-START load/enodev"
insmod_refused load/enodev 'No such device' 'Intel PT' model ptt-insmod "$KO"
report_ktap "$LOG"	# the driver's suites (once: they run at every load)

# The model is a module of its own, taken only with backend=model.
echo "PTT-START load/model-needed"
insmod_refused load/model-needed 'No such file' pt_trace_model.ko '' \
	ptt-insmod "$KO" backend=model

echo "PTT-START load/model-module"
if ! out=$(ptt-insmod "$MODEL_KO" 2>&1); then
	result FAIL load/model-module "$out"
	scan_dmesg model-module "$(dmesg -c)"
else
	log=$(dmesg -c)
	report_ktap "$log"	# the model's suites
	if ptt-insmod "$KO" >/dev/null 2>&1; then
		result FAIL load/model-module "pt_trace.ko without backend=model took the model"
		rmmod pt_trace
	elif ! out=$(rmmod pt_trace_model 2>&1); then
		result FAIL load/model-module "rmmod pt_trace_model: $out"
	elif ptt-insmod "$MODEL_KO" model_profile=nosuch >/dev/null 2>&1; then
		result FAIL load/model-module "model_profile=nosuch was accepted"
		rmmod pt_trace_model
	else
		result PASS load/model-module
	fi
	scan_dmesg model-module "$log
$(dmesg -c)"
fi

phase_done load-checks

# in_subset TEST " NAME NAME ... ": the test is one of the names, or of a
# feature named (the part of its name before the first "_").
in_subset() {
	case $2 in
	*" $1 "* | *" ${1%%_*} "*) return 0 ;;
	esac
	return 1
}

# 2. Every test under every model profile.
for spec in $PROFILES; do
	p=${spec%%:*}
	only="" not=""
	if [ "$spec" != "$p" ]; then
		for w in $(echo "${spec#*:}" | tr : ' '); do
			case $w in
			-*) not="$not ${w#-}" ;;
			*) only="$only $w" ;;
			esac
		done
	fi
	only=${only:+"$only "} not=${not:+"$not "}
	echo "PTT-INFO profile=$p${only:+ (only$only)}${not:+ (not$not)}"
	echo "PTT-START load/$p"
	if ! out=$(ptt_load_model model_profile="$p" 2>&1); then
		result FAIL "load/$p" "$out"
		for t in $(list_tests); do
			[ -z "$only" ] || in_subset "$t" "$only" || continue
			result FAIL "$p/$t" "module load failed"
		done
		scan_dmesg "$p" "$(dmesg -c)"
		continue
	fi
	if dmesg | grep -q "unknown parameter 'model_profile'"; then
		result FAIL "load/$p" "the module ignores model_profile: every profile tests the same model"
	else
		result PASS "load/$p"
	fi
	# And the modules' text (vm-stall.py).
	echo "PTT-MODTEXT pt_trace=$(cat /sys/module/pt_trace/sections/.text) pt_trace_model=$(cat /sys/module/pt_trace_model/sections/.text)"
	phase_done "load/$p"
	for t in $(list_tests); do
		[ -z "$only" ] || in_subset "$t" "$only" || continue
		if [ -n "$not" ] && in_subset "$t" "$not"; then
			result SKIP "$p/$t" "left out on this kernel: make check's time budget"
			continue
		fi
		run_test "$p" "$t"
	done
	phase_done "tests/$p"
	echo "PTT-START unload/$p"
	if rmmod pt_trace_model 2>/dev/null; then
		result FAIL "unload/$p" "pt_trace_model unloaded under the driver"
	elif out=$(ptt_unload_model 2>&1); then
		result PASS "unload/$p"
	else
		result FAIL "unload/$p" "$out"
	fi
	scan_dmesg "$p" "$(dmesg -c)"
	phase_done "unload/$p"
done

# Leaks, once for all profiles and after the last unload (so a leak of
# the unload paths counts too): each scan of the debug kernel's memory
# takes about 20 s under TCG, and a check is two of them.
echo "PTT-START kmemleak/all"
kmemleak_check all
phase_done kmemleak

summary
