#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The VM side of make bench: every /ptt/bench/* with the module loaded on
# the software model.  They print ratios; only a crash fails.
rc=0
ptt-insmod /ptt/pt_trace.ko backend=model || exit 1
for b in /ptt/bench/*; do
	[ -x "$b" ] || continue
	echo "== ${b##*/}"
	"$b" || rc=1
done
rmmod pt_trace || rc=1
exit $rc
