#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ptt-timeout: 90
# pt-trace decode's VMX contexts (decode_vmx.c) on a trace the model's
# guests make through the driver (model.rst "Guests"; model_vmx=1,
# system-wide: VM A at 0x100000000000 with the host's own CR3, VM B at
# 0x08040000), each guest's code a raw --guest-image (the model's
# vmx_guest_code, which its packets walk), recorded with MTC and a fake KVM debugfs
# (PTT_KVM_DEBUGFS: one vCPU with the model's TSC offset 2^40 and ratio
# 1.5, in KVM's files):
#  - the unfiltered decode has instructions of both VMs;
#  - --host-only has no guest IP, --guest-only only guest IPs, and the
#    two together are the unfiltered listing;
#  - --vmcs A only VM A's IPs, --vmcs B only VM B's: VM A's CR3 is the
#    host's, only its VMCS keeps it apart;
#  - --summary: a host context and both guests, each VM with
#    instructions and TSC ticks (the guests' code decodes: vmx_guest_code;
#    a context of VM A, one per host CR3, may be too short for a tick);
#  - without --guest-image no guest IP at all (never the host's code);
#  - sideband.txt has the fake vCPU's kvm.vcpu line, and decode --tsc,
#    with no --guest-tsc, puts every guest instruction's time between
#    the host instructions' around it, give or take one MTC period (guest
#    TSC packets converted with the recorded offset/ratio, MTC unscaled),
#    and no host instruction's before the host's before it (the first
#    after a VM exit is timed from the guest's TSC packets); with
#    --guest-tsc VMCS:0:0 (no conversion) they lie 2^40 off; all
#    within the host TSC span (where no host instruction decodes: the
#    debug kernel has no /proc/kcore, so no kernel text is recorded).
# Table 36-48 (host-only tracing) is vmx_host_only's.  icl only: bdw
# cannot trace in VMX operation, min has no VMX.
OUT=/tmp/vmx_decode.$$
# Not on the debug kernel: it has no /proc/kcore, so no host instruction
# decodes and the neighbours check cannot run there (27 s of make check's
# budget for the rest, the decoder's, which is the same on every kernel;
# the model's guests run there in vmx_nopip, vmx_contexts, vmx_system,
# vmx_host_only and vmx_host_decode).
[ ! -e /proc/lockdep ] || { echo "SKIP: not on the debug kernel (no kernel text there: no host instruction decodes)"; exit 77; }
. /ptt/work/vmx_lib.sh
vmx_icl_only
vmx_require
TB=$(cat $P/model_tick_bytes)
cleanup() {
	echo "$TB" >$P/model_tick_bytes
	vmx_cleanup
}
vmx_traps cleanup
vmx_guest_images

OFF=1099511627776	# 2^40
RATIO=422212465065984	# 1.5 * 2^48
K="$OUT/kvm/1234-12/vcpu0"
mkdir -p "$K"
echo $OFF >"$K/tsc-offset"
echo $((RATIO >> 8)) >"$K/tsc-scaling-ratio"	# in 40 fraction bits
echo 40 >"$K/tsc-scaling-ratio-frac-bits"
echo $OFF >$P/model_vmx_tsc_offset
echo $RATIO >$P/model_vmx_tsc_ratio
echo "0 on" >$M/vmx
echo 1 >$P/model_vmx
# 3000 bytes a tick: PSBs (every 8 KiB) drift across the visits of both
# VMs (2048 would put them in the same phase of the A, A, B, B cycle).
echo 3000 >$P/model_tick_bytes
t0=$(cut -d' ' -f1 /proc/uptime)
PTT_KVM_DEBUGFS="$OUT/kvm" pt record -a -C 0 -d 1 -b 256K -m flight --psb-period 2 --mtc \
	-o "$OUT/rec" 2>"$OUT/rec.err" ||
	{ cat "$OUT/rec.err" >&2; bad "record exited non-zero"; exit 1; }
echo 0 >$P/model_vmx
echo "0 off" >$M/vmx
SB="$OUT/rec/sideband.txt"
grep -qx "kvm.vcpu=1234-12/vcpu0 tsc_offset=$OFF tsc_ratio=$((RATIO >> 8)) frac_bits=40" "$SB" ||
	bad "sideband.txt lacks the fake vCPU: $(grep '^kvm' "$SB" | tr '\n' ' ')"

