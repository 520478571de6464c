#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /sys/kernel/pt_trace/vmx/ says the VMX situation as the model's profile
# and vmx hook make it, and pt-trace info says it with the remedy:
#  - icl: vmx 1, trace_in_vmx 1, cpus_on follows VMXON/VMXOFF on CPUs 0
#    and 1 ("0", "0-1", ""), info says "trace in VMX operation yes";
#  - bdw: vmx 1, trace_in_vmx 0; with CPU 0 in VMX operation info warns
#    and names kvm.enable_virt_at_load=0;
#  - min: vmx 0, cpus_on empty, info says "vmx none";
#  - icl, with kvm_intel's pt_mode faked (PTT_KVM_PT_MODE; no kvm_intel
#    here): 1 makes info and record warn that guests are missing, naming
#    pt_mode=0, and record saves kvm.pt_mode=1; 0 makes info not warn;
#  - icl, guests traced (model_vmx=1): record -u (OS=0, no PIP) warns
#    that guest code cannot be told from the host's;
#  - bdw, CPU 0 in VMX operation: record fails and says why (VMX, not
#    another tracer) with the remedy, kvm.enable_virt_at_load=0.
V=/sys/kernel/pt_trace/vmx
M=/sys/kernel/debug/pt_trace/model
MP=/sys/module/pt_trace_model/parameters
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
	# kvm_intel's pt_mode=1: guests lost without a word but this one.
	T=/tmp/vmx_sysfs.$$
	mkdir -p $T
	# (A record takes seconds on the debug kernel: two in all, info
	# alone for pt_mode=0, the same reading of the file.)
	for mode in 1 0; do
		echo $mode >$T/pt_mode
		out=$(PTT_KVM_PT_MODE=$T/pt_mode "$PT" info 2>&1)
		rec=""
		if [ $mode = 1 ]; then
			rec=$(PTT_KVM_PT_MODE=$T/pt_mode "$PT" record -u -C 0 -d 0.05 -b 64K -o $T/rec 2>&1) ||
				err "record with pt_mode=1 failed: $rec"
			grep -qx "kvm.pt_mode=1" $T/rec/sideband.txt ||
				err "sideband: no kvm.pt_mode=1"
		fi
		for w in "$out" "$rec"; do
			case "$mode:$w" in
			1:*"guest code is missing"*"pt_mode=0"*) ;;
			1:*) err "pt_mode=1 without a warning naming pt_mode=0: $w" ;;
			0:*"pt_mode=1"*) err "pt_mode=0 warned: $w" ;;
			esac
			case "$w" in *"no PIP is written"*) err "VMX off, warned of guests: $w" ;; esac
		done
	done
	# Guests traced (model_vmx=1) and a user-only recording (OS=0): no
	# PIP, so guest code looks like the host's; record says so.
	# (vmx_contexts records them with OS=1 and wants no such warning.)
	echo "0 on" >$M/vmx
	echo 1 >$MP/model_vmx
	rec=$("$PT" record -u -C 0 -d 0.05 -b 64K -o $T/recu 2>&1) ||
		err "record -u with guests failed: $rec"
	echo 0 >$MP/model_vmx
	echo "0 off" >$M/vmx
	case "$rec" in
	*"CPU 0 runs guests"*"no PIP is written"*"without -u"*) ;;
	*) err "record -u of a CPU with guests traced: no warning: $rec" ;;
	esac
	rm -rf $T
	;;
bdw)
	check vmx 1 bdw
	check trace_in_vmx 0 bdw
	echo "0 on" >$M/vmx
	check cpus_on 0 "VMXON on CPU 0"
	out=$("$PT" info 2>&1)
	echo "$out" | grep -q "kvm.enable_virt_at_load=0" ||
		err "info names no remedy: $out"
	# START refused (EBUSY): record says it is VMX, and the remedy.
	T=/tmp/vmx_sysfs.$$
	if out=$("$PT" record -u -C 0 -d 0.05 -b 64K -o $T 2>&1); then
		err "record in VMX operation succeeded on bdw"
	else
		case "$out" in
		*"VMX operation"*"kvm.enable_virt_at_load=0"*) ;;
		*) err "record's error names no VMX remedy: $out" ;;
		esac
	fi
	rm -rf $T
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
