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
[ "$PTT_PROFILE" = icl ] || [ "$PTT_PROFILE" = bdw ] || { echo "SKIP: this exact_* test runs on icl and bdw (single-entry ToPA)"; exit 77; }
. /ptt/work/exact_lib.sh

exact_run exact_static
exact_finish
