#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The VM side of make bench: every /ptt/bench/* with the driver loaded on
# the software model (pt_trace_model.ko).  They print ratios; only a crash
# fails.
. /ptt/lib.sh
rc=0
ptt_load_model || exit 1
for b in /ptt/bench/*; do
	[ -x "$b" ] || continue
	echo "== ${b##*/}"
	"$b" || rc=1
done
ptt_unload_model || rc=1
exit $rc
