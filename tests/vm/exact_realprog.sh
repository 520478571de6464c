#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ptt-timeout: 120 (single-stepping under TCG: ~25 us per instruction)
# Real programs recorded and decoded exactly (issues 12-14), with the
# exact model (model_exact=1), each recorded with 'pt-trace record -u' on
# cpu0; 'decode --format=ip' must be exactly the model's ground truth of
# the process, which the test reads while the program runs
# (exact_lib.sh's exact_truth_start), with no truth line lost:
# - busybox's 'ls -la / /etc' (static; about 300,000 instructions:
#   lstat of each file, the owners' names from /etc/passwd, the dates,
#   the columns), more than a truth ring's 2^18 lines: read after the
#   recording, as before, the truth lost every line past those;
# - /ptt/work/exact_dlswap (tests/vm/work/exact_dlswap.c, a PIE): loads
#   a library with dlopen(), unloads it, loads another that ld.so maps at
#   the same addresses, then the first again; each call decodes in the
#   library mapped at its time (with --mtc: the time of the enable after
#   the mmap, Documentation/tools.rst).
#
# Exit 0 pass, 77 skip, 1 fail.

[ "$PTT_PROFILE" = icl ] || { echo "SKIP: exact_* run on icl"; exit 77; }
# Not on the debug kernel (about 1 ms a single step there under TCG:
# minutes); the reading of the rings while a test runs is the same there.
[ ! -e /proc/lockdep ] || { echo "SKIP: not on the debug kernel (time budget)"; exit 77; }
# And on Debian's 6.1 only of the two (5 s there, 13-15 s on 6.12): the
# truth reader and the decoder are the same on every kernel, and 6.12
# runs exact_filter_dlopen (make check's 30-minute budget).
case $(uname -r) in
6.1.0-*) ;;
*) echo "SKIP: on Debian's 6.1 only (time budget)"; exit 77 ;;
esac
. /ptt/work/exact_lib.sh

EXACT_NAME=ls EXACT_ARGS="-la / /etc" EXACT_END=' passwd$' exact_run /bin/ls
n=$(wc -l <"$OUT/ls/want")
[ "$n" -gt 262144 ] || exact_fail "ls ran $n instructions: not more than a truth ring holds (262144)"
rm -rf "$OUT/ls"
exact_run exact_dlswap --mtc
d=$OUT/exact_dlswap
# The three calls ran: a's, b's (at a's addresses), a's.
n=$(grep -c 'exact_dl_[ab].so 0x' "$d/rec.out")
[ "$n" = 3 ] || exact_fail "exact_dlswap made $n calls, not 3: $(cat "$d/rec.out")"
exact_finish
