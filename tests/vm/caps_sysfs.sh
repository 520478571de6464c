#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /sys/kernel/pt_trace: one file per capability, matching the CPUID the
# loaded model profile answers, and the backend named honestly.
fail=0
check() {
	got=$(cat "/sys/kernel/pt_trace/$1" 2>/dev/null)
	if [ "$got" != "$2" ]; then
		echo "FAIL: $1 is '$got', expected '$2'" >&2
		fail=1
	fi
}

check backend model
for f in cr3_filtering psb_cyc ip_filtering mtc ptwrite power_event_trace \
	 topa_output topa_multiple_entries single_range_output \
	 num_address_ranges mtc_periods cycle_thresholds psb_periods quirks \
	 family model stepping; do
	[ -r "/sys/kernel/pt_trace/caps/$f" ] || {
		echo "FAIL: caps/$f missing" >&2
		fail=1
	}
done

profile=$(cat /sys/module/pt_trace_model/parameters/model_profile)
case $profile in
icl)
	check caps/family 6
	check caps/model 0x7e
	check caps/cr3_filtering 1
	check caps/psb_cyc 1
	check caps/ip_filtering 1
	check caps/num_address_ranges 2
	check caps/mtc_periods 0x249
	check caps/topa_multiple_entries 1
	check caps/single_range_output 1
	check caps/quirks 0x0
	;;
bdw)
	check caps/model 0x3d
	check caps/cr3_filtering 1
	check caps/psb_cyc 0
	check caps/ip_filtering 0
	check caps/num_address_ranges 0
	check caps/cycle_thresholds 0x0
	check caps/topa_multiple_entries 0
	check caps/quirks 0x1		# BDM106: BranchEn always on
	;;
min)
	check caps/cr3_filtering 0
	check caps/psb_cyc 0
	check caps/num_address_ranges 0
	check caps/single_range_output 0
	check caps/topa_multiple_entries 1
	;;
*)
	echo "SKIP: unknown profile '$profile'" >&2
	exit 77
	;;
esac

# Read-only: a write must fail, never change a capability.
if echo 0 2>/dev/null > /sys/kernel/pt_trace/caps/topa_output; then
	echo "FAIL: caps/topa_output accepted a write" >&2
	fail=1
fi
exit $fail
