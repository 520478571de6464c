#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ptt-timeout: 60
# pt-trace record of a CPU whose model runs guests system-wide
# (model_vmx=1, guest TSC offset 2^40 and ratio 1.5), then pt-trace
# contexts keeps them apart by (VMCS, PIP.NR, CR3):
#  - a host context (VMCS 0), VM A's (VMCS 0x12345000) marked as having
#    the host's CR3, VM B's (VMCS 0x6789a000, CR3 0x76543000);
#  - sideband.txt says vmx=1, vmx.trace_in_vmx=1, vmx.cpus_on=0 and
#    kvm.pt_mode=- (no kvm_intel);
#  - with --guest-tsc for both VMs the guests' TSCs convert to host
#    times within the recording's (tsc.start..tsc.end); without it they
#    lie 2^40 later.
# icl only: bdw cannot trace in VMX operation, min has no VMX.
OUT=/tmp/vmx_contexts.$$
. /ptt/work/vmx_lib.sh
vmx_require
vmx_traps
OFF=1099511627776	# 2^40
RATIO=422212465065984	# 1.5 * 2^48
echo $OFF >$P/model_vmx_tsc_offset
echo $RATIO >$P/model_vmx_tsc_ratio
echo "0 on" >$M/vmx
echo 1 >$P/model_vmx
"$PT" record -a -C 0 -d 1 -m flight --psb-period 2 -o "$OUT" 2>"$OUT.err" ||
	{ cat "$OUT.err" >&2; bad "record exited non-zero"; exit 1; }
# OS=1: PIPs tell guests from the host, so no warning that they cannot.
grep -q 'no PIP is written' "$OUT.err" && bad "record warned of no PIP with OS=1: $(cat "$OUT.err")"
# The sideband says the VMX situation at the recording.
for kv in vmx=1 vmx.trace_in_vmx=1 vmx.cpus_on=0 kvm.pt_mode=-; do
	grep -qx "$kv" "$OUT/sideband.txt" || bad "sideband.txt lacks $kv"
done
"$PT" contexts --guest-tsc 0x12345000:$OFF:$RATIO \
	--guest-tsc 0x6789a000:$OFF:$RATIO "$OUT/cpu0.pt" >"$OUT/ctx" ||
	bad "contexts exited $?"
"$PT" contexts "$OUT/cpu0.pt" >"$OUT/raw" || bad "contexts exited $?"
sed 's/^/PTT-INFO /' "$OUT/ctx"
grep -q '^host   0x0000000000000000 ' "$OUT/ctx" || bad "no host context"
grep -q '^guest  0x0000000012345000 .*(the host.s CR3 too)$' "$OUT/ctx" ||
	bad "no VM A context sharing the host's CR3"
grep -q '^guest  0x000000006789a000 0x0000000076543000 ' "$OUT/ctx" ||
	bad "no VM B context"
grep -q '^guest  0x0000000012345000 0x0000000076543000\|^guest  0x000000006789a000 0x0000000000' "$OUT/ctx" &&
	bad "a VM with the other's CR3"
# Field 6 is the first host TSC, 8 the last ("first .. last").
span() {
	awk -v w="$2" '$1 == w && $6 != "-" {
		if (lo == "" || $6 < lo) lo = $6; if ($8 > hi) hi = $8 }
		END { print lo, hi }' "$1"
}
set -- $(span "$OUT/ctx" host)
hlo=$1 hhi=$2
set -- $(span "$OUT/ctx" guest)
glo=$1 ghi=$2
echo "PTT-INFO host TSC $hlo..$hhi, guest (converted) $glo..$ghi"
[ -n "$glo" ] || bad "no guest TSC packet"
# Every TSC packet of the recording, host or converted guest, lies
# between the TSC the recorder read on cpu0 at its start and at its end
# (tsc.start/tsc.end in sideband.txt: CPU NS TSC ERR), a tenth of that
# span of slack for the sampling; offset 2^40 or ratio 1.5 left in would
# put the guests 10^12 or a third of the TSC away.  (Not the host's own
# span: a flight ring under load may hold the host only in its last
# tens of ms and a guest for the whole second before.)
set -- $(sed -n 's/^tsc\.start=0 //p' "$OUT/sideband.txt")
rs=${2:-}
set -- $(sed -n 's/^tsc\.end=0 //p' "$OUT/sideband.txt")
re=${2:-}
[ -n "$rs" ] && [ -n "$re" ] || bad "sideband.txt lacks tsc.start/tsc.end for cpu 0"
echo "PTT-INFO recording TSC $rs..$re"
inside() {
	awk -v a="$1" -v b="$2" -v lo="$rs" -v hi="$re" 'BEGIN {
		s = (hi - lo) / 10
		exit !(a >= lo - s && b <= hi + s && a <= b) }'
}
inside "$hlo" "$hhi" || bad "host TSCs $hlo..$hhi not within the recording's $rs..$re"
inside "$glo" "$ghi" ||
	bad "converted guest TSCs $glo..$ghi not within the recording's $rs..$re"
set -- $(span "$OUT/raw" guest)
inside "$1" "$2" &&
	bad "unconverted guest TSCs $1..$2 within the recording: the offset did nothing"
exit $fail
