#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The VM runner (scripts/guest/runner.sh) holds, before the first test,
# every tracepoint the modules register probes on, so that no kernel text
# is patched while tests run (QEMU TCG sometimes runs a text_poke_bp()
# int3 after it is gone: testing.rst).  Its list is written by hand; this
# test fails when a module's tracepoint table names one the list lacks.
# Usage: hold_list.sh ROOT
ROOT=$1
name=runner-hold-tracepoints
list=$(sed -n '/^PTT_HOLD_TPS="/,/"$/p' "$ROOT/scripts/guest/runner.sh" |
	tr -d '"' | sed 's/^PTT_HOLD_TPS=//' | tr ' ' '\n' | sed -n 's|.*/||p')
if [ -z "$list" ]; then
	echo "PTT-RESULT FAIL $name no PTT_HOLD_TPS list in runner.sh"
	exit 0
fi
# The tables: "struct { const char *name; ... } pt_*_tps[] = { { "x", ...".
missing="" n=0
for f in $(grep -rl '_tps\[\] = {' "$ROOT/drivers"); do
	for tp in $(sed -n '/_tps\[\] = {/,/^};/s/^[[:space:]]*{ "\([a-z_0-9]*\)".*/\1/p' "$f"); do
		n=$((n + 1))
		echo "$list" | grep -qx "$tp" || missing="$missing ${f#"$ROOT"/}:$tp"
	done
done
if [ "$n" = 0 ]; then
	echo "PTT-RESULT FAIL $name found no tracepoint table in drivers/"
elif [ -n "$missing" ]; then
	echo "PTT-RESULT FAIL $name not held by runner.sh's PTT_HOLD_TPS:$missing"
else
	echo "PTT-RESULT PASS $name ($n probes, all held)"
fi
