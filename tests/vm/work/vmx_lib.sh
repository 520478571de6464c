# SPDX-License-Identifier: GPL-2.0
# What the vmx_* shell tests that record the model's guests share
# (/ptt/work/vmx_lib.sh, sourced, busybox sh; set OUT first):
#   PT            pt-trace (pt_trace_lib.sh; the test skips without it)
#   M, P          the model's debugfs and its module parameters
#   bad MSG       a failure (fail=1), the test goes on
#   pt ARGS...    pt-trace, killed and named when not done in 20 s
#                 (SIGTERM would let a stuck record try to finish)
#   vmx_guest_images   $OUT/guest.bin, each guest's code as a raw image
#                 (64 KiB of 0x74, jz, which walks the guest's TNTs), and
#                 GI, the --guest-image options for VM A (VMCS $A, at
#                 0x100000000000) and VM B (VMCS $B, at 0x08040000)
#   classify FILE the IPs (16 hex digits a line) counted by where they
#                 lie: "a=N b=N h=N " (VM A, VM B, the host)
. /ptt/work/pt_trace_lib.sh
pt_trace_require
M=/sys/kernel/debug/pt_trace/model
P=/sys/module/pt_trace_model/parameters
A=0x12345000 B=0x6789a000
fail=0
bad() {
	echo "FAIL: $*" >&2
	fail=1
}

pt() {
	timeout -s KILL 20 "$PT" "$@"
	rc=$?
	[ $rc -lt 124 ] || bad "pt-trace $* ended by timeout or signal (status $rc)"
	return $rc
}

vmx_guest_images() {
	mkdir -p "$OUT"
	head -c 65536 /dev/zero | tr '\000' '\164' >"$OUT/guest.bin"
	GI="--guest-image $A:$OUT/guest.bin@0x100000000000 --guest-image $B:$OUT/guest.bin@0x08040000"
}

classify() {
	awk '{ if (substr($1, 1, 12) == "000010000000") print "a";
	       else if (substr($1, 1, 12) == "000000000804") print "b";
	       else print "h" }' "$1" | sort | uniq -c | awk '{ printf "%s=%s ", $2, $1 }'
}
