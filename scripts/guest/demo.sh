#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The VM side of make demo: load pt_trace.ko on the software model
# (pt_trace_model.ko), run the tools' demo (tools/demo/guest-demo.sh) or,
# until it exists, show the capabilities the driver found; then unload.
. /ptt/lib.sh

echo "== insmod pt_trace_model.ko; insmod pt_trace.ko backend=model (no Intel PT in this VM: the software model stands in)"
ptt_load_model || exit 1
if [ -x /ptt/demo/guest-demo.sh ]; then
	PT_TRACE=/ptt/bin/pt-trace /ptt/demo/guest-demo.sh
	rc=$?
else
	echo "== /sys/kernel/pt_trace/caps"
	for f in /sys/kernel/pt_trace/caps/*; do
		printf '%-28s %s\n' "${f##*/}" "$(cat "$f")"
	done
	ls -l /dev/pt* 2>/dev/null
	rc=0
fi
echo "== rmmod pt_trace pt_trace_model"
ptt_unload_model || rc=1
exit $rc
