# SPDX-License-Identifier: GPL-2.0
# What the vmx_* shell tests that record the model's guests share
# (/ptt/work/vmx_lib.sh, sourced, busybox sh; set OUT first):
#   PT            pt-trace (pt_trace_lib.sh; the test skips without it)
#   M, P          the model's debugfs and its module parameters
#   bad MSG       a failure (fail=1), the test goes on
#   vmx_icl_only  skips on a runner profile other than icl (bdw cannot
#                 trace in VMX operation, min has no VMX)
#   vmx_require   skips without the model's vmx hook or tracing in VMX
#                 operation, fails when the model cannot run guests
#   vmx_traps [FN] runs FN (vmx_cleanup by default) at exit, also on
#                 the runner's SIGTERM, and bounds files at 64 MiB
#   vmx_cleanup   the model's guests, guest TSC and vmx hook off; $OUT
#                 copied to $PTT_OUT on a failure, then removed
#   pt ARGS...    pt-trace, killed and named when not done in 20 s
#                 (SIGTERM would let a stuck record try to finish)
#   vmx_guest_images  $OUT/guest.bin, the guests' code as a raw image
#                 (the model's debugfs vmx_guest_code: 64 KiB of a 16-byte
#                 block of six jz and a jmp *%rax, which a guest's packets
#                 walk, model.rst "Guests"), and
#                 GI, the --guest-image options for VM A (VMCS $A, at
#                 0x100000000000) and VM B (VMCS $B, at 0x08040000)
#   GA_RE, GB_RE  grep patterns of VM A's and VM B's IPs (16 hex digits)
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

vmx_icl_only() {
	[ "$PTT_PROFILE" = "" ] || [ "$PTT_PROFILE" = icl ] ||
		{ echo "SKIP: icl only (bdw cannot trace in VMX operation, min has no VMX)" >&2; exit 77; }
}

vmx_require() {
	[ -w $M/vmx ] || { echo "SKIP: no vmx hook" >&2; exit 77; }
	[ "$(cat /sys/kernel/pt_trace/vmx/trace_in_vmx 2>/dev/null)" = 1 ] ||
		{ echo "SKIP: no tracing in VMX operation on this profile" >&2; exit 77; }
	[ -w $P/model_vmx ] || { echo "FAIL: the model cannot run guests" >&2; exit 1; }
}

vmx_cleanup() {
	echo 0 >$P/model_vmx
	echo 0 >$P/model_vmx_tsc_offset
	echo 0 >$P/model_vmx_tsc_ratio
	echo "0 off" >$M/vmx
	# a failure leaves the recording and the listings to the runner
	[ $fail = 0 ] || [ -z "$PTT_OUT" ] || cp -r "$OUT" "$PTT_OUT/" 2>/dev/null
	rm -rf "$OUT"
}

# The runner ends a test that overruns with SIGTERM: clean up then too
# (the model's guests and tick left on broke every later record).  No
# file grows past 64 MiB (a decoder looping on an error once filled the
# VM's /tmp, and every later test that wrote a file failed).
vmx_traps() {
	trap "${1:-vmx_cleanup}" EXIT
	trap 'exit 1' TERM INT HUP
	ulimit -f 131072
}

pt() {
	timeout -s KILL 20 "$PT" "$@"
	rc=$?
	[ $rc -lt 124 ] || bad "pt-trace $* ended by timeout or signal (status $rc)"
	return $rc
}

vmx_guest_images() {
	mkdir -p "$OUT"
	cat $M/vmx_guest_code >"$OUT/guest.bin" &&
		[ "$(wc -c <"$OUT/guest.bin")" = 65536 ] ||
		{ echo "FAIL: no 64 KiB of guest code in $M/vmx_guest_code" >&2; exit 1; }
	GI="--guest-image $A:$OUT/guest.bin@0x100000000000 --guest-image $B:$OUT/guest.bin@0x08040000"
}

GA_RE='^000010000000' GB_RE='^000000000804'
classify() {
	awk '{ if ($1 ~ /^000010000000/) print "a";
	       else if ($1 ~ /^000000000804/) print "b";
	       else print "h" }' "$1" | sort | uniq -c | awk '{ printf "%s=%s ", $2, $1 }'
}