echo "PTT-INFO record: $(awk -v t="$t0" '{ print $1 - t }' /proc/uptime) s"
dec() {
	pt decode --format=ip "$@" "$OUT/rec/cpu0.pt" 2>>"$OUT/dec.err"
}
pt decode --format=raw --tsc $GI "$OUT/rec/cpu0.pt" >"$OUT/tsc" 2>>"$OUT/dec.err"
awk '/^[0-9a-f]+  [0-9a-f]+ / { print $2 }' "$OUT/tsc" >"$OUT/all"
dec $GI --host-only >"$OUT/host"
dec $GI --guest-only >"$OUT/guest"
dec $GI --vmcs $A >"$OUT/a"
dec $GI --vmcs $B >"$OUT/b"
dec >"$OUT/noimg"
pt decode -q --summary $GI "$OUT/rec/cpu0.pt" >"$OUT/sum" 2>>"$OUT/dec.err"
echo "PTT-INFO decodes: $(awk -v t="$t0" '{ print $1 - t }' /proc/uptime) s"
for f in all host guest a b noimg; do
	echo "PTT-INFO $f: $(classify "$OUT/$f")"
done
grep '^#' "$OUT/sum" | sed 's/^/PTT-INFO /'
all=$(classify "$OUT/all")
case "$all" in *a=*) ;; *) bad "no instruction of VM A decoded: $all" ;; esac
case "$all" in *b=*) ;; *) bad "no instruction of VM B decoded: $all" ;; esac
case "$(classify "$OUT/host")" in *a=*|*b=*) bad "--host-only has guest IPs: $(classify "$OUT/host")" ;; esac
case "$(classify "$OUT/guest")" in *h=*) bad "--guest-only has host IPs: $(classify "$OUT/guest")" ;; esac
[ "$(classify "$OUT/a")" = "a=$(grep -c "$GA_RE" "$OUT/all") " ] ||
	bad "--vmcs A: $(classify "$OUT/a"), not all of VM A's and only them"
[ "$(classify "$OUT/b")" = "b=$(grep -c "$GB_RE" "$OUT/all") " ] ||
	bad "--vmcs B: $(classify "$OUT/b"), not all of VM B's and only them"
n_all=$(wc -l <"$OUT/all") n_h=$(wc -l <"$OUT/host") n_g=$(wc -l <"$OUT/guest")
[ "$n_all" = $((n_h + n_g)) ] || bad "host $n_h + guest $n_g instructions, the whole listing $n_all"
case "$(classify "$OUT/noimg")" in *a=*|*b=*) bad "guest IPs without --guest-image: $(classify "$OUT/noimg")" ;; esac
grep -q '^# guest   0x0000000012345000 .* [1-9][0-9]* ' "$OUT/sum" || bad "--summary: no VM A context"
grep -q '^# guest   0x000000006789a000 0x0000000076543000 ' "$OUT/sum" || bad "--summary: no VM B context"
grep -q '^# host ' "$OUT/sum" || bad "--summary: no host context"
# "# guest VMCS CR3 INSNS TSC-TICKS PACKETS FIRST .. LAST", summed by VM
awk '$1 == "#" && $2 == "guest" { n[$3] += $5; t[$3] += $6 }
	END { for (v in n) if (!(n[v] > 0 && t[v] > 0)) print v, n[v], t[v] }' "$OUT/sum" >"$OUT/sum.bad"
[ ! -s "$OUT/sum.bad" ] || bad "--summary: a VM without instructions or TSC ticks (VMCS insns ticks): $(head -n 1 "$OUT/sum.bad")"

