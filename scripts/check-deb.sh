#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check stage: make deb builds both packages with lintian clean
# (scripts/make-deb.sh), one version everywhere (VERSION, dkms.conf,
# debian/changelog), the pt-trace package depends on the library it links
# and its binary, unpacked into a throwaway root, runs --version; the dkms
# package carries the module sources, dkms.conf and the udev rule.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

command -v lintian >/dev/null || die "lintian is not installed (make deps)"
ver=$(cat "$ROOT/VERSION")
grep -qx "PACKAGE_VERSION=\"$ver\"" "$ROOT/dkms.conf" || die "dkms.conf's PACKAGE_VERSION is not VERSION ($ver)"
[ "$(dpkg-parsechangelog -l "$ROOT/debian/changelog" -S Version)" = "$ver" ] ||
	die "debian/changelog's version is not VERSION ($ver)"

"$ROOT/scripts/make-deb.sh" >/dev/null
out=$WORK/deb
tool=$out/pt-trace_${ver}_amd64.deb dkms=$out/pt-trace-dkms_${ver}_all.deb
[ -f "$tool" ] && [ -f "$dkms" ] || die "make deb made no $tool or $dkms"
dpkg-deb -f "$tool" Depends | grep -q 'libipt2' || die "pt-trace does not depend on libipt2"
for lib in libdw1 libelf1 libcapstone4; do
	dpkg-deb -f "$tool" Depends | grep -q "$lib" || die "pt-trace does not depend on $lib"
done

root=$out/root
rm -rf "$root" && dpkg -x "$tool" "$root"
"$root/usr/bin/pt-trace" --version | grep -qx "pt-trace $ver (uapi ABI [0-9]*)" ||
	die "the packaged pt-trace --version: $("$root/usr/bin/pt-trace" --version 2>&1)"
[ -f "$root/usr/share/man/man1/pt-trace-record.1.gz" ] || die "pt-trace has no man pages"
files=$(dpkg -c "$dkms" | awk '{ print $6 }')
for f in ./usr/src/pt-trace-$ver/dkms.conf ./usr/src/pt-trace-$ver/Kbuild \
	./usr/src/pt-trace-$ver/drivers/pt_trace/main.c ./lib/udev/rules.d/60-pt-trace.rules \
	./etc/modprobe.d/pt_trace.conf; do
	echo "$files" | grep -qx "$f" || die "pt-trace-dkms lacks $f"
done
say "make deb: $(basename "$tool") $(basename "$dkms"), lintian clean, --version runs"
