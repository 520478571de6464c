# SPDX-License-Identifier: GPL-2.0
# Sourced by the shell tests (busybox sh) that run the pt-trace tool:
# sets PT to the binary, found on PATH, in $PT_TRACE, in /ptt/bin (where
# the VM installs tools/build/*) or in the tree's tools/build, in that
# order; empty when there is none.  pt_trace_require skips the test then.

PT=$(command -v pt-trace)
for p in "$PT_TRACE" /ptt/bin/pt-trace ./tools/build/pt-trace; do
	[ -z "$PT" ] && [ -n "$p" ] && [ -x "$p" ] && PT=$p
done

pt_trace_require() {
	[ -n "$PT" ] && return 0
	echo "SKIP: pt-trace not found (PATH=$PATH; the VM installs tools/build/* in /ptt/bin)"
	exit 77
}
