#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The in-VM test runner (busybox sh).  Prints one line per result,
#   PTT-RESULT PASS|FAIL|SKIP NAME [why]
# and exits non-zero if anything failed.  Stages:
#   load/enodev      the default backend must be refused with ENODEV and
#                    one clear log line (TCG has no PT)
#   kunit/SUITE      KTAP of the KUnit suites (debug kernel only: they run
#                    at insmod)
#   P/TEST           every /ptt/tests/* with backend=model model_profile=P
#   load/P, unload/P, kmemleak/P, dmesg/P
. /ptt/lib.sh

PROFILES=${PTT_PROFILES:-icl bdw min}
TEST_TIMEOUT=${PTT_TEST_TIMEOUT:-30}
KO=/ptt/pt_trace.ko

echo "PTT-INFO kernel=$(uname -r)"
echo "PTT-INFO cpu=$(grep -m1 '^vendor_id' /proc/cpuinfo | cut -d: -f2 | tr -d ' ') cpus=$(grep -c ^processor /proc/cpuinfo)"
echo "PTT-INFO meltdown=$(cat /sys/devices/system/cpu/vulnerabilities/meltdown 2>/dev/null || echo unknown)"

# Boot messages are not ours: start each scan from an empty ring.
dmesg -c >/dev/null
kmemleak_start

# 1. No PT under TCG: the default (hardware) backend must refuse to load.
echo "PTT-START load/enodev"
out=$(ptt-insmod "$KO" 2>&1)
rc=$?
log=$(dmesg -c)
res=$(echo "$log" | ktap_results)
[ -z "$res" ] || echo "$res"
case $res in *FAIL*) FAILED=1 ;; esac
lines=$(echo "$log" | module_lines)
n=$(echo "$lines" | grep -c .)
if [ $rc = 0 ]; then
	result FAIL load/enodev "insmod without backend=model succeeded"
	rmmod pt_trace
elif ! echo "$out" | grep -q 'No such device'; then
	result FAIL load/enodev "expected ENODEV, got: $out"
elif [ "$n" != 1 ] || ! echo "$lines" | grep -q 'backend=model'; then
	result FAIL load/enodev "expected one log line naming backend=model, got $n: $lines"
else
	result PASS load/enodev
fi
scan_dmesg enodev "$log"

# 2. Every test under every model profile.
for p in $PROFILES; do
	echo "PTT-INFO profile=$p"
	echo "PTT-START load/$p"
	if ! out=$(ptt-insmod "$KO" backend=model model_profile="$p" 2>&1); then
		result FAIL "load/$p" "$out"
		for t in $(list_tests); do
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
	for t in $(list_tests); do
		run_test "$p" "$t"
	done
	echo "PTT-START kmemleak/$p"
	kmemleak_check "$p"
	echo "PTT-START unload/$p"
	if out=$(rmmod pt_trace 2>&1); then
		result PASS "unload/$p"
	else
		result FAIL "unload/$p" "$out"
	fi
	scan_dmesg "$p" "$(dmesg -c)"
done

summary
