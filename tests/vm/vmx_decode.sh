#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ptt-timeout: 120
# pt-trace decode's VMX contexts (decode_vmx.c) on traces the model's
# guests make through the driver (model.rst "Guests"; VM A at
# 0x100000000000 with the host's own CR3, VM B at 0x08040000):
#  system-wide (model_vmx=1), each guest's code a raw --guest-image
#  (0x74 bytes: jz, which walks the guest's TNTs):
#   - the unfiltered decode has instructions of both VMs;
#   - --host-only has no guest IP, --guest-only only guest IPs, and the
#     two together are the unfiltered listing (none of unknown context:
#     every PSB+ has a PIP);
#   - --vmcs A only VM A's IPs, --vmcs B only VM B's: VM A's CR3 is the
#     host's, only its VMCS keeps it apart;
#   - --summary: a host context and both guests with instructions;
#   - without --guest-image no guest IP at all (never the host's code).
#  - with the guests' TSC offset 2^40 and ratio 1.5 given (--guest-tsc),
#    every guest instruction's --tsc time lies between the host
#    instructions' around it, give or take one MTC period: guest TSC
#    packets converted, MTC counted unscaled; without, they lie 2^40 off.
#  host-only (model_vmx=2, Table 36-48): no guest instruction, no guest
#  context.
# icl only: bdw cannot trace in VMX operation, min has no VMX.
M=/sys/kernel/debug/pt_trace/model
P=/sys/module/pt_trace_model/parameters
OUT=/tmp/vmx_decode.$$
fail=0
bad() {
	echo "FAIL: $*" >&2
	fail=1
}
PT=$(command -v pt-trace)
for p in "$PT" /ptt/bin/pt-trace ./tools/build/pt-trace; do
	[ -n "$p" ] && [ -x "$p" ] && PT=$p && break
done
[ -x "$PT" ] || { echo "SKIP: pt-trace not found" >&2; exit 77; }
[ -w $M/vmx ] || { echo "SKIP: no vmx hook" >&2; exit 77; }
[ "$(cat /sys/kernel/pt_trace/vmx/trace_in_vmx 2>/dev/null)" = 1 ] ||
	{ echo "SKIP: no tracing in VMX operation on this profile" >&2; exit 77; }
[ -w $P/model_vmx ] || { echo "FAIL: the model cannot run guests" >&2; exit 1; }
cleanup() {
	echo 0 >$P/model_vmx
	echo 0 >$P/model_vmx_tsc_offset
	echo 0 >$P/model_vmx_tsc_ratio
	echo "0 off" >$M/vmx
	rm -rf "$OUT"
}
trap cleanup EXIT
mkdir -p "$OUT"
A=0x12345000 B=0x6789a000
head -c 65536 /dev/zero | tr '\000' '\164' >"$OUT/guest.bin"
GI="--guest-image $A:$OUT/guest.bin@0x100000000000 --guest-image $B:$OUT/guest.bin@0x08040000"

record() {
	rm -rf "$OUT/rec"
	echo "0 on" >$M/vmx
	echo "$1" >$P/model_vmx
	"$PT" record -a -C 0 -d 1 -m flight --psb-period 2 -o "$OUT/rec" 2>"$OUT/rec.err" ||
		{ cat "$OUT/rec.err" >&2; bad "record (model_vmx=$1) exited non-zero"; }
	echo 0 >$P/model_vmx
	echo "0 off" >$M/vmx
}
# IPs (16 hex digits a line) by where they lie: a, b or h(ost).
classify() {
	awk '{ if (substr($1, 1, 12) == "000010000000") print "a";
	       else if (substr($1, 1, 12) == "000000000804") print "b";
	       else print "h" }' "$1" | sort | uniq -c | awk '{ printf "%s=%s ", $2, $1 }'
}
dec() {
	"$PT" decode --format=ip "$@" "$OUT/rec/cpu0.pt" 2>>"$OUT/dec.err"
}

OFF=1099511627776	# 2^40
RATIO=422212465065984	# 1.5 * 2^48
echo $OFF >$P/model_vmx_tsc_offset
echo $RATIO >$P/model_vmx_tsc_ratio
record 1
dec $GI >"$OUT/all"
dec $GI --host-only >"$OUT/host"
dec $GI --guest-only >"$OUT/guest"
dec $GI --vmcs $A >"$OUT/a"
dec $GI --vmcs $B >"$OUT/b"
dec >"$OUT/noimg"
"$PT" decode -q --summary $GI "$OUT/rec/cpu0.pt" >"$OUT/sum" 2>>"$OUT/dec.err"
for f in all host guest a b noimg; do
	echo "PTT-INFO $f: $(classify "$OUT/$f")"
done
grep '^#' "$OUT/sum" | sed 's/^/PTT-INFO /'
all=$(classify "$OUT/all")
case "$all" in *a=*) ;; *) bad "no instruction of VM A decoded: $all" ;; esac
case "$all" in *b=*) ;; *) bad "no instruction of VM B decoded: $all" ;; esac
case "$(classify "$OUT/host")" in *a=*|*b=*) bad "--host-only has guest IPs: $(classify "$OUT/host")" ;; esac
case "$(classify "$OUT/guest")" in *h=*) bad "--guest-only has host IPs: $(classify "$OUT/guest")" ;; esac
[ "$(classify "$OUT/a")" = "a=$(grep -c '^000010000000' "$OUT/all") " ] ||
	bad "--vmcs A: $(classify "$OUT/a"), not all of VM A's and only them"
