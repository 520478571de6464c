#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ptt-timeout: 300 (single-stepping under TCG: tens of us per instruction)
# The exact model (Documentation/model.rst "Exact mode"): /ptt/work/exact_pie
# (tests/vm/work/exact_pie.c) recorded with 'pt-trace record -u' through the
# driver on cpu0; 'decode --format=ip' must give exactly the model's
# ground truth for the process, with nothing unclassified or lost.
#
# A PIE linked against libc, from ld.so's first instruction to its exit:
# ld.so, libc and the vdso come from the sideband.
#
# Exit 0 pass, 77 skip, 1 fail.

[ "$PTT_PROFILE" = icl ] || [ "$PTT_PROFILE" = bdw ] || { echo "SKIP: this exact_* test runs on icl and bdw (single-entry ToPA)"; exit 77; }
. /ptt/work/exact_lib.sh

exact_run exact_pie
exact_finish
