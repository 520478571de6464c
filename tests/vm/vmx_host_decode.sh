#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ptt-timeout: 60
# Host-only tracing (model_vmx=2, SDM 36.5.2.2, KVM's pt_mode=1 with a
# guest not tracing) recorded through the driver and read with pt-trace
# (vmx_host_only reads the same mode with libipt's packet decoder):
#  - pt-trace dump shows Table 36-48: each VM entry a TIP.PGD with no IP,
#    followed (timing packets aside) by MODE.Exec or straight by the VM
#    exit's TIP.PGE, whose IP is the host's; no PIP with NR set; VMPTRLD's
#    VMCS packets name both VMs;
#  - the recording says kvm.pt_mode=1 (faked: PTT_KVM_PT_MODE; the
#    model's host-only mode is what KVM's pt_mode=1 does to a host trace);
#  - decode, given both guests' images at the host's own addresses (the
#    first PSB+'s IP: a guest kernel where the host's is), decodes no
#    guest and infers no VM entry without PIP (a TIP.PGE after TIP.PGD()
#    looks the same), and says the trace holds no guest code; without
#    the recording's pt_mode it does infer them (the test's control);
#    --guest-only lists nothing;
#  - contexts has no guest context.
# icl only: bdw cannot trace in VMX operation, min has no VMX.
OUT=/tmp/vmx_host_decode.$$
. /ptt/work/vmx_lib.sh
vmx_icl_only
vmx_require
vmx_traps
vmx_guest_images

echo "0 on" >$M/vmx
echo 2 >$P/model_vmx
echo 1 >"$OUT/pt_mode"
PTT_KVM_PT_MODE="$OUT/pt_mode" pt record -a -C 0 -d 0.3 -b 64K -m flight --psb-period 2 \
	-o "$OUT/rec" 2>"$OUT/rec.err" ||
	{ cat "$OUT/rec.err" >&2; bad "record exited non-zero"; exit 1; }
echo 0 >$P/model_vmx
echo "0 off" >$M/vmx
TR="$OUT/rec/cpu0.pt"

# Table 36-48 in pt-trace dump's listing ("OFFSET  NAME  PAYLOAD ...").
pt dump "$TR" >"$OUT/dump" 2>"$OUT/dump.err" || bad "dump: $(head -n 3 "$OUT/dump.err")"
set -- $(awk '
	function guest(ip) { return ip ~ /^000010000000/ || ip ~ /^000000000804/ }
	$2 == "psb" { p = 1 } $2 == "psbend" { p = 0 }
	$2 == "pip" && / nr/ { nr++ }
	$2 == "vmcs" && !p { v[$3]++ }
	$2 == "mtc" || $2 == "cyc" || $2 == "tsc" || $2 == "tma" || $2 == "cbr" { next }
	want == 1 && $2 == "mode.exec" { want = 2; next }
	want { if ($2 == "tip.pge" && !guest($NF)) ok++; else if (bad++ < 3)
		printf "PTT-INFO after TIP.PGD() at %s: %s %s\n", at, $1, $2 > "/dev/stderr"
		want = 0 }
	$2 == "tip.pgd" && $3 == "0:" { pgd++; want = 1; at = $1 }
	END { printf "%d %d %d %d %d %d\n", pgd, ok, bad, nr, v["12345000"], v["6789a000"] }' "$OUT/dump")
echo "PTT-INFO $1 TIP.PGD(), $2 exits as Table 36-48, $3 not; $4 PIP.NR; VMPTRLD A $5 B $6"
[ "$1" -gt 0 ] || bad "no TIP.PGD() (VM entry) in the listing"
[ "$2" -gt 0 ] || bad "no VM exit as TIP.PGE(host IP)"
[ "$3" = 0 ] || bad "$3 VM entries not followed by Table 36-48's exit"
[ "$4" = 0 ] || bad "$4 PIPs with NR set in a host-only trace"
[ "$5" -gt 0 ] && [ "$6" -gt 0 ] || bad "VMPTRLD's VMCS packets: A $5, B $6"

# The trace with only the recording's KVM lines for a sideband (the
# kernel text it also has would be read by each decode for the few host
# instructions the model's sampled IPs give): the host has no code, and
# each "no memory mapped" at a host IP is where decode tries a guest's.
grep -qx 'kvm.pt_mode=1' "$OUT/rec/sideband.txt" || bad "sideband.txt lacks kvm.pt_mode=1"
mkdir -p "$OUT/t" "$OUT/c"
cp "$TR" "$OUT/t/"
cp "$TR" "$OUT/c/"
{ echo pt-trace-sideband=1; grep '^kvm\.' "$OUT/rec/sideband.txt"; } >"$OUT/t/sideband.txt"
# Both guests' code (vmx_guest_code) over the first PSB+'s host IP.
hip=$(awk '$2 == "psb" { p = 1 } $2 == "psbend" { p = 0 }
	p && $2 == "fup" && $NF ~ /^[0-9a-f]+$/ { print $NF; exit }' "$OUT/dump")
[ -n "$hip" ] || bad "no FUP in a PSB+"
base=0x$(echo "$hip" | cut -c1-12)0000
GH="--guest-image $A:$OUT/guest.bin@$base --guest-image $B:$OUT/guest.bin@$base"
echo "PTT-INFO first PSB+ at $hip: the guests' code at $base"
t0=$(cut -d' ' -f1 /proc/uptime)
pt decode --summary $GH "$OUT/t/cpu0.pt" >"$OUT/full" 2>"$OUT/full.err"
pt decode --format=ip $GH --guest-only "$OUT/t/cpu0.pt" >"$OUT/guest" 2>/dev/null
pt decode -q --summary $GH "$OUT/c/cpu0.pt" >"$OUT/ctl" 2>"$OUT/ctl.err"
pt contexts "$TR" >"$OUT/ctx" 2>/dev/null || bad "contexts exited non-zero"
echo "PTT-INFO decodes: $(awk -v t="$t0" '{ print $1 - t }' /proc/uptime) s"
sed 's/^/PTT-INFO /' "$OUT/ctx"
grep '^#' "$OUT/full" | sed 's/^/PTT-INFO /'
sed 's/^/PTT-INFO decode: /' "$OUT/full.err" | head -n 4
echo "PTT-INFO without the sideband: $(grep -c 'has no PIP' "$OUT/ctl.err") entries inferred"
grep -q 'has no PIP' "$OUT/ctl.err" ||
	bad "setup: even without kvm.pt_mode=1 no VM entry was inferred (the guests' images miss the host's IPs)"
if grep -q 'has no PIP' "$OUT/full.err"; then
	bad "decode inferred a guest: $(grep -m 1 'has no PIP' "$OUT/full.err")"
fi
grep -q 'pt_mode=1.*holds no guest code' "$OUT/full.err" ||
	bad "decode did not say that a pt_mode=1 trace holds no guest code"
grep -q '^# guest ' "$OUT/full" && bad "--summary has a guest context: $(grep '^# guest ' "$OUT/full" | head -n 1)"
[ ! -s "$OUT/guest" ] || bad "--guest-only lists $(wc -l <"$OUT/guest") instructions"
grep -q '^guest ' "$OUT/ctx" && bad "contexts has a guest: $(grep '^guest ' "$OUT/ctx" | head -n 1)"
grep -q '^host ' "$OUT/ctx" || bad "contexts has no host context"
exit $fail
