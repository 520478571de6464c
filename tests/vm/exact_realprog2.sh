#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ptt-timeout: 120 (single-stepping under TCG: ~25 us per instruction)
# More real code recorded and decoded exactly (issues 12 and 14), with
# the exact model (model_exact=1): /ptt/work/exact_libc (tests/vm/work/
# exact_libc.c, a PIE with libc) recorded as a user does ('pt-trace
# record -u -- PROG': followed on every CPU with its children, stream
# mode, not pinned) runs libc's memcpy/memset/strlen family on buffers
# up to 12 KB (vector loops, rep movsb/stosb), a dlopen()ed library's
# __thread variables (__tls_get_addr) in two threads, the vDSO's clocks
# in a loop, syscall(2) and a raw syscall, stdio on a file, a timer's
# SIGALRM taken in a busy loop with its handler on a sigaltstack, left
# by siglongjmp, and posix_spawn() and vfork() + execve() of
# /ptt/work/exact_nolibc_exec.  Required: the truth (all CPUs, merged by
# TSC) has the program and its two children only, the program two
# threads; one decode of all the traces (--format=perf) has as many
# instructions, names the same processes, and each thread's
# instructions in it, by time, are exactly its truth.  8-12 s on 6.12
# (record 4-6 s; session 22's split of the truth and the decode per
# thread in C took the rest from 15.7 s to 3 s).  It found the model's
# last IP reset at an enable (session 22: the spawned static child's
# TIP.PGE after its PIE parent's run on one CPU decoded at 0x7f0c00401143,
# 2 runs in 6).
#
# Exit 0 pass, 77 skip, 1 fail.

[ "$PTT_PROFILE" = icl ] || { echo "SKIP: exact_* run on icl"; exit 77; }
# Not on the debug kernel (about 1 ms a single step there), and on 6.12
# only: exact_realprog runs on Debian's 6.1 (make check's budget); the
# stepper and the decoder are the same on both.
[ ! -e /proc/lockdep ] || { echo "SKIP: not on the debug kernel (time budget)"; exit 77; }
case $(uname -r) in
6.1.0-*) echo "SKIP: on 6.12 only (time budget)"; exit 77 ;;
esac
. /ptt/work/exact_lib.sh
. /ptt/work/exact_tasks.sh

sig0=$(exact_stat signals)
exact_follow exact_libc
pids=$(exact_pids | tr '\n' ' ')
[ "$(echo "$pids" | wc -w)" = 3 ] && exact_pids | grep -qx "$PID" ||
	exact_fail "processes in the truth: $pids(want $PID and the two it spawned)"
p=$(exact_decoded_pids | tr '\n' ' ')
[ "$p" = "$pids" ] || exact_fail "processes in the decode: $p(the truth's: $pids)"
for p in $pids; do
	n=0
	for t in $(exact_tids "$p"); do
		n=$((n + 1))
		exact_thread "$t" "exact_libc (pid $p)"
	done
	w=1
	[ "$p" != "$PID" ] || w=2
	[ "$n" = "$w" ] || exact_fail "process $p has $n threads in the truth, not $w"
done
# The children ran exact_nolibc_exec to its end; the handlers ran.
n=$(grep -c '^exact_nolibc_exec done' "$D/rec.out")
[ "$n" = 2 ] || exact_fail "exact_nolibc_exec ended $n times, not 2"
n=$(($(exact_stat signals) - sig0))
[ "$n" = 2 ] || exact_fail "$n signals delivered to stepped tasks, not 2 (SIGUSR1, SIGALRM)"
exact_finish
