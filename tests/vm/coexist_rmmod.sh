#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A ToPA PMI still pending when the module unloads (silicon-review M3):
# the model's late_pmi "masked" leaves bit 55 set and LVTPC masked on a
# CPU after a stream, as a PMI whose NMI the APIC held back.  Module exit
# must acknowledge it and unmask LVTPC on every CPU before it unregisters
# its handler; otherwise the model delivers the NMI at unload (as silicon
# would once LVTPC is unmasked) to nobody: "NMI received for unknown
# reason", and it logs that LVTPC was left masked.  The modules are
# loaded again as the runner loaded them.
. /ptt/lib.sh
M=/sys/kernel/debug/pt_trace/model
[ -w $M/late_pmi ] || { echo "SKIP: no late_pmi hook"; exit 77; }
cpu=$(($(grep -c ^processor /proc/cpuinfo) > 1 ? 1 : 0))
fail=0
mark=$(dmesg | wc -l)
echo "$cpu masked" >$M/late_pmi || { echo "FAIL: late_pmi"; exit 1; }
if ! ptt_unload_model; then
	echo "FAIL: rmmod"
	exit 1
fi
sleep 1
log=$(dmesg | tail -n +$((mark + 1)))
echo "$log" | sed 's/^/  log| /'
if ! ptt_load_model model_profile="$PTT_PROFILE"; then
	echo "FAIL: insmod again"
	exit 1
fi
for bad in 'NMI received for unknown reason' 'left masked' 'still pending'; do
	if echo "$log" | grep -q "$bad"; then
		echo "FAIL: at unload: $bad"
		fail=1
	fi
done
exit $fail