# --tsc: the guests' times in host time.  Each guest line between the
# host lines before and after it, one MTC period of slack (2^mtc_freq
# crystal ticks, cpuid15.ebx/eax TSC ticks each).
mtc=$(sed -n 's/^mtc_freq=//p' "$SB") eax=$(sed -n 's/^cpuid15.eax=//p' "$SB") ebx=$(sed -n 's/^cpuid15.ebx=//p' "$SB")
case "$mtc$eax$ebx" in
*[!0-9]* | "") per=0 ;;
*) [ "$eax" -gt 0 ] && per=$(((1 << mtc) * ebx / eax)) || per=0 ;;
esac
echo "PTT-INFO MTC period $per TSC ticks (mtc_freq=$mtc cpuid15=$eax/$ebx)"
[ "$per" -gt 0 ] || bad "no MTC period in the sideband (mtc_freq, cpuid15.eax/ebx)"
# The listing's times, "N TSC g|h" a line (uniq -c): N guest or host
# lines in a row at that TSC.  busybox awk takes ~0.2 ms a line under TCG
# to read a hex TSC, and most lines share their TSC with the one before.
tsc_runs() {
	sed -rn 's/^([0-9a-f]{16})  (000010000000|000000000804)[0-9a-f]{4} .*/\1 g/p
		s/^([0-9a-f]{16})  [0-9a-f]{16} .*/\1 h/p' "$1" | uniq -c
}
between() {
	awk -v per="$per" '
	function hex(s,  i, v) { v = 0; s = tolower(s)
		for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v }
	{
		t = hex($2)
		if ($3 == "h") {
			for (i = 0; i < np; i++) if (pend[i] > t + per && bad++ < 3)
				printf "PTT-INFO guest at %s, host after at %s\n", pend[i], t > "/dev/stderr"
			if (have && t < last - per && bad++ < 3)
				printf "PTT-INFO host at %s, host before at %s\n", t, last > "/dev/stderr"
			np = 0; last = t; have = 1; hosts += $1
		} else {
			guests += $1
			if (have && t < last - per && bad++ < 3)
				printf "PTT-INFO guest at %s, host before at %s\n", t, last > "/dev/stderr"
			pend[np++] = t
		}
	}
	END { printf "%d %d %d\n", guests + 0, hosts + 0, bad + 0 }'
}
echo "PTT-INFO listings classified: $(awk -v t="$t0" '{ print $1 - t }' /proc/uptime) s"
tsc_runs "$OUT/tsc" >"$OUT/tsc.t"
between <"$OUT/tsc.t" >"$OUT/conv"
# And all within the host TSC packets' span (--summary's host lines:
# first .. last), give or take that span's length: a flight ring may
# begin in a guest, before the first host TSC, and on a loaded machine
# the model's ticks pause (84M TSC ticks before a 243M span once, 10%
# failed); unconverted they lie 2^40 away, with the ratio left in a
# third of the TSC.  Where the kernel's text is not in the recording (no
# /proc/kcore, the debug kernel) no host instruction decodes and this
# is the check that remains.
span() {
	awk -v per="$per" -v lo="$(awk '$2 == "host" && $8 != "-" { print $8 }' "$OUT/sum" | sort -n | head -n 1)" \
		-v hi="$(awk '$2 == "host" && $8 != "-" { print $10 }' "$OUT/sum" | sort -n | tail -n 1)" '
	function hex(s,  i, v) { v = 0; s = tolower(s)
		for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v }
	BEGIN { sl = hi - lo + per }
	$3 == "g" {
		t = hex($2)
		if ((t < lo - sl || t > hi + sl) && out++ < 3)
			printf "PTT-INFO guest at %.0f, host span %.0f..%.0f\n", t, lo, hi > "/dev/stderr"
	}
	END { print out + 0 }'
}
pt decode --format=raw --tsc $GI --guest-tsc $A:0:0 --guest-tsc $B:0:0 \
	"$OUT/rec/cpu0.pt" 2>>"$OUT/dec.err" >"$OUT/tsc-raw"
tsc_runs "$OUT/tsc-raw" >"$OUT/tsc-raw.t"
between <"$OUT/tsc-raw.t" >"$OUT/raw"
so=$(span <"$OUT/tsc.t") sr=$(span <"$OUT/tsc-raw.t")
read g h nb <"$OUT/conv"
echo "PTT-INFO TSC checks: $(awk -v t="$t0" '{ print $1 - t }' /proc/uptime) s"
echo "PTT-INFO converted: $g guest and $h host lines, $nb guest times outside their host neighbours', $so outside the host span; unconverted: $(cat "$OUT/raw"), $sr outside"
[ "$g" -gt 0 ] || bad "--tsc: no guest line"
[ "$so" = 0 ] || bad "$so converted guest times outside the host TSC span (+- its length)"
[ "$sr" -gt 0 ] || bad "unconverted guest times inside the host TSC span: the offset did nothing"
if grep -q '^kernel.text=unavailable' "$SB"; then
	echo "PTT-INFO no kernel text in the recording: no host instruction, neighbours not compared"
else
	[ "$h" -gt 0 ] || bad "--tsc: no host line"
	[ "$nb" = 0 ] || bad "$nb converted guest times not between the host times around them (+-$per)"
	read g h nb <"$OUT/raw"
	[ "$nb" -gt 0 ] || bad "unconverted guest times between the host's: the offset did nothing"
fi
[ $fail = 0 ] || sed 's/^/dec.err: /' "$OUT/dec.err" | sort | uniq -c | head -n 10 >&2
exit $fail
