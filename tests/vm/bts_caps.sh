#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bts_caps (issue 15): /sys/kernel/pt_trace/bts/ says what the CPU's
# Branch Trace Store can do, from CPUID.1 (DS, DS-CPL) and
# IA32_MISC_ENABLE[11] as the model's profile answers them, and
# pt-trace info says it:
#  - icl, bdw: present 1, ds 1, cpl_filter 1, unavailable 0;
#  - min: DS without DS-CPL and BTS unavailable: present 0, ds 1,
#    cpl_filter 0, unavailable 1; info names MISC_ENABLE[11];
#  - pti as the kernel's meltdown line says; under PTI info says BTS is
#    refused.
B=/sys/kernel/pt_trace/bts
fail=0
err() {
	echo "FAIL: $*" >&2
	fail=1
}
check() {
	got=$(cat "$B/$1" 2>/dev/null)
	[ "$got" = "$2" ] || err "$1 is '$got', expected '$2' ($3)"
}
[ "$(cat /sys/kernel/pt_trace/backend)" = model ] || exit 77
. /ptt/work/pt_trace_lib.sh

profile=$(cat /sys/module/pt_trace_model/parameters/model_profile)
case $profile in
min)
	check present 0 min
	check ds 1 min
	check cpl_filter 0 min
	check unavailable 1 min
	want="bts  *no (IA32_MISC_ENABLE\[11\]: BTS unavailable)"
	;;
*)
	check present 1 "$profile"
	check ds 1 "$profile"
	check cpl_filter 1 "$profile"
	check unavailable 0 "$profile"
	want="bts  *yes, user or kernel branches alone (DS-CPL)"
	# The driver refuses BTS under page table isolation.
	if grep -qs PTI /sys/devices/system/cpu/vulnerabilities/meltdown; then
		want="bts  *refused: page table isolation is on"
	fi
	;;
esac
pti=0
grep -qs PTI /sys/devices/system/cpu/vulnerabilities/meltdown && pti=1
check pti $pti "the kernel's meltdown line"
if [ -x "$PT" ]; then
	out=$("$PT" info 2>&1)
	echo "$out" | grep -q "$want" || err "pt-trace info: no '$want' in: $out"
fi
exit $fail
