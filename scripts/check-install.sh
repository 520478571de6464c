#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check stage: `make install DESTDIR=...` (in a copy of the tree, for
# the kernel KDIR) lays out exactly the expected files, the installed
# module is the driver alone, for that kernel, at the tree's version, the
# installed tool runs, every man page renders, and `make uninstall`
# removes it all.
# Usage: check-install.sh KDIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kdir=$1
kver=$(kernel_release "$kdir")
ver=$(cat "$ROOT/VERSION")
d=$WORK/install
"$ROOT/scripts/stage-tree.sh" "$d/src"
dest=$d/root
rm -rf "$dest"
make -s -j"$(nproc)" -C "$d/src" install DESTDIR="$dest" KDIR="$kdir" PREFIX=/usr/local >"$d/make.log" 2>&1 ||
	{ tail -n 30 "$d/make.log" >&2; die "make install failed: see $d/make.log"; }

# One man page per command (tools/pt-trace/cmd_NAME.c) and pt-trace.1.
mans=$(for c in "$ROOT"/tools/pt-trace/cmd_*.c; do
	c=${c##*/cmd_}
	echo "/usr/local/share/man/man1/pt-trace-${c%.c}.1"
done)
expect=$(printf '%s\n' /etc/modprobe.d/pt_trace.conf \
	/etc/udev/rules.d/60-pt-trace.rules \
	"/lib/modules/$kver/updates/pt_trace.ko" /usr/local/bin/pt-trace \
	$mans /usr/local/share/man/man1/pt-trace.1 | sort)
got=$(cd "$dest" && find . -type f | sed 's/^\.//' | sort)
[ "$got" = "$expect" ] || die "make install laid out:
$got
expected:
$expect"

ko=$dest/lib/modules/$kver/updates/pt_trace.ko
[ "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" = "$kver" ] || die "installed module is not for $kver"
[ "$(modinfo -F version "$ko")" = "$ver" ] || die "installed module is not version $ver"
! nm "$ko" | grep -q pt_model_ || die "the installed pt_trace.ko carries the model"
"$dest/usr/local/bin/pt-trace" --version | grep -qx "pt-trace $ver (uapi ABI [0-9]*)" ||
	die "installed pt-trace --version: $("$dest/usr/local/bin/pt-trace" --version 2>&1)"
for m in "$dest"/usr/local/share/man/man1/*.1; do
	# Only layout notes are allowed (long literal lines, a table split
	# across man's page breaks); lintian's groff check ignores them too.
	w=$(MANWIDTH=80 man --warnings=w -E UTF-8 -l "$m" 2>&1 >/dev/null |
		grep -v -e 'cannot adjust line' -e "can't break line" \
			-e 'character above first line discarded' || true)
	[ -z "$w" ] || die "${m##*/}: $w"
done

make -s -C "$d/src" uninstall DESTDIR="$dest" KDIR="$kdir" PREFIX=/usr/local >>"$d/make.log" 2>&1
left=$(cd "$dest" && find . -type f)
[ -z "$left" ] || die "make uninstall left: $left"
say "make install for $kver: $(echo "$expect" | wc -l) files as expected; uninstall removed them"
