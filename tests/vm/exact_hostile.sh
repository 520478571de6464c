#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ptt-timeout: 120 (single-stepping under TCG)
# The exact model (Documentation/model.rst "Exact mode") against a program
# that plays with what it is stepped by: /ptt/work/exact_nolibc_hostile
# (tests/vm/work/exact_nolibc_hostile.c: pushf/popf, popf clearing TF, a
# handler rewriting the saved eflags before rt_sigreturn, vfork with a
# failing exec, clone(CLONE_VM) without CLONE_THREAD, execve of a missing
# file, a child's ptrace attach, refused under the recorder) recorded
# with 'pt-trace record -u --no-inherit'.  The program must run to its
# end with every answer as expected (never killed by a SIGTRAP, never
# hung), the decode must be exactly the model's truth of the process,
# and the model must never lose its place (desync 0): a popf that
# cleared TF once stopped the stepping until the next system call, whose
# probe then found another pending instruction.
#
# Exit 0 pass, 77 skip, 1 fail.

[ "$PTT_PROFILE" = icl ] || { echo "SKIP: exact_hostile runs on icl"; exit 77; }
. /ptt/work/exact_lib.sh

EXACT_END='^exact_nolibc_hostile done' exact_run exact_nolibc_hostile --no-inherit
! grep '^exact_nolibc_hostile failed' "$d/rec.out" ||
	exact_fail "the program saw a step go wrong"
exact_finish
