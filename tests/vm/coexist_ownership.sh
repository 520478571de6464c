#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /sys/kernel/pt_trace/ownership says what protects PT against perf.  The
# VM has no intel_pt PMU and runs the model, so the reservation itself
# (ownership.c) cannot run here: this checks the model's answer and that
# the load logged the same words.  The decision has a KUnit suite.
f=/sys/kernel/pt_trace/ownership
[ -r $f ] || { echo "FAIL: no $f"; exit 1; }
v=$(cat $f)
echo "ownership: $v"
case $v in
*"model backend"*) ;;
*) echo "FAIL: the model backend must say perf's PT is not the model"; exit 1 ;;
esac
dmesg | grep -q "ownership: $v" || { echo "FAIL: the load did not log it"; exit 1; }
exit 0
