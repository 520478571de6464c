#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ptt-timeout: 90
# decode --lines names a kernel module's code with the module's own
# source lines (issue 14): /ptt/work/decode_kmod
# (tests/vm/work/decode_kmod.c: the driver's GET_CAPS and GET_CONFIG
# ioctls for 150 ms) recorded with 'pt-trace record' (OS=1) on cpu0, so
# that the sampled generator (Documentation/model.rst) reports IPs in
# pt_trace.ko's code, which the recording saved.  Decoded with --lines
# and --symfs /ptt (where the VM's pt_trace.ko and pt_trace_model.ko
# are: decode takes DIR/NAME.ko when its build-id is the recorded
# kernel.module.build_id, laid out by kernel.module.sections), some
# instruction at a module address must carry a FILE:LINE from the
# module's debug info: a line of the driver's sources
# (drivers/pt_trace/...), or of a kernel header inlined into a pt_trace
# function ('<pt_core_get_config+0x57> .../capability.h:197 (inlined
# perfmon_capable)': CI once sampled only such instructions), and no
# line may say the build-ids differ.  Without the module's debug info
# no module instruction has a line at all.  The samples are random:
# when a recording has no module instruction it is made again once,
# and a second miss is a skip (nothing to judge), not a pass.
#
# Exit 0 pass, 77 skip, 1 fail.

[ "$PTT_PROFILE" = icl ] || { echo "SKIP: decode_* on the exact model run on icl"; exit 77; }
# The recorder saves the modules' code from /proc/kcore: without it (the
# debug kernel has no CONFIG_PROC_KCORE) module code cannot decode.
[ -e /proc/kcore ] || { echo "SKIP: no /proc/kcore, so no module code in the recording"; exit 77; }
. /ptt/work/exact_lib.sh
exact_sampled_small

d=$OUT/decode_kmod
mkdir -p "$d"
# One recording and its decode; sets n (instructions at module
# addresses, ffffffffc0...: where these kernels put modules) and nl (of
# them, those with a line of drivers/pt_trace or, inlined into one of
# the driver's functions, of a header).
kmod_try() {
	rm -rf "$d/rec"
	if ! taskset -c 0 "$PT" record -C 0 -o "$d/rec" -- /ptt/work/decode_kmod >"$d/rec.out" 2>&1; then
		cat "$d/rec.out"
		exact_fail "record exited non-zero"
	fi
	grep -q '^decode_kmod ' "$d/rec.out" || exact_fail "decode_kmod did not run to its end: $(head -n 3 "$d/rec.out")"
	grep -q '^kernel\.module\.sections=pt_trace ' "$d/rec/sideband.txt" ||
		exact_fail "the recording has no kernel.module.sections for pt_trace"
	# piped: the whole listing (hundreds of thousands of lines where
	# the sampled trace spins in a loop) is too slow to write to $OUT
	{
		"$PT" decode --format=raw --lines --symfs /ptt "$d/rec/cpu0.pt" 2>"$d/err"
		echo $? >"$d/rc"
	} | grep '^ffffffffc0' >"$d/lines"
	rc=$(cat "$d/rc")
	[ "$rc" = 0 ] || exact_fail "decode exited $rc: $(head -n 3 "$d/err")"
	n=$(wc -l <"$d/lines")
	nl=$(grep -c -e 'drivers/pt_trace/[a-z_/]*\.[ch]:[0-9][0-9]*\( (inlined [A-Za-z0-9_]*)\)\{0,1\}$' \
		-e '<pt_[a-z0-9_]*+0x[0-9a-f]*> .*\.h:[0-9][0-9]* (inlined [A-Za-z0-9_]*)$' "$d/lines")
	echo "PTT-INFO decode_kmod: $(wc -c <"$d/rec/cpu0.pt") bytes, $n instructions in modules, $nl with a line from pt_trace's debug info"
}
t0=$(date +%s)
kmod_try
# The generator samples at random: it may miss the module's code.
[ "$n" -gt 0 ] || kmod_try
if [ "$n" = 0 ] && [ "$exact_rc" = 0 ]; then
	echo "SKIP: the sampled trace has no instruction in a module, twice"
	echo "$exact_old" >"$PARAM"
	rm -rf "$OUT"
	exit 77
fi
grep -e 'drivers/pt_trace/' -e '(inlined ' "$d/lines" | head -n 3
[ "$nl" -gt 0 ] || exact_fail "no module instruction has a line of drivers/pt_trace or of a header inlined in it: $(head -n 3 "$d/lines" | tr '\n' '|')"
grep -q 'build-id mismatch' "$d/err" && exact_fail "$(grep 'build-id mismatch' "$d/err" | head -n 1)"
sed "s/^/decode: /" "$d/err" | head -n 5
echo "PTT-INFO decode_kmod: $(($(date +%s) - t0)) s"
exact_finish
