#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A process the driver cannot add to the followed set runs untraced; the
# recorder must say so (issue 13).  With the module parameter
# follow_max_procs lowered to 1 (the followed process alone), 'pt-trace
# record -u -- sh -c "true & true & wait"' follows the shell, whose two
# children cannot join on any CPU: the recorder must print "2 tasks could
# not be followed" with the parameter to raise, and sideband.txt must say
# follow.join_failures=2 (what decode warns about) and each CPU's count.
# A recording with the default limit must then report 0 and no warning.
# icl only: following is profile-independent above the hw ops.
#
# Exit 0 pass, 77 skip, 1 fail.

[ "$PTT_PROFILE" = icl ] || { echo "SKIP: follow_join_fail runs on icl"; exit 77; }
. /ptt/work/pt_trace_lib.sh
pt_trace_require

MAX=/sys/module/pt_trace/parameters/follow_max_procs
[ -w $MAX ] || { echo "FAIL: no writable $MAX"; exit 1; }
OUT=/tmp/follow_join_fail.$$
old=$(cat $MAX)
trap 'echo "$old" >$MAX' EXIT
fail=0
bad() {
	echo "FAIL: $*"
	fail=1
}
rm -rf "$OUT"
mkdir -p "$OUT"
ncpu=$(ls -d /dev/pt[0-9]* | wc -l)

echo 1 >$MAX
"$PT" record -u -o "$OUT/full" -- sh -c 'true & true & wait' 2>"$OUT/full.err" ||
	bad "record with follow_max_procs=1 exited $?"
echo "$old" >$MAX
sed 's/^/full: /' "$OUT/full.err" | grep -i 'follow\|warn' | head -n 3
grep -q '2 tasks could not be followed: .*follow_max_procs = 1, .*raise /sys/module/pt_trace/parameters/follow_max_procs' "$OUT/full.err" ||
	bad "the recorder did not say that 2 tasks could not be followed"
SB=$OUT/full/sideband.txt
grep -qx 'follow.join_failures=2' "$SB" || bad "sideband: $(grep '^follow' "$SB" | tr '\n' ' ')(want follow.join_failures=2)"
n=$(grep -c '^cpu.follow_join_failures=[0-9]* 2$' "$SB")
[ "$n" = "$ncpu" ] || bad "sideband: $n of $ncpu CPUs with 2 join failures: $(grep '^cpu.follow_join' "$SB" | tr '\n' ' ')"

"$PT" record -u -o "$OUT/ok" -- sh -c 'true & true & wait' 2>"$OUT/ok.err" ||
	bad "record with follow_max_procs=$old exited $?"
grep -q 'could not be followed' "$OUT/ok.err" && bad "a warning with the default limit: $(grep 'could not' "$OUT/ok.err")"
grep -qx 'follow.join_failures=0' "$OUT/ok/sideband.txt" || bad "default limit: sideband $(grep '^follow' "$OUT/ok/sideband.txt" | tr '\n' ' ')(want follow.join_failures=0)"
grep -qx 'follow.joined=3' "$OUT/ok/sideband.txt" || bad "default limit: sideband $(grep '^follow' "$OUT/ok/sideband.txt" | tr '\n' ' ')(want follow.joined=3)"

rm -rf "$OUT"
[ $fail = 0 ] && echo PASS
exit $fail
