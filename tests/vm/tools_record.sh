#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ptt-timeout: 120 (on a loaded machine the debug kernel took over 30 s)
# In-VM test of the pt-trace tool on the model backend (busybox sh).
#
# (a) flight recorder: 'pt-trace record -m flight -C 0 -- COMMAND', then the
#     sideband has what a decoder needs and 'dump --stats' finds packets
#     and no decode errors;
# (b) streaming, every CPU, about a second, with a 16 KiB buffer drained
#     every 200 ms (--drain-interval), so the hardware stops at STOP and
#     the driver records gaps: each CPU's cpuN.loss must be complete (its
#     'end' line counts every record the driver made), 'dump --loss' must
#     put each record at its offset with the PSB that restarts the trace
#     right after it, 'dump --stats' must decode every stretch without an
#     error, and the recorder's summary and sideband must give the same
#     loss figures as the records.  When the driver knows the bytes of
#     every gap, they must add up to what the model says it dropped.
#     'decode' must put a line at each gap and a "trace lost" span on
#     the CPU's track of its timeline, whose spans nest.
#
# Exit 0 pass, 77 skip, 1 fail.
#
# On the debug kernel (lockdep, KASAN) icl only: what bdw and min change
# here is the tool's choices (no CPUID 0x15, single-entry ToPA, no
# MTC/PSB/CYC), checked on 6.1 and 6.12; the driver's paths under them
# are the stream_* and capture_* tests' on every kernel.  14 s a run there.

if [ -e /proc/lockdep ] && [ "$PTT_PROFILE" != icl ]; then
	echo "SKIP: icl only on the debug kernel (time budget)"
	exit 77
fi
. /ptt/work/pt_trace_lib.sh
pt_trace_require
[ -e /dev/pt0 ] || { echo "FAIL: /dev/pt0 missing with the module loaded"; exit 1; }

CAPS=/sys/kernel/pt_trace/caps
MODEL=/sys/kernel/debug/pt_trace/model
PARAM=/sys/module/pt_trace_model/parameters
OUT=/tmp/tools_record.$$
fail=0
bad() {
	echo "FAIL: $*"
	fail=1
}
gp0=$(cat $MODEL/gp_faults 2>/dev/null)
rm -rf "$OUT"
mkdir -p "$OUT"

"$PT" info -C 0 >"$OUT/info" || bad "pt-trace info exited $?"
# the errata decode works around on the profile's CPU (cpu_errata.c)
case ${PTT_PROFILE:-icl} in
icl) want="bdm70 skd022 skl014" ;;
bdw) want="bdm70 bdm64" ;;
*) want="" ;;
esac
if [ -n "$want" ]; then
	got=$(sed -n 's/^  decoder errata *//p' "$OUT/info")
	[ "$(echo $got | tr ' ' '\n' | sort | tr '\n' ' ')" = "$(echo $want | tr ' ' '\n' | sort | tr '\n' ' ')" ] ||
		bad "info's decoder errata '$got', want '$want': $(head -n 4 "$OUT/info" | tr '\n' '|')"
fi

