#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ptt-timeout: 300 (single-stepping under TCG: tens of us per instruction)
# The exact model (model_exact=1, Documentation/model.rst "Exact mode"):
# a statically linked program (loops, recursion, a jump table, function
# pointers, setjmp/longjmp; /ptt/work/exact_static) recorded with
# 'pt-trace record -u' through the driver on cpu0, decoded with
# 'pt-trace decode --format=ip': the decoded IPs must be exactly the
# instructions the model stepped (its ground truth, exact/truth_cpu0),
# from the program's first instruction to its exit, with no instruction
# the model could not classify and no truth line lost.
#
# Exit 0 pass, 77 skip, 1 fail.

# The exact model is above the output schemes: icl only (77 elsewhere).
[ "$PTT_PROFILE" = icl ] || { echo "SKIP: exact_* run on icl"; exit 77; }
# Not on the debug kernel (lockdep, KASAN: about 1 ms a step under TCG):
# what it checks is the encoder, the same on every kernel; exact_signal,
# exact_fork, exact_migrate, exact_stream and exact_cr3 run the exact
# model's kernel hooks there.
# And on 6.1 only of the two Debian kernels: the encoder is the same on
# both, and 6.12 is the slower guest (make check's 30-minute budget).
case $(uname -r) in
6.1.0-*) ;;
*) echo "SKIP: on Debian's 6.1 only (time budget; the encoder is the same on every kernel)"; exit 77 ;;
esac
. /ptt/work/exact_lib.sh

exact_run exact_static
exact_finish
