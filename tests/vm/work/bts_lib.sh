# SPDX-License-Identifier: GPL-2.0
# What the bts_* shell tests that record with pt-trace share
# (/ptt/work/bts_lib.sh, sourced, busybox sh):
#   PT            pt-trace (pt_trace_lib.sh; the test skips without it)
#   bts_require   skips where the model is not the backend, the
#                 profile has no BTS (bts/present is not 1) or page table
#                 isolation is on (the driver refuses BTS: bts/pti 1);
#                 bts_require_model skips for the first two alone
#   bad MSG       a failure (fail=1), the test goes on
. /ptt/work/pt_trace_lib.sh
pt_trace_require
fail=0
bad() {
	echo "FAIL: $*"
	fail=1
}

bts_require_model() {
	[ "$(cat /sys/kernel/pt_trace/backend)" = model ] || { echo "SKIP: not the model"; exit 77; }
	[ "$(cat /sys/kernel/pt_trace/bts/present)" = 1 ] || { echo "SKIP: no BTS on this profile"; exit 77; }
	# bdw's BTS is icl's (DS, DS-CPL, the same model), sharing no output
	# code with PT: a second run adds nothing (make check's time budget).
	[ "${PTT_PROFILE:-icl}" = icl ] || { echo "SKIP: BTS runs on icl (the other profiles' BTS is icl's or none)"; exit 77; }
}
bts_require() {
	bts_require_model
	[ "$(cat /sys/kernel/pt_trace/bts/pti)" = 0 ] || { echo "SKIP: page table isolation is on: the driver refuses BTS (bts_record checks the refusal)"; exit 77; }
}
