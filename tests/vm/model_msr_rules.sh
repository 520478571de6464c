#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The model's #GP rules, one by one, through the debugfs msr hook (no
# driver involved): every forbidden write must fail with EIO and be
# counted in gp_faults_test, every allowed one must succeed, and
# gp_faults (the driver's count) must stay 0.
. /ptt/msr_hook.sh
[ -w $M/msr ] || { echo "SKIP: no model debugfs"; exit 77; }
[ "$(cat /sys/kernel/pt_trace/backend)" = model ] || exit 77
C=/sys/kernel/pt_trace/caps
t0=$(cat $M/gp_faults_test)
# since the model's load: an earlier test in this VM may have added some
gp0=$(cat $M/gp_faults)

ok 570 0 "all clear"
gp 570 40000 "reserved bit 18"
gp 570 10000000 "reserved bit 28"
gp 38e 0 "GLOBAL_STATUS is read-only"
gp 571 8 "STATUS reserved bit 3"
gp 560 1 "OUTPUT_BASE bits 6:0 reserved"
gp 560 8000000000000000 "OUTPUT_BASE above MAXPHYADDR"
ok 390 80000000000000 "GLOBAL_STATUS_RESET bit 55 (ToPA PMI)"
gp 390 10000000000 "GLOBAL_STATUS_RESET reserved bit 40"
if [ "$(cat $C/psb_cyc)" = 1 ]; then
	ok 570 2 "CYCEn with CYC"
	gp 570 6000000 "PSBFreq 6 not in the bitmap"
	ok 571 100000000 "PacketByteCnt"
else
	gp 570 2 "CYCEn without CYC"
	gp 571 100000000 "PacketByteCnt without PSB/CYC"
fi
ok 570 0 ""
if [ "$(cat $C/cr3_filtering)" = 1 ]; then
	ok 570 80 "CR3Filter"
	gp 572 1f "CR3_MATCH bits 4:0"
	ok 572 1000 "CR3_MATCH"
else
	gp 570 80 "CR3Filter without CR3 filtering"
	gp 572 1000 "CR3_MATCH without CR3 filtering"
fi
if [ "$(cat $C/mtc)" = 1 ]; then
	ok 570 c200 "MTCEn MTCFreq 3"
	gp 570 4200 "MTCFreq 1 not in the bitmap"
else
	gp 570 200 "MTCEn without MTC"
fi
n=$(cat $C/num_address_ranges)
if [ "$n" -ge 2 ]; then
	ok 570 1100000000 "ADDR0/1_CFG"
	gp 570 3100000000 "ADDR1_CFG=3"
	# Not canonical for 48 bits nor, on an LA57 CPU, for 57.
	gp 580 100000000000000 "ADDR0_A not canonical"
	ok 580 ffff800000000000 "ADDR0_A canonical"
fi
if [ "$n" -lt 3 ]; then
	gp 570 10000000000 "ADDR2_CFG beyond the ranges"
	gp 584 0 "ADDR2_A beyond the ranges"
fi
[ "$(cat $C/ptwrite)" = 1 ] || gp 570 1000 "PTWEn without PTWRITE"
[ "$(cat $C/power_event_trace)" = 1 ] || gp 570 10 "PwrEvtEn without power events"
ok 570 0 ""
ok 571 0 ""

# TraceEn with a ToPA table base whose bits 11:7 are set: the write is
# fine, the configuration is an operational error (STATUS.Error).
if [ "$(cat $C/topa_output)" = 1 ]; then
	ok 560 1080 "table base"
	ok 561 0 "mask"
	if [ "$(cat $C/quirks)" != 0 ] && [ $(( $(cat $C/quirks) & 1 )) = 1 ]; then
		gp 570 10d "BDM106: TraceEn with BranchEn=0"
	fi
	ok 570 210d "TraceEn|OS|User|ToPA|BranchEn"
	st=$(rd 571)
	[ $(( st & 0x10 )) != 0 ] || { echo "FAIL: no STATUS.Error ($st)"; fail=1; }
	ok 570 210d "same value while TraceEn=1"
	gp 570 250d "change a bit while TraceEn=1"
	gp 560 2000 "OUTPUT_BASE while TraceEn=1"
	gp 561 0 "MASK_PTRS while TraceEn=1"
	gp 571 0 "STATUS while TraceEn=1"
	ok 570 2108 "clear TraceEn"
	ok 571 0 "clear Error"
fi
if [ "$(cat $C/single_range_output)" = 0 ]; then
	gp 570 2005 "TraceEn single range without single range"
fi
ok 570 0 ""

got=$(( $(cat $M/gp_faults_test) - t0 ))
[ "$got" = "$expect_gp" ] || { echo "FAIL: $got #GPs counted, expected $expect_gp"; fail=1; }
gp=$(( $(cat $M/gp_faults) - gp0 ))
[ "$gp" = 0 ] || { echo "FAIL: gp_faults +$gp"; fail=1; }
echo "$expect_gp modelled #GPs checked"
exit $fail
