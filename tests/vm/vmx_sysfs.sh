#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /sys/kernel/pt_trace/vmx/ says the VMX situation as the model's profile
# and vmx hook make it, and pt-trace info says it with the remedy:
#  - icl: vmx 1, trace_in_vmx 1, cpus_on follows VMXON/VMXOFF on CPUs 0
#    and 1 ("0", "0-1", ""), info says "trace in VMX operation yes";
#  - bdw: vmx 1, trace_in_vmx 0; with CPU 0 in VMX operation info warns
#    and names kvm.enable_virt_at_load=0;
#  - min: vmx 0, cpus_on empty, info says "vmx none".
V=/sys/kernel/pt_trace/vmx
M=/sys/kernel/debug/pt_trace/model
fail=0
err() {
	echo "FAIL: $*" >&2
	fail=1
}
check() {
	got=$(cat "$V/$1" 2>/dev/null)
	[ "$got" = "$2" ] || err "$1 is '$got', expected '$2' ($3)"
}
. /ptt/work/pt_trace_lib.sh
pt_trace_require
[ -w $M/vmx ] || { echo "SKIP: no vmx hook" >&2; exit 77; }
[ -r $V/cpus_on ] || err "no $V"

profile=$(cat /sys/module/pt_trace_model/parameters/model_profile)
case $profile in
icl)
	check vmx 1 icl
	check trace_in_vmx 1 icl
	check cpus_on "" "before VMXON"
	echo "0 on" >$M/vmx
	check cpus_on 0 "VMXON on CPU 0"
	echo "1 on" >$M/vmx
	check cpus_on 0-1 "VMXON on CPUs 0, 1"
	out=$("$PT" info 2>&1)
	echo "$out" | grep -q "trace in VMX operation yes, on now: 0-1" ||
		err "info: $out"
	echo "0 off" >$M/vmx
	echo "1 off" >$M/vmx
	check cpus_on "" "after VMXOFF"
	;;
bdw)
	check vmx 1 bdw
	check trace_in_vmx 0 bdw
	echo "0 on" >$M/vmx
	check cpus_on 0 "VMXON on CPU 0"
	out=$("$PT" info 2>&1)
	echo "$out" | grep -q "kvm.enable_virt_at_load=0" ||
		err "info names no remedy: $out"
	echo "0 off" >$M/vmx
	check cpus_on "" "after VMXOFF"
	;;
min)
	check vmx 0 min
	check cpus_on "" min
	"$PT" info 2>&1 | grep -q "vmx  *none" || err "info: no 'vmx none'"
	;;
esac
exit $fail
