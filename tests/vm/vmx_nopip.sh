#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ptt-timeout: 60
# A CPU whose VM entries send no PIP (the model's profile icl-nopip, SDM
# 36.5.2.5's missing PIP; model.rst "Guests"), recorded through the
# driver, and pt-trace decode inferring the guest at each entry
# (decode_vmx.c, dvmx_other_side()).  The model is loaded again with
# model_profile=icl-nopip for this test alone (not a profile of the
# runner's: that would run every test once more per kernel), then as the
# runner loaded it.  Guests system-wide (model_vmx=1), the host filtered
# out by two address ranges over the guests' code, so that every entry
# is a TIP.PGE(guest IP) with no PIP before it, after the exit's
# PIP(host CR3, NR=0) and TIP.PGD:
#  - the trace has entries (TIP.PGE) and no PIP with NR=1 outside PSB+;
#  - decode, with the guests' code (the model's vmx_guest_code) as a raw
#    --guest-image, warns "the VM entry to IP has no PIP" at every entry
#    whose guest runs code before a PSB+ names its context (a TIP.PGE
#    followed by a TNT or TIP: a visit the tick ended at once has no
#    instruction to infer from), naming the VMCS whose guest that IP
#    is, for entries into each VM (B's change CS.L too), and has no
#    error at all: no "no memory mapped" (each such entry would be one
#    without the inference), and each guest's packets walk its code;
#  - there are guest instructions and no host one, --host-only is
#    empty, --vmcs A has all of VM A's IPs and only them, so B's are in
#    no VM A context (the inferred VMCS is right).
# Stream mode from TraceEn, whose PSB+ is in the host: see below.
# icl only: bdw cannot trace in VMX operation, min has no VMX.
. /ptt/lib.sh
OUT=/tmp/vmx_nopip.$$
. /ptt/work/vmx_lib.sh
[ "$PTT_PROFILE" = "" ] || [ "$PTT_PROFILE" = icl ] ||
	{ echo "SKIP: icl only (icl-nopip is icl whose VM entries have no PIP; bdw cannot trace in VMX operation, min has no VMX)" >&2; exit 77; }
[ -w $M/vmx ] || { echo "SKIP: no vmx hook" >&2; exit 77; }
[ -w $P/model_vmx ] || { echo "FAIL: the model cannot run guests" >&2; exit 1; }
reloaded=0
cleanup() {
	if [ $reloaded = 1 ]; then
		echo 0 >$P/model_vmx
		echo "0 off" >$M/vmx
		ptt_unload_model &&
			ptt_load_model model_profile="${PTT_PROFILE:-icl}" ||
			echo "FAIL: loading the model again as the runner did" >&2
	fi
	# a failure leaves the recording and the listings to the runner
	[ $fail = 0 ] || [ -z "$PTT_OUT" ] || cp -r "$OUT" "$PTT_OUT/" 2>/dev/null
	rm -rf "$OUT"
}
trap cleanup EXIT
trap 'exit 1' TERM INT HUP
ulimit -f 131072
ptt_unload_model || { echo "FAIL: rmmod" >&2; exit 1; }
reloaded=1
ptt_load_model model_profile=icl-nopip ||
	{ echo "FAIL: insmod with model_profile=icl-nopip" >&2; exit 1; }
[ "$(cat /sys/kernel/pt_trace/vmx/trace_in_vmx 2>/dev/null)" = 1 ] ||
	{ echo "FAIL: icl-nopip cannot trace in VMX operation" >&2; exit 1; }
vmx_guest_images

# Stream mode: the trace starts at TraceEn, with a PSB+ in the host, so
# that the decoder is in sync from the first entry on.  64-byte ticks: a
# PSB+ falls at a tick's start, in the host, often enough (a PSB+ in a
# guest, with its FUP, is decoded on from too).
echo 64 >$P/model_tick_bytes
echo "0 on" >$M/vmx
echo 1 >$P/model_vmx
pt record -a -C 0 -d 0.3 -b 64K -m stream --psb-period 0 \
	--filter 0x100000000000-0x10000000ffff --filter 0x08040000-0x0804ffff \
	-o "$OUT/rec" 2>"$OUT/rec.err" ||
	{ cat "$OUT/rec.err" >&2; bad "record exited non-zero"; exit 1; }
echo 0 >$P/model_vmx
echo "0 off" >$M/vmx
# --filter A-B goes to the sideband as a SYMBOL's range does, with "-" for
# the symbol and the file (decode gives libipt every range: SKL014).
grep -qx 'filter=- 0x100000000000 0x10000000ffff -' "$OUT/rec/sideband.txt" &&
	grep -qx 'filter=- 0x8040000 0x804ffff -' "$OUT/rec/sideband.txt" ||
	bad "the --filter A-B ranges are not in the sideband: $(grep '^filter' "$OUT/rec/sideband.txt" | tr '\n' ' ')"
# The trace alone, without the recording's sideband: the host is
# filtered out, and each decode would read the kernel's text from it.
mkdir -p "$OUT/t"
cp "$OUT/rec/cpu0.pt" "$OUT/t/" || bad "no trace of CPU 0"
TR="$OUT/t/cpu0.pt"
t0=$(cut -d' ' -f1 /proc/uptime)

