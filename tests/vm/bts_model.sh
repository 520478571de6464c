#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bts_model (issue 15): the model's Branch Trace Store, without a driver.
# The MSR rules through the debugfs msr hook: DEBUGCTL bits per
# capability (BTS/BTINT need DS and MISC_ENABLE[11] clear, BTS_OFF_OS/USR
# need DS-CPL; reserved bits #GP), IA32_DS_AREA canonical, MISC_ENABLE
# read-only.  Then the DS rules through model/bts_selftest (a DS area and
# buffer set up as a driver would): circular wrap with BTINT=0, one PMI
# at the threshold and a full buffer with BTINT=1, user/kernel filtering,
# a layout that is not whole records refused, user-mode records under
# PTI never stored.  gp_faults (the driver's count) stays 0.
. /ptt/msr_hook.sh
[ -d $M ] || { echo "SKIP: no model debugfs"; exit 77; }
# bdw's BTS is icl's (DS, DS-CPL): icl and min (no BTS) differ.
[ "$PTT_PROFILE" != bdw ] || { echo "SKIP: bdw's BTS is icl's (make check's time budget)"; exit 77; }
[ -w $M/bts_selftest ] || { echo "FAIL: the model has no BTS (model/bts_selftest)"; exit 1; }
t0=$(cat $M/gp_faults_test)
# since the model's load: an earlier test in this VM may have added some
gp0=$(cat $M/gp_faults)
pti=0
grep -qs PTI /sys/devices/system/cpu/vulnerabilities/meltdown && pti=1
# run CTL NREC THRESH SKEW MS: sets $R to the result line
run() {
	echo "0 $1 $2 $3 $4 $5" >$M/bts_selftest || { echo "FAIL: bts_selftest $*"; fail=1; }
	R=$(cat $M/bts_selftest)
	echo "  $*: $R"
}
# field NAME: from $R
field() {
	echo "$R" | tr ' ' '\n' | sed -n "/^$1\$/{n;p;}"
}
want() {	# want NAME OP VALUE WHY
	v=$(field "$1")
	[ "$v" "$2" "$3" ] || { echo "FAIL: $1=$v, want $2 $3 ($4)"; fail=1; }
}

ok 1d9 0 "DEBUGCTL clear"
ok 1d9 40 "TR alone (BTMs, no buffer)"
gp 1d9 4 "DEBUGCTL reserved bit 2"
gp 1d9 10000 "DEBUGCTL reserved bit 16"
gp 1a0 0 "MISC_ENABLE is read-only in the model"
gp 600 8000000000000000 "DS_AREA not canonical"
misc=$(rd 1a0)
case "$PTT_PROFILE" in
min)
	[ $(( misc & 0x800 )) != 0 ] || { echo "FAIL: min: MISC_ENABLE $misc without BTS_UNAVAILABLE"; fail=1; }
	gp 1d9 c0 "BTS while BTS_UNAVAILABLE"
	gp 1d9 140 "BTINT while BTS_UNAVAILABLE"
	gp 1d9 240 "BTS_OFF_OS without DS-CPL"
	if echo "0 c0 32 0 0 50" >$M/bts_selftest 2>/dev/null; then
		R=$(cat $M/bts_selftest)
		want rc = -5 "DEBUGCTL.BTS refused"
		want records = 0 "nothing stored"
	fi
	expect_gp=$((expect_gp + 1))
	;;
*)
	[ $(( misc & 0x800 )) = 0 ] || { echo "FAIL: MISC_ENABLE $misc says BTS unavailable"; fail=1; }
	ok 600 0 "DS_AREA 0"
	ok 1d9 7c0 "TR BTS BTINT BTS_OFF_OS BTS_OFF_USR"
	ok 1d9 0 "off again"
	# Circular: BTINT=0 wraps at the absolute maximum, no PMI.
	run c0 32 0 0 300
	want rc = 0 "circular"
	want records -gt 32 "wrapped at least once"
	want index -lt 32 "index within the buffer"
	want pmis = 0 "no PMI without BTINT"
	want dropped = 0 "a circular buffer drops nothing"
	want ds_errors = 0 "valid layout"
	want bad = 0 "every record a branch"
	want kernel -gt 0 "kernel branches"
	if [ $pti = 1 ]; then
		want user = 0 "no user record under PTI"
		want pti_faults -gt 0 "user branches under PTI counted"
	else
		want user -gt 0 "user branches"
	fi
	# Threshold: BTINT=1, one PMI when the index reaches 24 of 32,
	# then full at the maximum: the rest is dropped.
	run 1c0 32 24 0 300
	want rc = 0 "threshold"
	want records = 32 "exactly the buffer"
	want index = 32 "index at the absolute maximum"
	want pmis = 1 "one PMI at the threshold"
	want claimed -ge 1 "the PMI arrived"
	want dropped -gt 0 "full: dropped"
	want bad = 0 "every record a branch"
	# BTS_OFF_OS: no kernel records.
	run 2c0 64 0 0 200
	want kernel = 0 "BTS_OFF_OS"
	want filtered -gt 0 "kernel branches filtered"
	# BTS_OFF_USR: no user records, and none reaches the PTI check.
	run 4c0 64 0 0 200
	want user = 0 "BTS_OFF_USR"
	want kernel -gt 0 "kernel branches kept"
	want filtered -gt 0 "user branches filtered"
	want pti_faults = 0 "filtered before they are stored"
	# Not whole records: the absolute maximum 8 bytes short.
	run c0 32 0 8 100
	want records = 0 "no record into a bad layout"
	want ds_errors -gt 0 "layout refused"
	;;
esac
ok 1d9 0 "DEBUGCTL clear"

got=$(( $(cat $M/gp_faults_test) - t0 ))
[ "$got" = "$expect_gp" ] || { echo "FAIL: $got #GPs counted, expected $expect_gp"; fail=1; }
gp=$(( $(cat $M/gp_faults) - gp0 ))
[ "$gp" = 0 ] || { echo "FAIL: gp_faults +$gp"; fail=1; }
echo "$expect_gp modelled #GPs checked (pti=$pti)"
exit $fail
