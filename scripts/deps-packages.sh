#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages the project needs (idempotent: does nothing
# when they are all there).  The 6.1 headers come from linux-headers-amd64;
# the 6.12 headers and both kernel images are only unpacked, elsewhere.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

pkgs=(
	# module builds: 6.1 headers, sparse (C=2), pahole (6.12 BTF)
	build-essential linux-headers-amd64 sparse pahole kmod
	# the debug kernel build
	bc bison flex libelf-dev libssl-dev xz-utils perl
	# tools and in-VM tests: the PT decoder library; perf's own Intel PT
	# decoder for the export --perf test
	libipt-dev linux-perf
	# the timeline test only: speedscope (from npm) in headless chromium
	chromium
	# decode: elfutils (ELF, symbols, separate debug info, DWARF lines),
	# libiberty (C++ demangling), capstone (disassembly); zstd makes the
	# .ko.zst of decode-kmod-xz; libzstd-dev (with liblzma-dev, libbz2-dev
	# and zlib1g-dev, which libdw-dev pulls in) for the host test
	# decode-maps, which links libdw statically
	libdw-dev libelf-dev libiberty-dev libcapstone-dev zstd libzstd-dev
	# the VM
	qemu-system-x86 busybox-static cpio gzip
	# install and packaging: make install/deb, DKMS, man pages, the udev
	# rule (udevadm), lintian
	dkms dh-dkms debhelper dpkg-dev fakeroot lintian python3-docutils udev
)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing+=("$p")
done
export DEBIAN_FRONTEND=noninteractive
# The kernels are fetched by name from the package index: it must exist.
index=$(apt-cache policy linux-image-6.12-amd64 2>/dev/null)
if [ ${#missing[@]} -gt 0 ] || [[ $index != *"Candidate: "[0-9]* ]]; then
	as_root apt-get update -q
fi
if [ ${#missing[@]} -gt 0 ]; then
	say "installing: ${missing[*]}"
	as_root apt-get install -y -q --no-install-recommends "${missing[@]}" ||
		die "apt-get install ${missing[*]} failed"
fi
say "packages: all ${#pkgs[@]} installed"