# --- (a) flight recorder, a command on cpu0 -------------------------------
# record follows the command (PT_TRACE_IOC_FOLLOW) without pinning it, so
# cpu0 traces it only if it runs there: the recorder (and so the command
# it starts) is put on cpu0.
A=$OUT/flight
if taskset -c 0 "$PT" record -m flight -C 0 -o "$A" -- sh -c 'i=0; while [ $i -lt 2000 ]; do i=$((i+1)); done' 2>"$OUT/a.err"; then
	sed 's/^/a: /' "$OUT/a.err"
	for key in kernel cpu.family cpu.model cpu.stepping caps.flags caps.cpuid14.0 \
		   cpuid15.eax nom_freq.source nominal_mhz.source ctl mtc_freq mode \
		   tsc.start tsc.end exe map pid exit_status cpu.bytes vdso; do
		grep -q "^$key=" "$A/sideband.txt" || bad "sideband lacks $key="
	done
	grep -q '^exit_status=0$' "$A/sideband.txt" || bad "the command's exit status is not 0"
	# the vdso has no file: record keeps a copy that decode loads
	grep -q '^vdso=vdso.so$' "$A/sideband.txt" && grep -q '^map=.* \[vdso\]$' "$A/sideband.txt" &&
		[ "$(head -c 4 "$A/vdso.so" | od -An -tx1 | tr -d ' ')" = 7f454c46 ] ||
		bad "no vdso copy: $(grep '^vdso=' "$A/sideband.txt")"
	# The icl and min profiles enumerate CPUID 0x15 (bdw stops at 0x14,
	# as Broadwell does): the driver passes it on through GET_CAPS.
	[ "$PTT_PROFILE" = bdw ] || grep -q '^cpuid15.source=driver$' "$A/sideband.txt" ||
		bad "cpuid15 not taken from GET_CAPS: $(grep '^cpuid15' "$A/sideband.txt" | tr '\n' ' ')"
	[ -e "$A/cpu0.loss" ] && bad "flight mode wrote a loss file"
	[ -s "$A/cpu0.pt" ] || bad "cpu0.pt is empty"
	"$PT" dump --stats "$A/cpu0.pt" >"$OUT/a.stats" || bad "dump --stats exited $?"
	packets=$(sed -n 's/^packets: //p' "$OUT/a.stats")
	errors=$(sed -n 's/^errors: //p' "$OUT/a.stats")
	echo "PTT-INFO flight: $(stat -c %s "$A/cpu0.pt") bytes, $packets packets, $errors errors"
	[ -n "$packets" ] && [ "$packets" -gt 0 ] || bad "flight: no packets"
	[ "$errors" = 0 ] || bad "flight: $errors decode errors"
else
	cat "$OUT/a.err"
	bad "flight record exited non-zero"
fi

# --- (b) streaming, every CPU, a slow reader -------------------------------
if [ "$(cat $CAPS/topa_output)" != 1 ]; then
	echo "PTT-INFO stream: no ToPA in this profile, streaming not tested"
	rm -rf "$OUT"
	[ -z "$gp0" ] || [ "$(cat $MODEL/gp_faults)" = "$gp0" ] || bad "modelled #GP during the test"
	exit $fail
fi
tick=$(cat $PARAM/model_tick_bytes)
period=$(cat $PARAM/model_period_us)
if [ "$(cat $CAPS/topa_multiple_entries)" != 1 ]; then
	# Single-entry ToPA: the model writes whole ticks, keep them small.
	echo 64 >$PARAM/model_tick_bytes
	echo 100 >$PARAM/model_period_us
fi
lost0=$(cat $MODEL/lost_bytes 2>/dev/null)
B=$OUT/stream
"$PT" record -m stream -b 16K --drain-interval 200 -d 1 -o "$B" 2>"$OUT/b.err"
rc=$?
lost1=$(cat $MODEL/lost_bytes 2>/dev/null)
echo "$tick" >$PARAM/model_tick_bytes
echo "$period" >$PARAM/model_period_us
sed 's/^/b: /' "$OUT/b.err"
[ $rc = 0 ] || bad "stream record exited $rc"

