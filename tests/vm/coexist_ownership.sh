#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /sys/kernel/pt_trace/ownership says what protects PT against perf, and
# the load logged the same words.  The model registers an "intel_pt" perf
# PMU standing in for perf's (model_perf_pmu=1, the default), so the
# driver must have reserved it; coexist_perf_reserve tests the
# reservation itself, and the decision has a KUnit suite.
f=/sys/kernel/pt_trace/ownership
[ -r $f ] || { echo "FAIL: no $f"; exit 1; }
v=$(cat $f)
echo "ownership: $v"
case $v in
*"reserved through perf"*) ;;
*) echo "FAIL: want 'reserved through perf' (the model's intel_pt PMU)"; exit 1 ;;
esac
dmesg | grep -q "ownership: $v (PMU type $(cat /sys/bus/event_source/devices/intel_pt/type))" || { echo "FAIL: the load did not log it"; exit 1; }
exit 0
