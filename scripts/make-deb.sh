#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make deb: build pt-trace-dkms (arch all) and pt-trace (the tool) with
# dpkg-buildpackage in a copy of the tree, then lintian on the result
# (when installed): any error or warning fails.  The .deb files land in .cache/work/deb/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$WORK/deb
"$ROOT/scripts/stage-tree.sh" "$out/src"
rm -f "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo
(cd "$out/src" && dpkg-buildpackage -us -uc -b -j"$(nproc)") >"$out/build.log" 2>&1 ||
	{ tail -n 30 "$out/build.log" >&2; die "dpkg-buildpackage failed: see $out/build.log"; }
changes=$(ls "$out"/*.changes)
if command -v lintian >/dev/null; then
	lintian --fail-on error,warning "$changes" >"$out/lintian.log" 2>&1 ||
		{ cat "$out/lintian.log" >&2; die "lintian: see $out/lintian.log"; }
	grep -v 'running with root privileges' "$out/lintian.log" >&2 || true
else
	say "lintian is not installed: the packages were not checked"
fi
ls "$out"/*.deb
