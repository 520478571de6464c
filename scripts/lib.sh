# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Shared helpers for the harness scripts: paths, logging, apt access.
# Sourced, not run.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Downloads, unpacked kernels and the debug kernel (shareable between
# clones with PTT_CACHE=...), and this tree's own build copies and results.
CACHE=${PTT_CACHE:-$ROOT/.cache}
WORK=${PTT_WORK:-$ROOT/.cache/work}
export LC_ALL=C

say() { printf '[%s] %s\n' "${0##*/}" "$*" >&2; }
die() { printf '[%s] ERROR: %s\n' "${0##*/}" "$*" >&2; exit 1; }

# Run as root: directly when we are root, through sudo otherwise.
as_root() {
	if [ "$(id -u)" = 0 ]; then
		"$@"
	else
		sudo "$@"
	fi
}

# The package a Debian meta package depends on (linux-image-amd64 ->
# linux-image-6.1.0-56-amd64), so a mirror update never breaks the build.
resolve_meta() {
	local dep
	dep=$(apt-cache depends "$1" 2>/dev/null |
		awk '$1 == "Depends:" && $2 !~ /^</ && !n++ { print $2 }')
	[ -n "$dep" ] || die "the mirror has no '$1' (apt-get update? bookworm-security in sources.list?)"
	echo "$dep"
}

# The version apt would install of a package.
candidate() {
	local v
	v=$(apt-cache policy "$1" 2>/dev/null | awk '$1 == "Candidate:" { print $2 }')
	[ -n "$v" ] && [ "$v" != "(none)" ] || die "the mirror cannot serve '$1'"
	echo "$v"
}

# Download a package's .deb into $CACHE/debs and print its path.
fetch_deb() {
	local pkg=$1 ver deb
	ver=$(candidate "$pkg")
	mkdir -p "$CACHE/debs"
	deb=$(ls "$CACHE/debs/${pkg}_"*"_"*.deb 2>/dev/null | grep -F "_${ver//:/%3a}_" | head -n1 || true)
	if [ -z "$deb" ]; then
		(cd "$CACHE/debs" && apt-get download -q $(sandbox_opt) "$pkg=$ver" >&2) ||
			die "apt-get download $pkg=$ver failed: the mirror cannot serve it"
		deb=$(ls "$CACHE/debs/${pkg}_"*.deb 2>/dev/null | grep -F "_${ver//:/%3a}_" | head -n1 || true)
	fi
	[ -f "$deb" ] || die "no .deb for $pkg $ver"
	echo "$deb"
}

# As root, let apt download into our (root-owned) cache without its
# unprivileged sandbox user (which cannot write there).
sandbox_opt() {
	[ "$(id -u)" != 0 ] || echo "-oAPT::Sandbox::User=root"
}

# Hold an exclusive lock on FILE until this script exits (make check and
# make deps may be started from two shells at once).
hold_lock() {
	mkdir -p "$(dirname "$1")"
	exec 9>"$1"
	flock 9
}

# The release modules built against KDIR are for (UTS_RELEASE: Debian's
# 6.1 headers have another name in include/config/kernel.release).
kernel_release() {
	sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' "$1/include/generated/utsrelease.h"
}

# kernel_table: after $CACHE/env is sourced, the three kernels' boots
# for check.sh and vm-quick.sh: KDIR (headers or tree), IMG (image), CPU
# (QEMU's -cpu) and APPEND (kernel command line).  The Debian 6.1 run
# keeps QEMU's AMD-flavoured "max"; the others claim GenuineIntel so the
# guest takes its Intel paths.  6.12 has PTI on (a Broadwell or Skylake
# machine: PT's PTI paths and the BTS refusal); the debug kernel boots
# with pti=off, as an Intel CPU without Meltdown (Ice Lake on): the
# driver refuses BTS under PTI (design.rst, "PTI"), and BTS's paths need
# lockdep and KASAN too.
kernel_table() {
	declare -gA KDIR=([6.1]=$KDIR_6_1 [6.12]=$KDIR_6_12 [debug]=$KDIR_DEBUG)
	declare -gA IMG=([6.1]=$VMLINUZ_6_1 [6.12]=$VMLINUZ_6_12 [debug]=$VMLINUZ_DEBUG)
	declare -gA CPU=([6.1]=max [6.12]=max,vendor=GenuineIntel
		[debug]=max,vendor=GenuineIntel)
	declare -gA APPEND=([6.1]="" [6.12]="" [debug]="pti=off")
}
