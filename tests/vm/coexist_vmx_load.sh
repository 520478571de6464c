#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# VMX on at load (issue 10): pt_trace.ko loaded while a CPU is in VMX
# operation (the model's model_vmx_at_load: CR4.VMXE on cpu1 when the
# driver attaches, as kvm_intel with enable_virt_at_load leaves every
# CPU) must load, and say so once with the remedy where that CPU cannot
# trace there:
#  - IA32_VMX_MISC[14]=0 (bdw): one notice "1 CPU(s) in VMX operation"
#    naming kvm.enable_virt_at_load=0 and unloading kvm_intel;
#  - IA32_VMX_MISC[14]=1 (icl): tracing works in VMX operation, no notice.
# (START in VMX operation is coexist_vmx's.)  min has no VMX.  VMX is
# turned off again with the vmx hook; the driver stays loaded as the
# runner loads it (backend=model, no other parameter).
. /ptt/lib.sh
M=/sys/kernel/debug/pt_trace/model
case $PTT_PROFILE in
bdw) want=1 ;;
icl) want=0 ;;
*) echo "SKIP: no VMX on this profile"; exit 77 ;;
esac
[ -w $M/vmx ] || { echo "SKIP: no vmx hook"; exit 77; }
cpu=$(($(grep -c ^processor /proc/cpuinfo) > 1 ? 1 : 0))
fail=0
P=/sys/module/pt_trace_model/parameters/model_vmx_at_load
[ -w $P ] || { echo "FAIL: the model has no model_vmx_at_load"; exit 1; }
mark=$(dmesg | wc -l)
echo $((1 << cpu)) >$P
if ! rmmod pt_trace || ! ptt-insmod /ptt/pt_trace.ko backend=model; then
	echo 0 >$P
	echo "FAIL: pt_trace.ko did not load again with cpu$cpu in VMX operation"
	exit 1
fi
echo 0 >$P
log=$(dmesg | tail -n +$((mark + 1)) | grep 'in VMX operation')
[ "$(cat /sys/kernel/pt_trace/vmx/cpus_on 2>/dev/null)" = "$cpu" ] ||
	{ echo "FAIL: sysfs vmx/cpus_on is not $cpu after loading with cpu$cpu in VMX operation"; fail=1; }
echo "$cpu off" >$M/vmx
echo "$log" | sed 's/^/  log| /'
n=$(echo "$log" | grep -c 'CPU(s) in VMX operation')
if [ "$want" = 1 ]; then
	[ "$n" = 1 ] || { echo "FAIL: $n load-time notices of VMX operation (want 1)"; fail=1; }
	echo "$log" | grep -q '^.*1 CPU(s) in VMX operation' ||
		{ echo "FAIL: the notice does not count 1 CPU"; fail=1; }
	for w in kvm.enable_virt_at_load=0 kvm_intel EBUSY; do
		echo "$log" | grep -q "$w" || { echo "FAIL: the notice does not name $w"; fail=1; }
	done
else
	[ "$n" = 0 ] || { echo "FAIL: a notice of VMX operation where MISC[14]=1 lets PT trace"; fail=1; }
fi
exit $fail
