#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ptt-timeout: 90
# pt-trace decode of the kernel side of a recording: /ptt/work/decode_kernel
# (tests/vm/work/decode_kernel.c: system calls for 100 ms) recorded with
# 'pt-trace record' (OS=1 and User=1) on cpu0.  model_exact=1 as for the
# other decode_* tests, but with OS=1 nothing is stepped: the trace is the
# sampled generator's (Documentation/model.rst), at kernel IPs sampled
# while this task ran system calls, decoded through the kernel text the
# recording saved.  Every kernel IP decode lists must have a symbol the
# recording's own kallsyms gives there (the last address at or below
# it; any of its names), and there must be some:
# /ptt/work/decode_kernel_check (tests/vm/work/decode_kernel_check.c)
# checks that in C, as busybox awk and sort took a minute on kallsyms.
#
# Exit 0 pass, 77 skip, 1 fail.

[ "$PTT_PROFILE" = icl ] || { echo "SKIP: decode_* on the exact model run on icl"; exit 77; }
# The recorder saves the kernel's text from /proc/kcore: without it (the
# debug kernel has no CONFIG_PROC_KCORE) kernel code cannot decode.
[ -e /proc/kcore ] || { echo "SKIP: no /proc/kcore, so no kernel text in the recording"; exit 77; }
. /ptt/work/exact_lib.sh
exact_sampled_small

d=$OUT/decode_kernel
mkdir -p "$d"
t0=$(date +%s)
if ! taskset -c 0 "$PT" record -C 0 -o "$d/rec" -- /ptt/work/decode_kernel >"$d/rec.out" 2>&1; then
	cat "$d/rec.out"
	exact_fail "record exited non-zero"
fi
grep -q '^decode_kernel ' "$d/rec.out" || exact_fail "decode_kernel did not run to its end: $(head -n 3 "$d/rec.out")"
# sideband.txt names the recording's kallsyms (kernel.kallsyms=FILE)
K=$(sed -n 's/^kernel\.kallsyms=//p' "$d/rec/sideband.txt")
case $K in /*) ;; *) K=$d/rec/$K ;; esac
[ -s "$K" ] || exact_fail "the recording has no kernel.kallsyms: $(ls "$d/rec" | tr '\n' ' ')"
t1=$(date +%s)
# piped: the checker reads kallsyms while decode starts (both CPUs)
{
	"$PT" decode --format=raw "$d/rec/cpu0.pt" 2>"$d/raw.err"
	echo $? >"$d/raw.rc"
} | /ptt/work/decode_kernel_check "$K" ||
	exact_fail "kernel IPs: none decoded, or not kallsyms' symbols"
[ "$(cat "$d/raw.rc")" = 0 ] || exact_fail "decode exited $(cat "$d/raw.rc")"
sed "s/^/decode: /" "$d/raw.err" | head -n 5
echo "PTT-INFO decode_kernel: record $((t1 - t0)) s, decode and check $(($(date +%s) - t1)) s"
exact_finish
