# SPDX-License-Identifier: GPL-2.0
# Sourced by the in-VM tests that drive the model's MSRs through its
# debugfs msr hook (model_msr_rules, bts_model), on CPU 0: ok and gp
# write one MSR (hex) and expect it accepted or a modelled #GP (counted
# in expect_gp, to compare with gp_faults_test), rd reads one.  Sets
# fail=1 on a mismatch.
M=/sys/kernel/debug/pt_trace/model
fail=0
expect_gp=0

ok() {	# ok MSR VAL WHY
	if ! echo "0 $1 $2" >$M/msr 2>/dev/null; then
		echo "FAIL: wrmsr $1=$2 refused ($3)"; fail=1
	fi
}
gp() {	# gp MSR VAL WHY
	if echo "0 $1 $2" >$M/msr 2>/dev/null; then
		echo "FAIL: wrmsr $1=$2 accepted ($3)"; fail=1
	fi
	expect_gp=$((expect_gp + 1))
}
rd() {
	echo "0 $1" >$M/msr && cat $M/msr
}