[ "$(classify "$OUT/b")" = "b=$(grep -c '^000000000804' "$OUT/all") " ] ||
	bad "--vmcs B: $(classify "$OUT/b"), not all of VM B's and only them"
n_all=$(wc -l <"$OUT/all") n_h=$(wc -l <"$OUT/host") n_g=$(wc -l <"$OUT/guest")
grep -q '^# unknown context' "$OUT/sum" && bad "instructions of unknown context with a PIP in every PSB+"
[ "$n_all" = $((n_h + n_g)) ] || bad "host $n_h + guest $n_g instructions, the whole listing $n_all"
case "$(classify "$OUT/noimg")" in *a=*|*b=*) bad "guest IPs without --guest-image: $(classify "$OUT/noimg")" ;; esac
grep -q '^# guest   0x0000000012345000 .* [1-9][0-9]* ' "$OUT/sum" || bad "--summary: no VM A context"
grep -q '^# guest   0x000000006789a000 0x0000000076543000 ' "$OUT/sum" || bad "--summary: no VM B context"
grep -q '^# host ' "$OUT/sum" || bad "--summary: no host context"

# --tsc: the guests' times in host time.  Each guest line between the
# host lines before and after it, one MTC period of slack (sideband:
# 2^mtc_freq crystal ticks, cpuid15.ebx/eax TSC ticks each).
SB="$OUT/rec/sideband.txt"
mtc=$(sed -n 's/^mtc_freq=//p' "$SB") eax=$(sed -n 's/^cpuid15.eax=//p' "$SB") ebx=$(sed -n 's/^cpuid15.ebx=//p' "$SB")
per=$(awk -v m="$mtc" -v a="$eax" -v b="$ebx" 'BEGIN {
	p = 1; for (i = 0; i < m; i++) p *= 2	# no ^ in busybox awk
	if (a + 0 == 0 || m == "") print 0; else print p * b / a }')
echo "PTT-INFO MTC period $per TSC ticks (mtc_freq=$mtc cpuid15=$eax/$ebx)"
between() {
	awk -v per="$per" '
	function hex(s,  i, v) { v = 0; s = tolower(s)
		for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v }
	/^[0-9a-f]+  [0-9a-f]+ / {
		t = hex($1); g = substr($2, 1, 12) == "000010000000" || substr($2, 1, 12) == "000000000804"
		if (!g) {
			for (i = 0; i < np; i++) if (pend[i] > t + per) bad++
			np = 0; last = t; have = 1; hosts++
		} else {
			guests++
			if (have && pend_ok(t) == 0) bad++
			pend[np++] = t
		}
	}
	function pend_ok(t) { return t >= last - per }
	END { printf "%d %d %d\n", guests + 0, hosts + 0, bad + 0 }'
}
"$PT" decode --tsc $GI --guest-tsc $A:$OFF:$RATIO --guest-tsc $B:$OFF:$RATIO \
	"$OUT/rec/cpu0.pt" 2>>"$OUT/dec.err" | between >"$OUT/conv"
"$PT" decode --tsc $GI "$OUT/rec/cpu0.pt" 2>>"$OUT/dec.err" | between >"$OUT/raw"
read g h nb <"$OUT/conv"
echo "PTT-INFO converted: $g guest and $h host lines, $nb guest times outside their host neighbours'; unconverted: $(cat "$OUT/raw")"
[ "$per" != 0 ] || bad "no MTC period in the sideband (mtc_freq, cpuid15.eax/ebx)"
[ "$g" -gt 0 ] && [ "$h" -gt 0 ] || bad "--tsc: $g guest and $h host lines"
[ "$nb" = 0 ] || bad "$nb converted guest times not between the host times around them (+-$per)"
read g h nb <"$OUT/raw"
[ "$nb" -gt 0 ] || bad "unconverted guest times between the host's: the offset did nothing"

record 2
dec $GI >"$OUT/all2"
dec $GI --guest-only >"$OUT/guest2"
"$PT" decode -q --summary $GI "$OUT/rec/cpu0.pt" >"$OUT/sum2" 2>>"$OUT/dec.err"
echo "PTT-INFO host-only mode: $(classify "$OUT/all2")"
[ -s "$OUT/guest2" ] && bad "host-only tracing: --guest-only shows $(classify "$OUT/guest2")"
case "$(classify "$OUT/all2")" in *a=*|*b=*) bad "host-only tracing decoded guest IPs" ;; esac
grep -q '^# guest ' "$OUT/sum2" && bad "host-only tracing has a guest context: $(grep '^# guest' "$OUT/sum2" | head -n 1)"
[ $fail = 0 ] || sed 's/^/dec.err: /' "$OUT/dec.err" | sort | uniq -c | head -n 10 >&2
exit $fail