# The packets: entries, and PIP.NR=1 only in PSB+.
pt dump "$TR" >"$OUT/dump" 2>"$OUT/dump.err" || bad "dump: $(head -n 3 "$OUT/dump.err")"
pge=$(grep -c ' tip\.pge ' "$OUT/dump")
# The entries whose guest runs (a TNT or TIP next, timing aside).
runs=$(awk '$2 ~ /^(mtc|cyc|tsc|tma|cbr)$/ { next }
	e { if ($2 ~ /^(tnt\.8|tnt\.64|tip)$/) n++; e = 0 }
	$2 == "tip.pge" { e = 1 } END { print n + 0 }' "$OUT/dump")
nr_out=$(awk '$2 == "psb" { p = 1 } $2 == "psbend" { p = 0 }
	$2 == "pip" && / nr/ && !p { n++ } END { print n + 0 }' "$OUT/dump")
nr_in=$(awk '$2 == "pip" && / nr/ { n++ } END { print n + 0 }' "$OUT/dump")
echo "PTT-INFO $pge TIP.PGE ($runs with guest code after), PIP.NR=1: $nr_in, $nr_out of them outside PSB+"
[ "$pge" -gt 0 ] || bad "no TIP.PGE: no VM entry into a traced guest"
[ "$nr_out" = 0 ] || bad "$nr_out PIPs with NR=1 outside PSB+: the entries are not icl-nopip's"

echo "PTT-INFO dump: $(awk -v t="$t0" '{ print $1 - t }' /proc/uptime) s"
pt decode $GI "$TR" >"$OUT/full" 2>"$OUT/full.err"
pt decode --format=ip $GI "$TR" >"$OUT/all" 2>/dev/null
pt decode --format=ip $GI --host-only "$TR" >"$OUT/host" 2>/dev/null
pt decode --format=ip $GI --vmcs $A "$TR" >"$OUT/a" 2>/dev/null
echo "PTT-INFO decodes: $(awk -v t="$t0" '{ print $1 - t }' /proc/uptime) s"
for f in all host a; do
	echo "PTT-INFO $f: $(classify "$OUT/$f")"
done
sed 's/^/PTT-INFO decode: /' "$OUT/full.err" | head -n 4
grep '^\[' "$OUT/full" | grep -v '^\[end of trace\]$' >"$OUT/errors"
sed 's/^\[[0-9a-f]*, [0-9a-f]*: //' "$OUT/errors" | sort | uniq -c | sed 's/^/PTT-INFO errors: /'
[ ! -s "$OUT/errors" ] ||
	bad "$(grep -c . "$OUT/errors") decode errors: the guests' packets do not walk their code, first: $(head -n 1 "$OUT/errors")"
all=$(classify "$OUT/all")
case "$all" in *a=*|*b=*) ;; *) bad "no guest instruction decoded: $all" ;; esac
case "$all" in *h=*) bad "host IPs in a trace filtered to the guests: $all" ;; esac
[ ! -s "$OUT/host" ] || bad "--host-only lists $(classify "$OUT/host")"
grep "$GA_RE" "$OUT/all" | cmp -s - "$OUT/a" ||
	bad "--vmcs A: $(classify "$OUT/a"), not all of VM A's and only them"

# The warnings: each names the VMCS of the guest its IP is in.
W="$OUT/warn"
sed -n 's/.*warning: offset 0x[0-9a-f]*: the VM entry to 0x\([0-9a-f]*\) has no PIP (the code there is not the host.s but the guest.s of VMCS 0x\([0-9a-f]*\)): taken as that guest.s, CR3 [^ ]* (inferred)$/\1 \2/p' \
	"$OUT/full.err" >"$W"
nw=$(grep -c . "$W")
wrong=$(awk '{ vm = length($1) > 8 ? "12345000" : "6789a000"
	if ($2 != vm) n++ } END { print n + 0 }' "$W")
nb=$(grep -c ' 6789a000$' "$W")
echo "PTT-INFO $nw entry warnings ($nb into VM B), $wrong naming another VM's VMCS"
[ "$nw" -gt 0 ] || bad "no \"VM entry ... has no PIP\" warning"
# Past DVMX_NO_PIP_WARN named ones, decode says how many in all.
all_w=$(sed -n 's/.*warning: \([0-9]*\) VM entries had no PIP .*/\1/p' "$OUT/full.err")
echo "PTT-INFO ${all_w:-$nw} entries inferred in all"
[ "${all_w:-$nw}" = "$runs" ] ||
	bad "${all_w:-$nw} entries inferred for $runs entries into guest code: not every entry inferred"
# Both VMs: VM B's entries also change CS.L (MODE.Exec before TIP.PGE).
[ "$nb" -gt 0 ] && [ "$nb" -lt "$nw" ] || bad "entry warnings: $nb of $nw into VM B, not both VMs"
[ "$wrong" = 0 ] || bad "$wrong warnings name the wrong VMCS"
nomap=$(grep -c 'no memory mapped' "$OUT/full")
[ "$nomap" = 0 ] || bad "$nomap \"no memory mapped\" errors: entries not inferred"
exit $fail
