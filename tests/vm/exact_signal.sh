#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ptt-timeout: 300 (single-stepping under TCG: tens of us per instruction)
# The exact model (Documentation/model.rst "Exact mode"): /ptt/work/exact_signal
# (tests/vm/work/exact_signal.c) recorded with 'pt-trace record -u' through the
# driver on cpu0; 'decode --format=ip' must give exactly the model's
# ground truth for the process, with nothing unclassified or lost.
#
# Signal handlers stepped from their first instruction: raise() three
# times (delivered at the syscall's return), SIG_IGN, and a SIGSEGV at a
# faulting store (FUP + TIP.PGD there, the store not retired) left with
# siglongjmp.
#
# Exit 0 pass, 77 skip, 1 fail.

[ "$PTT_PROFILE" = icl ] || [ "$PTT_PROFILE" = bdw ] || { echo "SKIP: this exact_* test runs on icl and bdw (single-entry ToPA)"; exit 77; }
. /ptt/work/exact_lib.sh

exact_run exact_signal
exact_finish
