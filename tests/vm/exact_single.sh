#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ptt-timeout: 120 (single-stepping under TCG)
# The exact model through single-range output (issue 12: "through the
# real output path (ToPA or single range ...)"): exact_static and
# exact_pie recorded with 'pt-trace record -u --output-scheme single
# -m flight -b 1M' (one contiguous range per CPU; flight mode: a single
# range has no INT or STOP to stream with, abi.rst) must each decode to
# exactly the model's ground truth, as exact_static and exact_pie do
# through ToPA (their traces fit in the range: nothing overwritten); the
# sideband says the driver used a single range (cpu.output).  On icl and
# bdw (whose ToPA has one entry only).
#
# Exit 0 pass, 77 skip, 1 fail.

[ "$PTT_PROFILE" = icl ] || [ "$PTT_PROFILE" = bdw ] ||
	{ echo "SKIP: exact_single runs on icl and bdw (single range)"; exit 77; }
. /ptt/work/exact_lib.sh

for prog in exact_static exact_pie; do
	EXACT_NAME=single_$prog exact_run $prog --output-scheme single -m flight -b 1M
	grep -q '^cpu.output=0 single$' "$d/rec/sideband.txt" ||
		exact_fail "$prog: the driver did not use a single range: $(grep '^cpu.output=' "$d/rec/sideband.txt" | tr '\n' ' ')"
done
exact_finish