sb() { sed -n "s/^$1=$c //p" "$B/sideband.txt"; }
total_rec=0 total_known=0 total_unknown=0 total_ns=0 total_lapped=0 all_known=1
for dev in /dev/pt[0-9]*; do
	c=${dev#/dev/pt}
	pt=$B/cpu$c.pt loss=$B/cpu$c.loss
	[ -f "$pt" ] || { bad "cpu$c: no cpu$c.pt"; continue; }
	[ -f "$loss" ] || { bad "cpu$c: no cpu$c.loss"; continue; }
	[ "$(head -n 1 "$loss")" = "pt-trace-loss 1" ] || bad "cpu$c.loss: no magic line"
	size=$(stat -c %s "$pt")
	# records, known bytes, unknown, ns, lapped, the 'end' line's count
	# shellcheck disable=SC2046 # eight numbers, split on purpose
	# (a drop's span is a run that was traced: not time lost)
	set -- $(awk '$1 == "loss" { n++; if ($5 == "-") u++; else k += $5
			if ($10 ~ /dropped/) d++; else ns += $7 - $6 }
		$1 == "lapped" { l += $3 }
		$1 == "end" { e = $2; el = $3; seen = 1 }
		END { printf "%d %.0f %d %.0f %d %d %d %d %d\n", n, k, u, ns, l, e, el, seen, d }' "$loss")
	n=$1 known=$2 unknown=$3 ns=$4 lapped=$5 end_n=$6 end_l=$7 seen=$8 dropped=$9
	echo "PTT-INFO cpu$c: $size bytes, $n loss records ($known bytes known, $unknown unknown, $ns ns, $dropped dropped while running), $lapped lapped"
	[ "$seen" = 1 ] || bad "cpu$c.loss has no 'end' line"
	[ "$end_n" = $((n + lapped)) ] || bad "cpu$c.loss: end says $end_n records, file has $n + $lapped lapped"
	[ "$end_l" = "$lapped" ] || bad "cpu$c.loss: end says $end_l lapped, file has $lapped"
	[ "$unknown" = 0 ] || all_known=0
	# the sideband says the same
	[ "$(sb cpu.loss_records)" = "$n" ] || bad "cpu$c: sideband cpu.loss_records=$(sb cpu.loss_records), file $n"
	[ "$(sb cpu.lost_bytes)" = "$known" ] || bad "cpu$c: sideband cpu.lost_bytes=$(sb cpu.lost_bytes), file $known"
	[ "$(sb cpu.loss_unknown)" = "$unknown" ] || bad "cpu$c: sideband cpu.loss_unknown"
	[ "$(sb cpu.lost_ns)" = "$ns" ] || bad "cpu$c: sideband cpu.lost_ns=$(sb cpu.lost_ns), file $ns"
	[ "$(sb cpu.driver_loss_records)" = "$end_n" ] || bad "cpu$c: driver counted $(sb cpu.driver_loss_records) records, file $end_n"
	[ "$(sb cpu.bytes)" = "$size" ] || bad "cpu$c: sideband cpu.bytes=$(sb cpu.bytes), file $size bytes"
	# the driver's own byte count (GET_STATUS), when every record has one
	if [ "$unknown" = 0 ] && [ "$lapped" = 0 ] && [ -n "$(sb cpu.driver_lost_bytes)" ]; then
		[ "$(sb cpu.driver_lost_bytes)" = "$known" ] ||
			bad "cpu$c: driver says $(sb cpu.driver_lost_bytes) bytes lost, records $known"
	fi
	# the per-CPU summary line
	line=$(grep -A1 "^cpu$c " "$OUT/b.err" | sed -n 2p)
	want=$(printf '%s loss records, %s bytes lost (known), %s of unknown size, %s ms not traced' \
		"$n" "$known" "$unknown" "$(awk -v ns="$ns" 'BEGIN { printf "%.3f", ns / 1e6 }')")
	case $line in
	*"$want"*) ;;
	*) bad "cpu$c: summary '$line', records say '$want'" ;;
	esac

	# dump: no decode error in any stretch; each record at its offset,
	# followed by the PSB at that offset (or at the end of the file)
	"$PT" dump --stats "$pt" >"$OUT/st" || bad "cpu$c: dump --stats exited $?"
	# Bytes dropped while running lie somewhere inside a stretch: only
	# without them must every stretch decode cleanly.
	if [ "$dropped" = 0 ]; then
		grep -qx 'errors: 0' "$OUT/st" || bad "cpu$c: $(grep '^errors' "$OUT/st") decoding the stretches between gaps"
	else
		echo "PTT-INFO cpu$c: $(grep '^errors' "$OUT/st") with $dropped drop(s) while running"
	fi
	grep -qx "loss records: $n" "$OUT/st" || bad "cpu$c: dump --stats: $(grep '^loss records' "$OUT/st"), file $n"
	# Of the listing (some 48 000 lines a CPU), only each loss line and
	# the first packet line after it (the awk below skips the rest):
	# busybox awk took 3 s a CPU on 6.12 to skip them, sed far less.
	"$PT" dump --loss "$pt" >"$OUT/text" || bad "cpu$c: dump --loss exited $?"
	sed -n '/^\[[0-9a-f]*: loss: /{
		:a
		p
		n
		/^[0-9a-f][0-9a-f]*  /{
			p
			b
		}
		ba
	}' "$OUT/text" >"$OUT/losses"
	awk -v size="$size" -v cpu="$c" '
		# busybox awk: no strtonum, and %x wraps above 2^31
		function hex(s,  i, v) {
			for (i = 1; i <= length(s); i++)
				v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v
		}
		FNR == NR { if ($1 == "loss") want[++n] = $4; next }
		/^\[[0-9a-f]+: loss: [0-9b]/ {
			split(substr($1, 2), a, ":"); at[++m] = a[1]; pending = a[1]; next
		}
		pending != "" && /^[0-9a-f]+  / {
			o = $1; sub(/^0+/, "", o); if (o == "") o = "0"
			if (o != pending || $2 != "psb") {
				print "cpu" cpu ": after the loss at " pending ": " $0; bad = 1
			}
			pending = ""
		}
		END {
			if (m != n) { print "cpu" cpu ": " m " loss lines, " n " records"; bad = 1 }
			for (i = 1; i <= n && i <= m; i++)
				if (hex(at[i]) != want[i] + 0) {
					print "cpu" cpu ": loss line " i " at " at[i] ", record at " want[i]; bad = 1
				}
			if (pending != "" && hex(pending) != size + 0)
				{ print "cpu" cpu ": loss at " pending " has no packet after it"; bad = 1 }
			exit bad
		}' "$loss" "$OUT/losses" || bad "cpu$c: loss annotations not where the records are"

	total_rec=$((total_rec + n))
	total_known=$((total_known + known))
	total_unknown=$((total_unknown + unknown))
	total_ns=$((total_ns + ns))
	total_lapped=$((total_lapped + lapped))
done

# decode: each gap a line where it lies and a "trace lost" span on its
# CPU's track of the timeline, whose spans ("X" events, written as they
# end: children first) nest.  The decode has no image of the traced code,
# so each stretch stops at its first IP with "no memory mapped": any
# other decode error would be the decoder's or the gap's.  The recording
# holds the kernel's text (kernel.text=) and decode would load it, but
# the sampled model's kernel flow is not what that code does: so decode
# reads a copy of sideband.txt without the kernel.* keys, in a directory
# without sideband.perf (no thread tracks: each CPU keeps its track).
# With no instruction decoded that is exit 2 and "nothing decoded".
dec_rc_ok() {
	[ "$1" = 0 ] || { [ "$1" = 2 ] && grep -q 'error: nothing decoded: 0 instructions' "$2"; }
}
grep -v '^kernel\.' "$B/sideband.txt" >"$OUT/sb-nokernel.txt"
"$PT" decode --sideband "$OUT/sb-nokernel.txt" -q --timeline "$OUT/tl.json" "$B"/cpu*.pt >"$OUT/dec.q" 2>"$OUT/dec.err"
rc=$?
dec_rc_ok $rc "$OUT/dec.err" || bad "decode -q --timeline exited $rc: $(head -c 300 "$OUT/dec.err")"
"$PT" decode --sideband "$OUT/sb-nokernel.txt" "$B"/cpu*.pt >"$OUT/dec" 2>"$OUT/dec.err2"
rc=$?
dec_rc_ok $rc "$OUT/dec.err2" || bad "decode exited $rc: $(head -c 300 "$OUT/dec.err2")"
cat "$OUT/dec.err2" >>"$OUT/dec.err"
sed 's/^/decode: /' "$OUT/dec.err"
grep '^#' "$OUT/dec.q" | sed 's/^# /PTT-INFO decode: /'
others=$(grep ': error: ' "$OUT/dec" | grep -vc 'error: no memory mapped at this address\]$')
[ "$others" = 0 ] || bad "decode: $others errors other than the missing image: $(grep ': error: ' "$OUT/dec" | grep -v 'no memory mapped' | head -n 3)"
grep -q '"tsc_hz_source":"sideband tsc_hz ' "$OUT/tl.json" || bad "timeline: the TSC rate is not the sideband's tsc_hz"
awk '
	# Spans come as they end, so a span contains the ones before it
	# that start at or after its start; a child that starts with its
	# parent comes right after the parent instead.  Per tid a stack of
	# spans not yet inside a later one: a new span takes those that
	# start within it (each must end within it too), and any left
	# before it must end by its start.
	/"ph":"X"/ {
		match($0, /"tid":[0-9]+/); tid = substr($0, RSTART + 6, RLENGTH - 6)
		match($0, /"ts":[0-9.]+/); ts = substr($0, RSTART + 5, RLENGTH - 5) + 0
		match($0, /"dur":[0-9.]+/); end = ts + substr($0, RSTART + 6, RLENGTH - 6)
		n = sp[tid] + 0
		inside = 0
		while (n > 0 && st[tid, n] >= ts - 0.0005) {
			if (st[tid, n] <= ts + 0.0005 && en[tid, n] >= end - 0.0005) { inside = 1; break }
			if (en[tid, n] > end + 0.0005) { print "timeline: overlap on tid " tid ": " $0; bad = 1 }
			n--
		}
		if (!inside && n > 0 && en[tid, n] > ts + 0.0005) { print "timeline: overlap on tid " tid ": " $0; bad = 1 }
		if (!inside) { n++; st[tid, n] = ts; en[tid, n] = end }
		sp[tid] = n
		spans++
	}
	END { exit bad }
' "$OUT/tl.json" || bad "timeline: spans do not nest"
for dev in /dev/pt[0-9]*; do
	c=${dev#/dev/pt}
	[ -f "$B/cpu$c.loss" ] || continue
	gaps=$(awk '$1 == "loss" && $10 !~ /dropped/' "$B/cpu$c.loss" | wc -l)
	# one summary line per trace, and the total (alone with one CPU)
	got=$(sed -n -e "s|^# $B/cpu$c.pt: .*, \([0-9]*\) gap(s): .*|\1|p" "$OUT/dec.q")
	[ -n "$got" ] || [ "$(ls "$B"/cpu*.pt | wc -l)" != 1 ] ||
		got=$(sed -n 's|^# [0-9]* instructions, .*, \([0-9]*\) gap(s): .*|\1|p' "$OUT/dec.q")
	[ "$got" = "$gaps" ] || bad "decode cpu$c: summary says '$got' gaps, the loss file $gaps"
	lines=$(awk -v c="$c" '/^\[trace / { cur = $NF } cur == c "]" && /: loss: .*; trace lost here/' "$OUT/dec" | wc -l)
	[ "$lines" = "$gaps" ] || bad "decode cpu$c: $lines gap lines, the loss file has $gaps gaps"
	spans=$(grep -c "\"name\":\"trace lost\",\"cat\":\"loss\",\"ph\":\"X\",.*\"tid\":$c," "$OUT/tl.json")
	[ "$spans" = "$gaps" ] || bad "timeline cpu$c: $spans 'trace lost' spans, the loss file has $gaps gaps"
done

want=$(printf 'losses: %s loss records, %s bytes lost (known), %s of unknown size, %s ms not traced' \
	"$total_rec" "$total_known" "$total_unknown" \
	"$(awk -v ns="$total_ns" 'BEGIN { printf "%.3f", ns / 1e6 }')")
[ "$total_lapped" = 0 ] || want="$want, $total_lapped records overwritten"
grep -qF "$want" "$OUT/b.err" || bad "summary: '$(grep '^losses:' "$OUT/b.err")', records say '$want'"
echo "PTT-INFO stream: $total_rec loss records, $total_known bytes known lost, $total_unknown of unknown size, model dropped $((lost1 - lost0)) bytes"
# A 16 KiB ring read every 200 ms cannot hold a second of trace.
[ "$total_rec" -gt 0 ] || bad "no loss record: the slow reader lost nothing?"
if [ -n "$lost0" ] && [ "$all_known" = 1 ] && [ "$total_rec" -gt 0 ]; then
	[ "$total_known" = $((lost1 - lost0)) ] ||
		bad "records say $total_known bytes lost, the model dropped $((lost1 - lost0))"
else
	echo "PTT-INFO stream: byte counts not known for every gap, not compared with the model"
fi
[ -z "$gp0" ] || [ "$(cat $MODEL/gp_faults)" = "$gp0" ] || bad "modelled #GP during the test"
# The small files come back with the test's results (PTT_OUT), not the traces.
if [ -n "$PTT_OUT" ] && [ -d "$PTT_OUT" ]; then
	cp "$A/sideband.txt" "$PTT_OUT/flight-sideband.txt" 2>/dev/null
	cp "$B/sideband.txt" "$PTT_OUT/stream-sideband.txt" 2>/dev/null
	cp "$B"/cpu*.loss "$OUT/b.err" "$PTT_OUT/" 2>/dev/null
	cp "$OUT/tl.json" "$PTT_OUT/stream-timeline.json" 2>/dev/null
fi
rm -rf "$OUT"
exit $fail
