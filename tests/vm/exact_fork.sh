#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ptt-timeout: 120 (single-stepping under TCG, on a loaded machine)
# The exact model (Documentation/model.rst "Exact mode") across fork and
# exec (issues 12 and 13): /ptt/work/exact_nolibc_fork (no libc; tests/
# vm/work/exact_nolibc_fork.c) forks, its child runs code of its own and
# execs /ptt/work/exact_nolibc_exec, linked at the same addresses, and
# the parent waits.  Recorded as a user does ('pt-trace record -u --',
# followed on every CPU with its children): the truth has the parent and
# the child only; 'pt-trace decode --pid' of each gives exactly its truth,
# and the child's, split at its exec (the truth's exec line), is its
# truth before the exec in its parent's image and after it in the new
# one.  With 'record --no-inherit' the child is not traced: the truth
# and the decode have the parent only, exactly.
#
# Exit 0 pass, 77 skip, 1 fail.

# On bdw too (PSB+ at every enable, as exact_threads: see there); the
# child's first run after the fork was given to the parent there once.
[ "$PTT_PROFILE" = icl ] || [ "$PTT_PROFILE" = bdw ] ||
	{ echo "SKIP: exact_fork runs on icl and bdw"; exit 77; }
# On the debug kernel (lockdep, KASAN) the inherit part only, so that
# fork and exec are stepped there once (both parts took 56 s there, too
# much of make check's budget; the inherit part 48 s on a machine loaded
# twice as much, about 23 s on a quiet one).
. /ptt/work/exact_lib.sh
. /ptt/work/exact_tasks.sh

prog=exact_nolibc_fork

# With inheritance (the default).
EXACT_NAME=inherit exact_follow $prog
grep -q '^exact_nolibc_exec done' "$D/rec.out" || exact_fail "the child's exec did not run to its end"
parent=$PID
child=$(exact_pids | grep -vx "$parent" | tr '\n' ' ')
[ "$(exact_pids | wc -l)" = 2 ] && [ -n "$child" ] ||
	exact_fail "processes in the truth: $(exact_pids | tr '\n' ' ')(want $parent and one child)"
child=${child% }
p=$(exact_decoded_pids | tr '\n' ' ')
[ "$p" = "$(exact_pids | tr '\n' ' ')" ] || exact_fail "processes in the decode: $p"
exact_process "$parent" parent
exact_process "$child" child
# The child at its exec: before it, the parent's program; after, the new one.
x=$(cat "$D"/truth.* | awk -v p="$child" '$1 == "#" && $2 == "exec" && $5 == p { print $3 }')
[ "$(echo "$x" | wc -w)" = 1 ] || exact_fail "the truth has $(echo "$x" | wc -w) exec lines of the child"
awk -v p="$child" -v x="${x:-0}" '$3 == p && $1 < x { print $6 }' "$D/all" >"$D/want.pre"
awk -v p="$child" -v x="${x:-0}" '$3 == p && $1 >= x { print $6 }' "$D/all" >"$D/want.post"
n=$(wc -l <"$D/want.pre")
head -n "$n" "$D/got.p$child.$child" >"$D/got.pre"
tail -n +"$((n + 1))" "$D/got.p$child.$child" >"$D/got.post"
exact_compare "$D/want.pre" "$D/got.pre" "child before its exec"
exact_compare "$D/want.post" "$D/got.post" "child after its exec"
# decode names the child by its program, in time order: its parent's,
# then the new one (comms are 15 characters)
c=$(awk -v p="$child" '$1 == p { print $3, $5 }' "$D/got.p$child" | sort -s -k1,1 |
	awk '{ print $2 }' | uniq | tr '\n' ' ')
[ "$c" = "exact_nolibc_fo exact_nolibc_ex " ] ||
	exact_fail "the child's comms in the decode: $c(want exact_nolibc_fo, then exact_nolibc_ex)"

# Without: the child and what it execs are not traced.
[ ! -e /proc/lockdep ] || exact_finish

EXACT_NAME=no-inherit exact_follow $prog --no-inherit
grep -q '^exact_nolibc_exec done' "$D/rec.out" || exact_fail "--no-inherit: the child's exec did not run to its end"
p=$(exact_pids | tr '\n' ' ')
[ "$p" = "$PID " ] || exact_fail "--no-inherit: processes in the truth: $p(want only $PID)"
p=$(grep '^tasks:' "$D/rec.out")
[ "$p" = "tasks: $PID (exact_nolibc_fo)" ] || exact_fail "--no-inherit: the recorder's summary says '$p'"
p=$(exact_decoded_pids | tr '\n' ' ')
[ "$p" = "$PID " ] || exact_fail "--no-inherit: processes in the decode: $p(want only $PID)"
exact_thread "$PID" "--no-inherit parent"
exact_finish
