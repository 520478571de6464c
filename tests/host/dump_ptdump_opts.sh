#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pt-trace dump's ptdump options (--lastip, --exec-mode, --time, --tcal,
# --time-delta, --no-tcal, --raw, --no-offset, ranges ...) against libipt
# 2.0.5's ptdump on the conformance cases and the real traces.  Where a
# ptdump is installed (PTDUMP=/path or on PATH) the outputs are compared
# line for line; otherwise each output's SHA-256 is compared with the
# one ptdump 2.0.5 gave, recorded in dump_ptdump_opts.sha256 (made with
# "dump_ptdump_opts.sh --record PTDUMP").  Prints PTT-RESULT lines.
#
# usage: dump_ptdump_opts.sh PT-TRACE SHARED [--record PTDUMP]

PT=$1
SHARED=$2
HERE=$(cd "$(dirname "$0")" && pwd)
SUMS="$HERE/dump_ptdump_opts.sha256"
RECORD=
[ "$3" = --record ] && RECORD=$4
REF=${PTDUMP:-$(command -v ptdump)}
[ -n "$RECORD" ] && REF=$RECORD

# Each trace with the decoder parameters of its CPU (traces/README.md).
HELLO="--cpu 6/85/4 --mtc-freq 3 --nom-freq 37 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 308"
PERF="--cpu 6/78/3 --mtc-freq 3 --nom-freq 12 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 200"
SETS=("--lastip" "--exec-mode" "--time" "--tcal" "--time --time-delta"
      "--tcal --time-delta" "--time --no-tcal" "--raw" "--no-offset"
      "--no-offset --raw --lastip" "--time --no-wall-clock" "--no-timing"
      "--no-cyc --time" "--quiet --time" "--no-pad --lastip --exec-mode")

cases() { # FILE<TAB>PARAMETERS, FILE relative to SHARED
	local f
	for f in "$SHARED"/conformance/ptdump/*.pt; do
		# libipt 2.0.5 does not report MODE.Exec IF; pt-trace prints it
		case $f in *mode_exec-if*) continue ;; esac
		printf '%s\t\n' "${f#"$SHARED"/}"
	done
	printf '%s\t%s\n' traces/skl-hello/pt.bin "$HELLO" \
		traces/skl-perf414/cpu0.pt "$PERF" \
		traces/skl-perf414/cpu3.pt "$PERF" \
		traces/skl-perf414/cpu3.pt:0x100-0x8000 "$PERF"
}

TMP_OUT=$(mktemp)
trap 'rm -f "$TMP_OUT"' EXIT
[ -n "$RECORD" ] && : >"$SUMS"
declare -A WANT
if [ -z "$RECORD" ] && [ -z "$REF" ]; then
	while IFS=$'\t' read -r sum f o; do WANT["$f	$o"]=$sum; done <"$SUMS"
fi
bad=0 n=0 first=
while IFS=$'\t' read -r file params; do
	for opts in "${SETS[@]}"; do
		key="$file	$opts"
		# shellcheck disable=SC2086
		if [ -n "$RECORD" ]; then
			sum=$("$REF" $opts $params "$SHARED/$file" 2>&1 | sha256sum | cut -d' ' -f1)
			printf '%s\t%s\n' "$sum" "$key" >>"$SUMS"
			continue
		fi
		n=$((n + 1))
		# shellcheck disable=SC2086
		"$PT" dump $opts $params "$SHARED/$file" >"$TMP_OUT" 2>&1
		if [ -n "$REF" ]; then
			# shellcheck disable=SC2086
			"$REF" $opts $params "$SHARED/$file" 2>&1 | cmp -s - "$TMP_OUT" && continue
		else
			[ "$(sha256sum <"$TMP_OUT" | cut -d' ' -f1)" = "${WANT[$key]}" ] && continue
		fi
		bad=$((bad + 1))
		[ -z "$first" ] && first="$opts $file: $(head -c 120 "$TMP_OUT" | tr '\n' '|')"
	done
done < <(cases)
[ -n "$RECORD" ] && exit 0
how="recorded SHA-256 of ptdump 2.0.5"
[ -n "$REF" ] && how="$REF"
if [ "$n" -gt 0 ] && [ "$bad" = 0 ]; then
	echo "PTT-RESULT PASS dump-ptdump-options ($n outputs equal to $how)"
else
	echo "PTT-RESULT FAIL dump-ptdump-options $bad of $n differ from $how; first: $first"
fi
